"""Appending whole lines to a private file: a write that fails leaves the file as it was.

The session transcript and the prompt history both append JSON lines. A full disk can fail a
write halfway; the half line would be glued to the next one and both lost. So the file is cut
back to its old size when a write fails, and a line left torn by a killed process is ended first.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from zett_tui.core import paths


def append_whole(path: Path, data: bytes, *, end_torn_line: bool = True) -> None:
    """Append ``data`` to ``path`` (created 0600); on failure the file is cut back to where it was
    (an empty file is removed: a session that could not write its first turn leaves no file).

    With ``end_torn_line`` a last line without its newline (a process killed mid-write) is ended
    before ``data``, so the new line is not glued onto it.

    Raises:
        OSError: the file could not be opened or written (it is then unchanged).
    """
    fd = paths.open_private_append(path)
    try:
        size = os.fstat(fd).st_size
        if end_torn_line and size > 0 and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        try:
            write_all(fd, data)
        except OSError:
            with contextlib.suppress(OSError):
                if size == 0:  # made (or found empty) by this call: leave no empty file behind
                    os.unlink(path)
                else:
                    os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until all of ``data`` is written (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
