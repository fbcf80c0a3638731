"""Appending whole lines to a private file: a write that fails leaves the file as it was.

The session transcript and the prompt history both append JSON lines. A full disk can fail a
write halfway; the half line would be glued to the next one and both lost. So the file is cut
back to its old size when a write fails, and a line left torn by a killed process is ended first.

:func:`append_whole` blocks (for threads, and for code that runs when the event loop is gone);
:func:`append_whole_async` does the same from the event loop, its file I/O awaited through
``aiofiles`` (the file opened and closed by it, each step run in its executor). Both open the file
the same way (:func:`open_for_append`), look at its tail, write and cut back with the same
functions (:func:`tail_of`, :func:`write_all`, :func:`cut_back`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import aiofiles
import aiofiles.os

from zett_tui.core import paths


def append_whole(path: Path, data: bytes, *, end_torn_line: bool = True) -> None:
    """Append ``data`` to ``path`` (created 0600); on failure the file is cut back to where it was
    (an empty file is removed: a session that could not write its first turn leaves no file).

    With ``end_torn_line`` a last line without its newline (a process killed mid-write) is ended
    before ``data``, so the new line is not glued onto it.

    Raises:
        OSError: the file could not be opened or written (it is then unchanged).
    """
    fd = open_for_append(path)
    try:
        size, torn = tail_of(fd)
        data = b"\n" + data if end_torn_line and torn else data
        try:
            write_all(fd, data)
        except OSError:
            cut_back(fd, path, size)
            raise
    finally:
        os.close(fd)


async def append_whole_async(path: Path, data: bytes, *, end_torn_line: bool = True) -> None:
    """:func:`append_whole` from the event loop: each file operation is awaited (``aiofiles``
    runs it in the loop's executor), so a slow disk does not stop the loop.

    Cancelling the caller does not cut the append short: it runs on, shielded, until the line is
    whole on disk or cut back (a cancelled caller does not learn which).

    Raises:
        OSError: the file could not be opened or written (it is then unchanged).
    """
    await asyncio.shield(asyncio.ensure_future(_append_whole_async(path, data, end_torn_line)))


async def _append_whole_async(path: Path, data: bytes, end_torn_line: bool) -> None:
    in_executor = aiofiles.os.wrap
    async with aiofiles.open(path, "ab", buffering=0, opener=_private_opener) as stream:
        fd = stream.fileno()
        size, torn = await in_executor(tail_of)(fd)
        data = b"\n" + data if end_torn_line and torn else data
        try:
            await in_executor(write_all)(fd, data)  # the same write as append_whole's, off the loop
        except OSError:
            await in_executor(cut_back)(fd, path, size)
            raise


def _private_opener(path: str | bytes, _flags: int) -> int:
    """``aiofiles.open``'s opener: the file as :func:`open_for_append` opens it (flags, mode)."""
    return open_for_append(Path(os.fsdecode(path)))


def open_for_append(path: Path) -> int:
    """``path`` opened to append (and to read its tail): 0600, in a 0700 folder."""
    return paths.open_private_append(path)


def tail_of(fd: int) -> tuple[int, bool]:
    """The open file's size, and whether its last line lacks its newline (torn by a kill)."""
    size = os.fstat(fd).st_size
    return size, size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def cut_back(fd: int, path: Path, size: int) -> None:
    """A failed append undone: the file back to ``size`` bytes, or removed if it was empty (made,
    or found empty, by this append). Never raises: the write's own error is the one to report."""
    with contextlib.suppress(OSError):
        if size == 0:
            os.unlink(path)
        else:
            os.ftruncate(fd, size)


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until all of ``data`` is written (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
