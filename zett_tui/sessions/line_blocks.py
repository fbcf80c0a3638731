"""A session file's lines read in blocks: backwards from an offset, and newlines counted.

Session files can be hundreds of megabytes, with damaged lines of any length: nothing here holds
the file, or a line longer than :data:`MAX_LINE_BYTES`, in memory. ``sessions.reader`` turns the
lines into records; ``sessions.line_sieve`` skips, a block at a time, lines that cannot be records.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import IO, NamedTuple

from zett_tui.sessions.line_sieve import Run, sieve

SUPPORTED_VERSION = 1
"""The record format version the sieve keeps (``sessions.reader`` reads the same)."""

#: A line longer than this is reported and skipped rather than loaded (real turns are far
#: smaller: zett-agent caps one tool output at 50 KB).
MAX_LINE_BYTES = 64 * 1024 * 1024

BLOCK_BYTES = 1 << 20
#: Reading backwards, most lines fit in one such block.
BACK_BLOCK_BYTES = 1 << 16


class RawLine(NamedTuple):
    offset: int
    #: The line without its newline; None when it was longer than MAX_LINE_BYTES.
    content: bytes | None
    terminated: bool


def iter_lines_backward(stream: IO[bytes], end: int, *, terminated: bool) -> Iterator[RawLine]:
    """Lines that end at or before ``end`` (exclusive of the newline at ``end``), last first."""
    for line in lines_backward(stream, end, terminated=terminated):
        assert isinstance(line, RawLine)  # nothing is sieved
        yield line


def lines_backward(
    stream: IO[bytes], end: int, *, terminated: bool, sieve_when: Callable[[], bool] | None = None
) -> Iterator[RawLine | Run]:
    """Lines that end at or before ``end`` (exclusive of the newline at ``end``), last first.

    Reads fixed-size blocks from the end; a long line is collected as a list of blocks and
    joined once, so the cost stays linear in the bytes read. A line longer than MAX_LINE_BYTES is
    not kept: its blocks are dropped as soon as it is known to be that long.

    While ``sieve_when()`` is true (asked once a block), the whole lines inside a block that
    cannot be records come as :class:`Run` s instead of one by one (``line_sieve``).
    """
    pending: list[bytes] = []
    pending_size = 0
    oversized = False
    position = end
    line_terminated = terminated
    while position > 0:
        sieving = sieve_when is not None and sieve_when()
        size = min(BLOCK_BYTES if sieving else BACK_BLOCK_BYTES, position)
        position -= size
        stream.seek(position)
        block = stream.read(size)
        cut = len(block)
        newline = block.rfind(b"\n", 0, cut)
        if newline != -1:
            # the line at the end of the block, continued by what was collected after it
            content: bytes | None
            if oversized or pending_size + cut - newline - 1 > MAX_LINE_BYTES:
                content = None
            else:
                content = block[newline + 1 : cut]
                if pending:
                    content += b"".join(reversed(pending))
            yield RawLine(position + newline + 1, content, line_terminated)
            pending, pending_size, oversized, line_terminated = [], 0, False, True
            cut = newline
            first = block.find(b"\n")
            if first < cut and sieving:
                for item in reversed(
                    sieve(block[first + 1 : cut + 1], position + first + 1, SUPPORTED_VERSION)
                ):
                    yield item if isinstance(item, Run) else RawLine(item.offset, item.content, True)
                cut = first
            newline = block.rfind(b"\n", 0, cut)
            while newline != -1:
                yield RawLine(position + newline + 1, block[newline + 1 : cut], True)
                cut = newline
                newline = block.rfind(b"\n", 0, cut)
        if not oversized:
            pending.append(block[:cut])
            pending_size += cut
            if pending_size > MAX_LINE_BYTES:
                pending, oversized = [], True
    if pending or oversized:
        yield RawLine(0, None if oversized else b"".join(reversed(pending)), line_terminated)


def count_newlines(stream: IO[bytes], start: int, end: int | None = None) -> int:
    """Newlines in ``[start, end)`` counted block by block (no whole-file string)."""
    stream.seek(start)
    remaining = None if end is None else max(0, end - start)
    total = 0
    while remaining is None or remaining > 0:
        block = stream.read(BLOCK_BYTES if remaining is None else min(BLOCK_BYTES, remaining))
        if not block:
            break
        total += block.count(b"\n")
        if remaining is not None:
            remaining -= len(block)
    return total


def file_end(stream: IO[bytes]) -> tuple[int, bool]:
    """The file size and whether the file ends with a newline (an empty file does)."""
    size = stream.seek(0, os.SEEK_END)
    if size == 0:
        return 0, True
    stream.seek(size - 1)
    return size, stream.read(1) == b"\n"
