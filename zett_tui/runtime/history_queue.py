"""The history's writes that wait while the disk fails: kept in memory, in order, written later.

A message (or a compaction's snapshot) that cannot be written (disk full, read-only, permission
denied, database locked or damaged: ``history_faults.storage_fault``) is queued here, and the
queue is written, oldest first, before the next write once the retry delay has passed. One
warning is given when a fault starts, one note when saving works again. :class:`KnownDialogue` is
a session's dialogue as last read plus everything appended since, so ``HistoryStore.load`` can
hand the model its context while the database cannot be read. No Textual here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zett_agent.extensions.compaction import CompactedMessage
from zett_agent.extensions.events import MessageTiming
from zett_agent.extensions.persistence import ContextSnapshot, RawMessageRecord, SessionView
from zett_agent.messages import AnyMessage

from zett_tui.runtime.history_faults import storage_fault
from zett_tui.runtime.packed_records import PackedRecords

log = logging.getLogger(__name__)

Notify = Callable[[str, str], None]
"""``notify(text, level)``: a line for the user (level ``warning`` or ``info``)."""

RECOVERED = "History is being saved again."


def fault_message(kind: str, path: Path | None, error: BaseException) -> str:
    """The warning for a history that stopped being saved."""
    where = str(path) if path is not None else "the history database"
    kept = "This session goes on: its history is kept in memory"
    detail = _detail(error)
    match kind:
        case "full":
            return f"The disk is full, so the history cannot be saved. {kept} and saved once there is space."
        case "read-only":
            return f"zett cannot write {where} ({detail}). {kept} and saved when writing works again."
        case "locked":
            return f"{where} is locked by another program. {kept} and saved as soon as it is free."
        case "damaged":
            return (
                f"{where} is damaged ({detail}). {kept}. Start zett again to set the damaged file "
                "aside and begin a fresh history; the session transcripts stay readable."
            )
        case _:
            return f"The history could not be saved ({detail}). {kept} and saved when writing works again."


def _detail(error: BaseException) -> str:
    orig = getattr(error, "orig", None)
    shown = orig if isinstance(orig, BaseException) else error
    if isinstance(shown, OSError) and shown.strerror:
        return shown.strerror
    text = " ".join(str(shown).split())
    return text[:120] or type(shown).__name__


# -- the records kept in memory -----------------------------------------------------------------


@dataclass
class WaitingAppend:
    """A message waiting to be written, with the record ``load`` shows for it meanwhile."""

    session_id: str
    request_id: str
    message: AnyMessage
    timing: MessageTiming
    options: dict[str, Any]
    record: RawMessageRecord


@dataclass
class WaitingSnapshot:
    """A compaction's snapshot waiting to be written, with the one ``load`` shows meanwhile."""

    session_id: str
    compacted_message: CompactedMessage
    through: int
    expected_version: int
    result: ContextSnapshot


Waiting = WaitingAppend | WaitingSnapshot


def empty_view() -> SessionView:
    """The dialogue of a session nothing was read of."""
    return SessionView.model_construct(
        parent_session_id=None, session_type=0, title=None, agent_name=None, snapshot=None, raw_tail=[]
    )


@dataclass
class KnownDialogue:
    """A session's dialogue as last read, plus everything appended since (written or waiting).

    The records are kept packed (``runtime.packed_records``): this copy is read back only when the
    database cannot be, and a decoded one was a second whole history in memory.
    """

    view: SessionView
    records: PackedRecords = field(default_factory=PackedRecords)
    snapshot: ContextSnapshot | None = None
    #: The records up to this sequence, and the snapshot, are the database's as it last gave them
    #: (later ones are this process's own, made as it appended them); None: not known to be, and
    #: the next load reads the whole dialogue (``runtime.history_since``).
    read_through: int | None = None

    @classmethod
    def from_view(cls, view: SessionView, previous: KnownDialogue | None = None) -> KnownDialogue:
        """``view`` kept (without its records, which are packed), reusing what ``previous`` packed."""
        reuse = previous.records if previous is not None else None
        return cls(
            view.model_copy(update={"raw_tail": []}), PackedRecords(view.raw_tail, reuse), view.snapshot
        )

    @property
    def last_sequence(self) -> int:
        last = self.records.last_sequence
        return max(last, self.snapshot.compacted_through_sequence if self.snapshot else 0)

    def add(self, record: RawMessageRecord) -> None:
        self.records.append(record)

    def compact(self, snapshot: ContextSnapshot) -> None:
        self.snapshot = snapshot
        self.records.keep_after(snapshot.compacted_through_sequence)
        if self.read_through is not None:
            self.read_through = max(self.read_through, snapshot.compacted_through_sequence)

    def take_stored(self, view: SessionView, after: int, stored: list[RawMessageRecord]) -> None:
        """The database's records after ``after`` (all of them, in order) and its session fields
        (``view``: what it says of the session, no records) in place of what was kept for them."""
        self.view = view
        self.records.put_stored(after, stored)
        self.read_through = stored[-1].sequence if stored else after

    def apply(self, operation: Waiting) -> None:
        if isinstance(operation, WaitingAppend):
            self.add(operation.record)
        else:
            self.compact(operation.result)

    def as_view(self) -> SessionView:
        return SessionView.model_construct(
            parent_session_id=self.view.parent_session_id,
            session_type=self.view.session_type,
            title=self.view.title,
            agent_name=self.view.agent_name,
            snapshot=self.snapshot,
            raw_tail=self.records.unpack(),
        )


def with_waiting(view: SessionView, waiting: list[Waiting]) -> SessionView:
    """``view`` plus ``waiting`` (one session's), as ``KnownDialogue.apply`` does, on the records
    already decoded."""
    if not waiting:
        return view
    records, snapshot = list(view.raw_tail), view.snapshot
    for operation in waiting:
        if isinstance(operation, WaitingAppend):
            records.append(operation.record)
        else:
            snapshot = operation.result
            records = [r for r in records if r.sequence > snapshot.compacted_through_sequence]
    return view.model_copy(update={"raw_tail": records, "snapshot": snapshot})


# -- the writer ---------------------------------------------------------------------------------


class WriteQueue:
    """The writes waiting for ``storage`` (the history database, ``history_sqlite``), and whether
    saving works.

    Args:
        storage: Written to with its ``append`` and ``snapshot``.
        notify: Called with ``(text, level)`` when saving stops and when it works again.
        retry_seconds: How long after a failure writing is tried again.
        clock: A monotonic clock.
        path: The database's file, for the warning (None: not named).
    """

    def __init__(
        self,
        storage: Any,
        *,
        notify: Notify,
        retry_seconds: float,
        clock: Callable[[], float],
        path: Callable[[], Path | None],
    ) -> None:
        self.storage = storage
        self.retry_seconds = retry_seconds
        self._notify = notify
        self._clock = clock
        self._path = path
        #: Oldest first.
        self.waiting: list[Waiting] = []
        #: What stopped the last write (see ``storage_fault``); None while saving works.
        self.fault: str | None = None
        self._retry_at = 0.0

    def add(self, operation: Waiting) -> None:
        """Keep ``operation`` to be written after those already waiting."""
        self.waiting.append(operation)

    async def write_if_due(self) -> bool:
        """Write what waits, in order. False when there is still something waiting."""
        if not self.waiting:
            return True
        if self._clock() < self._retry_at:
            return False
        while self.waiting:
            operation = self.waiting[0]
            try:
                await self._write(operation)
            except Exception as error:
                if storage_fault(error) is None:
                    raise
                self.failed(error)
                return False
            self.waiting.pop(0)
        return True

    async def flush(self) -> bool:
        """Try to write what waits now, whatever the retry delay; True when nothing is left."""
        self._retry_at = 0.0
        done = await self.write_if_due()
        if done:
            self.recovered()
        return done

    async def _write(self, operation: Waiting) -> None:
        if isinstance(operation, WaitingSnapshot):
            await self.storage.snapshot(
                operation.session_id,
                operation.compacted_message,
                operation.through,
                operation.expected_version,
            )
            return
        sequence = await self.storage.append(
            operation.session_id,
            operation.request_id,
            operation.message,
            operation.timing,
            **operation.options,
        )
        if sequence != operation.record.sequence:
            log.warning("history record stored as %s, expected %s", sequence, operation.record.sequence)

    def failed(self, error: BaseException) -> None:
        """A write failed with a storage fault: try again after the delay; warn once."""
        kind = storage_fault(error) or "io"
        self._retry_at = self._clock() + self.retry_seconds
        log.warning("history write failed (%s): %s", kind, _detail(error))
        if self.fault is None:
            self._notify(fault_message(kind, self._path(), error), "warning")
        self.fault = kind

    def recovered(self) -> None:
        """A write went through: once nothing waits, say saving works again."""
        if self.fault is not None and not self.waiting:
            self.fault = None
            log.info("history saved again")
            self._notify(RECOVERED, "info")
