"""Joining git index files that hold different paths into one (the halves of a split ``add``).

Only what ``git add`` writes into a new index is taken: version 2, entries at stage 0 without
extended flags, and optional extensions (dropped: the tree cache is rebuilt by ``write-tree``).
Anything else (another version, a required extension, a bad checksum, a path in two files) is
``IndexMergeRefused`` and the caller records the project the ordinary way. Entries are copied
byte for byte: their stat data is git's own, so the next checkpoint reads no unchanged file.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import os
import struct
from pathlib import Path

from zett_tui.core.paths import PRIVATE_FILE_MODE

_HEADER = struct.Struct(">4sII")
#: ctime, mtime (seconds and nanoseconds), dev, ino, mode, uid, gid, size, the object id, flags.
_FIXED = 62
_FLAGS = 60
_EXTENDED = 0x4000
_STAGE = 0x3000
_CHECKSUM = 20


class IndexMergeRefused(ValueError):
    """An index this module does not join (its caller falls back to one ``git add``)."""


def merge_indexes(sources: list[Path], target: Path) -> int:
    """Write ``target`` holding every entry of ``sources`` (disjoint paths); how many entries."""
    lists = [_entries(path.read_bytes(), path.name) for path in sources]
    merged = list(heapq.merge(*lists, key=lambda entry: entry[0]))
    for (before, _), (after, _) in itertools.pairwise(merged):
        if before == after:
            raise IndexMergeRefused(f"{os.fsdecode(before)} is in two indexes")
    body = _HEADER.pack(b"DIRC", 2, len(merged)) + b"".join(raw for _, raw in merged)
    data = body + hashlib.sha1(body).digest()
    temporary = target.with_name(f"{target.name}.merge-{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, PRIVATE_FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return len(merged)


def _entries(data: bytes, name: str) -> list[tuple[bytes, bytes]]:
    """The (path, raw entry) pairs of one index file, in its (sorted) order."""
    if len(data) < _HEADER.size + _CHECKSUM or hashlib.sha1(data[:-_CHECKSUM]).digest() != data[-_CHECKSUM:]:
        raise IndexMergeRefused(f"{name}: not a whole index file")
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version != 2:
        raise IndexMergeRefused(f"{name}: index version {version}")
    entries: list[tuple[bytes, bytes]] = []
    offset = _HEADER.size
    end = len(data) - _CHECKSUM
    for _ in range(count):
        if offset + _FIXED > end:
            raise IndexMergeRefused(f"{name}: cut short")
        (flags,) = struct.unpack_from(">H", data, offset + _FLAGS)
        if flags & (_EXTENDED | _STAGE):
            raise IndexMergeRefused(f"{name}: an entry with extended flags or a merge stage")
        nul = data.find(b"\0", offset + _FIXED, end)
        if nul < 0:
            raise IndexMergeRefused(f"{name}: a path without its end")
        path = data[offset + _FIXED : nul]
        if entries and path <= entries[-1][0]:
            raise IndexMergeRefused(f"{name}: entries out of order")
        size = (_FIXED + len(path) + 8) & ~7  # the path, then 1 to 8 NULs
        entries.append((path, data[offset : offset + size]))
        offset += size
    while offset < end:  # extensions: an upper-case first letter says a reader may skip it
        if offset + 8 > end or not data[offset : offset + 1].isupper():
            raise IndexMergeRefused(f"{name}: an extension git requires")
        (length,) = struct.unpack_from(">I", data, offset + 4)
        offset += 8 + length
    if offset != end:
        raise IndexMergeRefused(f"{name}: cut short")
    return entries
