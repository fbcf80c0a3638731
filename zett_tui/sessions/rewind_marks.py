"""Conversation rewinds, as the session file records them: which turns are out of the model's context.

A conversation rewind deletes nothing. It appends one line to the session file, shaped as a turn
record with no messages (so every reader, and an older zett, reads it as a line it knows) and one
more top-level key, ``"rewind"``::

    {"version": 1, "session_id": ..., "request_id": "rewind-...", "started_at": ..., "completed_at": ...,
     "status": "completed", "metadata": {}, "tags": {},
     "rewind": {"target": TURN, "rewound": [REQUEST, ...], "restored": [REQUEST, ...]},
     "messages": []}

``rewound`` are the requests (turns) the rewind took out of the model's context, ``restored`` the
ones it put back (undoing an earlier rewind). Read in file order, the marks say which turns are
rewound now (:class:`RewoundTurns`): resume leaves them out of the model's context, and
``zett sessions show``, the transcript and the export mark them. The marks are found without
parsing the turns: only lines holding ``"rewind":{`` outside a string (a JSON string escapes its
quotes, so the raw bytes cannot occur inside one) are parsed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from zett_tui.sessions.line_blocks import BLOCK_BYTES, MAX_LINE_BYTES

log = logging.getLogger(__name__)

MARK_KEY = "rewind"
_NEEDLE = b'"rewind":{'


def mark_record(
    session_id: str,
    *,
    target: str,
    rewound: Iterable[str],
    restored: Iterable[str],
    at: datetime | None = None,
) -> dict[str, Any]:
    """The session-file line of one conversation rewind."""
    moment = at or datetime.now(UTC)
    when = moment.isoformat()
    return {
        "version": 1,
        "session_id": session_id,
        "request_id": f"rewind-{moment.strftime('%Y%m%dT%H%M%S%f')}",
        "parent_session_id": None,
        "started_at": when,
        "completed_at": when,
        "status": "completed",
        "metadata": {},
        "tags": {},
        MARK_KEY: {"target": target, "rewound": sorted(set(rewound)), "restored": sorted(set(restored))},
        "messages": [],
    }


def mark_of(data: dict[str, Any]) -> dict[str, list[str]] | None:
    """The rewind a record is (``{"rewound": [...], "restored": [...]}``), or None for a turn."""
    mark = data.get(MARK_KEY)
    if not isinstance(mark, dict) or data.get("messages") != []:
        return None
    return {key: _texts(mark.get(key)) for key in ("rewound", "restored")}


def _texts(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str) and item] if isinstance(value, list) else []


@dataclass
class RewoundTurns:
    """The requests out of the model's context now, from the marks read in order."""

    rewound: set[str] = field(default_factory=set)
    #: Whether any mark was read (a session rewound before marks were written has none).
    marked: bool = False

    def apply(self, mark: dict[str, list[str]]) -> None:
        if not (mark["rewound"] or mark["restored"]):
            return  # a mark that moves no turn (``/todo clear``'s): says nothing of rewinds
        self.marked = True
        self.rewound -= set(mark["restored"])
        self.rewound |= set(mark["rewound"])

    def __contains__(self, request_id: object) -> bool:
        return request_id in self.rewound

    def hidden(self, recorded: Callable[[], Collection[str]] | None) -> Collection[str]:
        """The requests out of the model's context: the marks' answer, or for a session rewound
        before marks were written (none read), the checkpoint record's (``recorded``)."""
        if self.marked or recorded is None:
            return self.rewound
        return recorded()

    def rewind(
        self,
        session_id: str,
        *,
        target: str,
        rewound: list[str],
        restored: list[str],
        recorded: Callable[[], Collection[str]] | None,
    ) -> dict[str, Any]:
        """Apply one conversation rewind and return the session-file line that marks it. The first
        mark of a session rewound before marks existed starts from the checkpoint record's answer."""
        if not self.marked and recorded is not None:
            self.rewound = set(recorded())
        self.apply({"rewound": rewound, "restored": restored})
        return mark_record(session_id, target=target, rewound=rewound, restored=restored)


def read_rewound(path: Path) -> RewoundTurns:
    """Which turns of the session file ``path`` are rewound now (a missing file: none).

    Reads the file a block at a time and parses only the lines that may be marks; a damaged mark
    is skipped (and logged), as a damaged turn is.
    """
    found = RewoundTurns()
    try:
        for line in _candidate_lines(path):
            try:
                data = json.loads(line)
            except (ValueError, RecursionError):
                log.warning("a damaged rewind line of %s was skipped", path)
                continue
            mark = mark_of(data) if isinstance(data, dict) else None
            if mark is not None:
                found.apply(mark)
    except FileNotFoundError:
        pass
    except OSError:
        log.warning("the rewinds of %s could not be read", path, exc_info=True)
    return found


def marks_in(stream: IO[bytes], start: int = 0) -> list[dict[str, list[str]]]:
    """The rewind marks of the lines from ``start`` (a line start) to the end of ``stream``, in
    order; a damaged mark is skipped (the session index counts a file's marks with this)."""
    return [mark for _, mark in _marks_of(stream, start)]


def marks_with_offsets(path: Path) -> list[tuple[int, dict[str, list[str]]]]:
    """Every rewind mark of the session file ``path`` with the offset of its line, in order."""
    with open(path, "rb") as stream:
        return list(_marks_of(stream, 0))


def _marks_of(stream: IO[bytes], start: int) -> Iterator[tuple[int, dict[str, list[str]]]]:
    for offset, line in _candidate_lines_of(stream, start):
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            continue
        mark = mark_of(data) if isinstance(data, dict) else None
        if mark is not None:
            yield offset, mark


def is_mark_line(content: bytes) -> bool:
    """Whether one line of a session file (without its newline) is a rewind's."""
    if _NEEDLE not in content:
        return False
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and mark_of(data) is not None


def _candidate_lines(path: Path) -> Iterator[bytes]:
    """The whole lines of ``path`` that hold ``"rewind":{`` (each at most MAX_LINE_BYTES)."""
    with open(path, "rb") as stream:
        for _, line in _candidate_lines_of(stream, 0):
            yield line


def _candidate_lines_of(stream: IO[bytes], start: int) -> Iterator[tuple[int, bytes]]:
    """The whole lines of ``stream`` from ``start`` that hold ``"rewind":{``, with their offsets."""
    stream.seek(start)
    carry = b""
    base = start  # the offset of ``carry``'s first byte
    while True:
        block = stream.read(BLOCK_BYTES)
        data = carry + block
        end = data.rfind(b"\n") + 1 if block else len(data)
        position = 0
        while True:
            hit = data.find(_NEEDLE, position, end)
            if hit < 0:
                break
            line_start = data.rfind(b"\n", 0, hit) + 1
            line_end = data.find(b"\n", hit, end)
            line_end = end if line_end < 0 else line_end
            if line_end - line_start <= MAX_LINE_BYTES:
                yield base + line_start, data[line_start:line_end]
            position = line_end + 1
        carry = data[end:]
        base += end
        if len(carry) > MAX_LINE_BYTES:
            base += len(carry) - MAX_LINE_BYTES
            carry = carry[-MAX_LINE_BYTES:]  # a line longer than any record: only its end may matter
        if not block:
            return
