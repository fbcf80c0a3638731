"""The history's memory copy, kept packed: one pickled, compressed byte string per stored message.

``HistoryStore`` keeps the last dialogue it read plus every message since
(``history_queue.KnownDialogue``), so the model keeps its context when the database can no longer
be read. Held as decoded records, that copy was a second full history in memory (the runtime's
request builds its own from each ``load``) and grew by some 20 KB of small objects a turn. Packed (pickled, then zlib at level 1: ~26 us and a third of the
pickle's size for a message of a few KB), a record is one bytes object the garbage collector never
walks; it is unpacked only on the rare read that needs it.

System messages are not kept (but for one marked ``include_in_messages``, which a request would
replay). Each request stores its own (zett's prompt, the tool guidelines, the working folder: some
3.7 KB packed, more than the turn's dialogue), yet no request restores them (zett-agent's
persistence leaves them out, and the current config supplies them): kept, they were most of this
copy, one set per turn. Their sequence still counts for ``last_sequence``.

Records are immutable once stored, so a record read again (each turn's ``load`` returns the whole
dialogue) reuses the bytes packed before instead of being pickled again. The pickles never leave
this process.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterable

from zett_agent.extensions.persistence import RawMessageRecord
from zett_agent.messages import SystemMessage

_Key = tuple[str, int]


def _key(record: RawMessageRecord) -> _Key:
    return record.id, record.sequence


class PackedRecords:
    """Stored messages in order, each pickled once; ``unpack`` gives the records back."""

    __slots__ = ("_keys", "_last_sequence", "_packed")

    def __init__(self, records: Iterable[RawMessageRecord] = (), reuse: PackedRecords | None = None) -> None:
        self._keys: list[_Key] = []
        self._packed: list[bytes] = []
        self._last_sequence = 0
        known = dict(zip(reuse._keys, reuse._packed, strict=True)) if reuse is not None else {}
        for record in records:
            self._add(record, known.get(_key(record)))

    def __len__(self) -> int:
        return len(self._packed)

    @property
    def last_sequence(self) -> int:
        """The sequence of the last record (0 when there is none)."""
        return self._last_sequence

    def append(self, record: RawMessageRecord) -> None:
        self._add(record, None)

    def _add(self, record: RawMessageRecord, packed: bytes | None) -> None:
        if isinstance(record.message, SystemMessage) and not record.message.include_in_messages:
            self._last_sequence = max(self._last_sequence, record.sequence)
            return
        self._keys.append(_key(record))
        if packed is None:
            packed = zlib.compress(pickle.dumps(record, pickle.HIGHEST_PROTOCOL), 1)
        self._packed.append(packed)
        self._last_sequence = record.sequence

    def put_stored(self, after: int, stored: Iterable[RawMessageRecord]) -> None:
        """``stored`` (every stored record after sequence ``after``, in order, as the database gives
        them) in place of the records kept for that range: the ones this process made when it
        appended them (its own ids and times). Records kept past the last of ``stored`` (appended
        while it was read) stay after it."""
        pairs = list(zip(self._keys, self._packed, strict=True))
        self._keys = [key for key, _ in pairs if key[1] <= after]
        self._packed = [packed for key, packed in pairs if key[1] <= after]
        self._last_sequence = self._keys[-1][1] if self._keys else 0
        self._last_sequence = max(self._last_sequence, after)
        for record in stored:
            self._add(record, None)
        through = self._last_sequence
        for key, packed in pairs:
            if key[1] > through:
                self._keys.append(key)
                self._packed.append(packed)
                self._last_sequence = key[1]

    def keep_after(self, sequence: int) -> None:
        """Forget the records up to ``sequence`` (a compaction summarised them)."""
        kept = [
            (key, packed) for key, packed in zip(self._keys, self._packed, strict=True) if key[1] > sequence
        ]
        self._keys = [key for key, _ in kept]
        self._packed = [packed for _, packed in kept]
        if not self._keys and self._last_sequence <= sequence:
            self._last_sequence = 0

    def unpack(self) -> list[RawMessageRecord]:
        """New record objects equal to those packed, in order."""
        return [pickle.loads(zlib.decompress(packed)) for packed in self._packed]
