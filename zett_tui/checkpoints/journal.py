"""The record of a session's checkpoints: which checkpoint came before and after each turn.

One JSON line per turn (and per rewind) in ``<store>/sessions/<session key>.jsonl``, 0600.
It outlives the process, so a resumed session (or one run with ``zett -p``) can be rewound. A
checkpoint that could not be taken is recorded as missing, with the reason, never pretended.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from zett_tui.core.paths import ensure_private_dir, open_private_append

log = logging.getLogger(__name__)


def session_key(session_id: str) -> str:
    """A ref- and file-safe name for a session id."""
    return hashlib.sha256(session_id.encode("utf-8", "surrogateescape")).hexdigest()[:20]


@dataclass
class TurnRecord:
    """One turn (``kind="turn"``) or one rewind (``kind="rewind"``) of a session."""

    kind: str
    turn: str
    at: str
    prompt: str = ""
    before: str | None = None
    after: str | None = None
    #: Why a checkpoint is missing, when one is.
    missing: str | None = None
    #: ``[path, added, removed, status]`` per file the turn changed.
    changes: list[list[Any]] = field(default_factory=list)
    #: Files too large to record (named in the rewind dialog).
    too_large: list[str] = field(default_factory=list)
    #: Files a checkpoint of the turn could not read (another process's, a permission): they are
    #: recorded as they were last read, so a rewind leaves them as they are (and names them).
    unreadable: list[str] = field(default_factory=list)
    #: For a rewind: the turn it went back to.
    target: str | None = None
    #: The turn's request id (its messages in the stored history).
    request: str | None = None
    #: For a rewind of the conversation: the requests it took out of the model's context.
    hidden_requests: list[str] = field(default_factory=list)
    #: For a rewind that undid another: the requests it put back into the model's context.
    restored_requests: list[str] = field(default_factory=list)
    #: When the turn (or rewind) ended and was recorded (ISO time; None in older records).
    ended: str | None = None

    @property
    def added(self) -> int:
        return sum(max(change[1], 0) for change in self.changes)

    @property
    def removed(self) -> int:
        return sum(max(change[2], 0) for change in self.changes)

    @property
    def paths(self) -> list[str]:
        return [str(change[0]) for change in self.changes]


def hidden_after(records: Iterable[TurnRecord]) -> frozenset[str]:
    """The requests out of the model's context after ``records`` (read in order)."""
    hidden: set[str] = set()
    for record in records:
        hidden -= set(record.restored_requests)
        hidden |= set(record.hidden_requests)
    return frozenset(hidden)


class CheckpointJournal:
    """Appends and reads one session's ``TurnRecord`` lines."""

    def __init__(self, folder: Path, session_id: str) -> None:
        self.path = folder / "sessions" / f"{session_key(session_id)}.jsonl"

    def append(self, record: TurnRecord) -> None:
        """Add one line; on a failure (a full disk) no part of it stays, nor an empty file."""
        line = (json.dumps(asdict(record), ensure_ascii=False) + "\n").encode()
        ensure_private_dir(self.path.parent)
        fd = open_private_append(self.path)
        try:
            start = os.fstat(fd).st_size
            try:
                written = os.write(fd, line)
                if written != len(line):
                    raise OSError(28, "No space left on device")
            except OSError:
                os.ftruncate(fd, start)
                if start == 0:
                    self.path.unlink(missing_ok=True)
                raise
        finally:
            os.close(fd)

    def records(self) -> list[TurnRecord]:
        """Every record, oldest first; a damaged line is skipped (and logged)."""
        return _read_records(self.path)

    def other_sessions_records(self) -> list[TurnRecord]:
        """The records of every other session in the same store (another zett on the project)."""
        found: list[TurnRecord] = []
        try:
            paths = sorted(self.path.parent.glob("*.jsonl"))
        except OSError:
            return found
        for path in paths:
            if path.name != self.path.name and not path.is_symlink():
                found.extend(_read_records(path))
        return found

    def hidden_requests(self) -> frozenset[str]:
        """The requests out of the model's context now: taken out by a rewind, not put back since."""
        return hidden_after(self.records())

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def _read_records(path: Path) -> list[TurnRecord]:
    """Every record of one journal file, oldest first; a damaged line is skipped (and logged)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    records: list[TurnRecord] = []
    known = set(TurnRecord.__dataclass_fields__)
    for line in text.splitlines():
        try:
            data = json.loads(line)
            records.append(TurnRecord(**{k: v for k, v in data.items() if k in known}))
        except (ValueError, TypeError, AttributeError):
            log.warning("a damaged checkpoint record was skipped")
    return records
