"""The turn recorder: zett-agent's ``JSONLExtension`` with private files and a redaction hook.

The upstream extension creates files with the process umask; transcripts hold code and secrets,
so every session file is created 0600 inside a 0700 folder, and an existing looser file is
tightened before it is appended to.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from zett_agent.extensions.jsonl import JSONLExtension

from zett_tui import paths

Redactor = Callable[[str], str]


def _unchanged(line: str) -> str:
    return line


class TurnRecorder(JSONLExtension):
    """Appends one JSON line per turn (completed, failed or cancelled) to the session's file."""

    def __init__(self, directory: Path, redact: Redactor | None = None) -> None:
        super().__init__(directory)
        self.name = "JSONLExtension"
        self._redact = redact or _unchanged

    def _append_line(self, path: Path, line: str) -> None:
        data = (self._redact(line) + "\n").encode("utf-8")
        with self._write_lock:
            fd = paths.open_private_append(path)
            try:
                if _ends_torn(fd):
                    data = b"\n" + data
                _write_all(fd, data)
            finally:
                os.close(fd)


def _ends_torn(fd: int) -> bool:
    """True when the file's last line was cut off (a process killed mid-write).

    Appending straight after a torn line would glue the new turn onto it and lose both.
    """
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
