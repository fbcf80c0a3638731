"""Recording many new files at once (a project's first checkpoint) as packs, not loose objects.

``git add`` writes each new blob as a loose object: a file of its own, created, written, linked
and renamed. For the first checkpoint of a 20,000-file project that is 20,000 files created in
the store (plus one per folder from ``write-tree``), and the file system's inode work, not the
hashing, was most of its time. Two switches avoid it when a checkpoint has many new files:

- ``git add`` with ``core.bigFileThreshold=1`` streams every blob into one pack (git's "bulk
  checkin", made for big files; it also skips an object the store already has);
- the trees are written first by ``git fast-import`` into one pack, from the index's listing, so
  ``write-tree`` finds every tree there and writes none. ``write-tree`` stays the authority:
  should ``fast-import`` fail or build a different tree, ``write-tree`` writes the right one
  itself, and nothing else is taken from ``fast-import``.

A checkpoint of few changed files keeps loose objects: a pack per checkpoint would pile up packs
that every later lookup walks.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from zett_tui.checkpoints.git_env import GitFailed, run_git

#: From this many new or changed files on, a checkpoint writes packs (about the point where the
#: two ways take as long on a 2-core machine; below it a pack per checkpoint is not worth it).
BULK_FILES = 1000
#: Settings of ``git add`` for many files: every non-empty blob into one pack, fast compression.
BULK_STAGE_CONFIG = ("-c", "core.bigFileThreshold=1", "-c", "pack.compression=1")
#: zlib's state for each blob (about 270 KB) is over glibc's mmap threshold: every file mapped
#: fresh pages, faulted them in zeroed and unmapped them (a quarter of ``add``'s system time).
#: Kept in the heap, the same memory serves the next file. Other C libraries ignore it.
BULK_STAGE_ENV = {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=4194304"}
#: The ref the trees' throwaway commit is kept under until the checkpoint's own commit holds them.
SCRATCH_REF_PREFIX = "refs/zett-scratch"
#: Kept a pack however few its trees (by default ``fast-import`` unpacks under 100 objects).
_IMPORT_CONFIG = ["-c", "pack.compression=1", "-c", "fastimport.unpackLimit=0"]

log = logging.getLogger(__name__)


def scratch_ref(pid: int) -> str:
    """This process's scratch ref (two zett processes on one store never share one)."""
    return f"{SCRATCH_REF_PREFIX}/trees-{pid}"


def prewrite_trees(git_dir: Path, project: Path, index: Path, ref: str) -> bool:
    """Write the trees of ``index`` into one pack under ``ref``; False when it could not."""
    listing = run_git(git_dir, project, ["ls-files", "-s", "-z"], index_file=index)
    stream = fast_import_stream(listing, ref)
    try:
        run_git(
            git_dir,
            project,
            [*_IMPORT_CONFIG, "fast-import", "--quiet", "--force", "--done"],
            stdin=stream,
            bare=True,
        )
    except GitFailed as error:
        log.debug("trees not written ahead (write-tree writes them): %s", error)
        for report in git_dir.glob("fast_import_crash_*"):
            with contextlib.suppress(OSError):
                report.unlink()
        return False
    return True


def fast_import_stream(listing: bytes, ref: str) -> bytes:
    """A ``fast-import`` stream of one commit holding the entries of ``ls-files -s -z``."""
    lines = [
        f"commit {ref}\n".encode(),
        b"committer zett <zett@localhost> 0 +0000\n",
        b"data 0\n",
    ]
    for record in listing.split(b"\0"):
        head, _, path = record.partition(b"\t")
        if not path:
            continue
        mode, blob, _stage = head.split(b" ")
        lines.append(b"M " + mode + b" " + blob + b" " + quote_path(path) + b"\n")
    lines.append(b"\ndone\n")
    return b"".join(lines)


def quote_path(path: bytes) -> bytes:
    """``path`` C-quoted as ``fast-import`` reads it: any byte, a newline or a quote included."""
    out = bytearray(b'"')
    for byte in path:
        if byte in (0x22, 0x5C):
            out += b"\\" + bytes((byte,))
        elif byte < 0x20 or byte >= 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    out += b'"'
    return bytes(out)
