"""Recording many new files at once (a project's first checkpoint): packs, split over the cores.

``git add`` writes each new blob as a loose object: a file of its own, created, written, linked
and renamed. For the first checkpoint of a 20,000-file project that is 20,000 files created in
the store (plus one per folder from ``write-tree``), and the file system's inode work was most
of its time. When a checkpoint has many new or changed files:

- ``git add`` with ``core.bigFileThreshold=1`` streams every blob into one pack (git's "bulk
  checkin", made for big files; it also skips an object the store already has);
- into an empty index the project is cut into parts of about equal work, one ``git add`` per
  core runs on each part into an index of its own, and ``index_merge`` joins them;
- the trees are written first by ``git fast-import`` into one pack, from the index's listing, so
  ``write-tree`` finds every tree there and writes none. ``write-tree`` stays the authority:
  should ``fast-import`` fail or build a different tree, ``write-tree`` writes the right one
  itself, and nothing else is taken from ``fast-import``.

A checkpoint of few changed files keeps loose objects: a pack per checkpoint would pile up packs
that every later lookup walks. The user's own ``.git/objects`` is not borrowed (as an alternate)
even where it holds the same blobs: the user's ``git gc`` would delete objects the checkpoints
need, and a project's ``.git`` that came with it (an archive) could hold an object whose bytes
are not its name, which a restore would then write.
"""

from __future__ import annotations

import contextlib
import heapq
import logging
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from zett_tui.checkpoints.git_env import GitFailed, run_git
from zett_tui.checkpoints.index_merge import IndexMergeRefused, merge_indexes

#: From this many new or changed files on, a checkpoint writes packs. Packs are already faster
#: here (1,000 new files: 0.41 s against 0.74 s, loaded 2-core machine); a lower bound would give
#: ordinary checkpoints packs of their own, and every lookup searches each pack until a gc.
BULK_FILES = 1000
#: Settings of ``git add`` for many files: every non-empty blob into one pack, fast compression.
BULK_STAGE_CONFIG = ("-c", "core.bigFileThreshold=1", "-c", "pack.compression=1")
#: zlib's state for each blob (about 270 KB) is over glibc's mmap threshold, and freed it goes
#: back to the system: every file mapped or grew the heap, faulted fresh zeroed pages in and
#: gave them back (half of ``add``'s system time). Kept in the heap (neither mapped nor trimmed),
#: the same memory serves the next file. Other C libraries ignore the variable.
BULK_STAGE_ENV = {
    "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=4194304:glibc.malloc.trim_threshold=67108864"
}
#: The ref the trees' throwaway commit is kept under until the checkpoint's own commit holds them.
SCRATCH_REF_PREFIX = "refs/zett-scratch"
#: Kept a pack however few its trees (by default ``fast-import`` unpacks under 100 objects).
_IMPORT_CONFIG = ["-c", "pack.compression=1", "-c", "fastimport.unpackLimit=0"]

#: A path of printable ASCII other than the quote and the backslash: quoted as it is.
_PLAIN = re.compile(rb"[\x20\x21\x23-\x5b\x5d-\x7e]*")

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
    if _PLAIN.fullmatch(path):
        return b'"' + path + b'"'
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


def split_pathspecs(files: list[tuple[bytes, int]], parts: int) -> list[list[bytes]] | None:
    """Literal pathspecs for ``parts`` adds of about the same work, covering every file; or None.

    ``files`` are (path, size). The work of a file is its bytes plus a fixed cost (opening it,
    its entry). The project is cut at its top folders, a folder holding more than a part's share
    cut at its own entries in turn; a project that will not cut into ``parts`` non-empty parts
    of at most ``MAX_PATHSPECS`` pathspecs is None (one ``add`` then).
    """
    if parts < 2 or not files:
        return None
    units = _units(files, b"")
    total = sum(work for work, _ in units.values())
    for _ in range(_MAX_DEPTH):
        heaviest = max(units, key=lambda unit: units[unit][0])
        work, is_folder = units[heaviest]
        if work <= total / parts or not is_folder:
            break
        del units[heaviest]
        units.update(_units(files, heaviest + b"/"))
    if not parts <= len(units) <= MAX_PATHSPECS:
        return None
    bins: list[tuple[int, int, list[bytes]]] = [(0, n, []) for n in range(parts)]
    for unit in sorted(units, key=lambda unit: -units[unit][0]):
        work, n, specs = heapq.heappop(bins)
        specs.append(unit)
        heapq.heappush(bins, (work + units[unit][0], n, specs))
    return [specs for _, _, specs in sorted(bins, key=lambda item: item[1])]


#: More pathspecs and git's matching (each path against each pathspec) costs more than it saves.
MAX_PATHSPECS = 256
_MAX_DEPTH = 8
#: The work of a file besides its bytes, in bytes (about what opening one costs).
_FILE_COST = 16_384


def _units(files: list[tuple[bytes, int]], prefix: bytes) -> dict[bytes, tuple[int, bool]]:
    """The entries right under ``prefix`` that hold files: their work, and whether a folder."""
    units: dict[bytes, tuple[int, bool]] = {}
    for path, size in files:
        if not path.startswith(prefix):
            continue
        name, slash, _rest = path[len(prefix) :].partition(b"/")
        unit = prefix + name
        work, folder = units.get(unit, (0, False))
        units[unit] = (work + size + _FILE_COST, folder or bool(slash))
    return units


def add_in_parts(
    git_dir: Path,
    project: Path,
    add: list[str],
    env: dict[str, str],
    index: Path,
    parts: list[list[bytes]],
    complaints: list[str],
) -> bool:
    """Run ``add`` (``git add -A`` and its settings) over each part at once, each into its own
    index, and join those into ``index``; False (nothing left behind) when that could not be done.
    git's complaints (files it could not read) are added to ``complaints`` when it worked.

    Only for an index that does not exist yet: the parts start empty and hold different paths.
    """
    scratch = [index.with_name(f"{index.name}.part{n}") for n in range(len(parts))]
    said: list[list[str]] = [[] for _ in parts]

    def run(n: int) -> None:
        run_git(
            git_dir,
            project,
            [*add, "--", *(os.fsdecode(spec) for spec in parts[n])],
            index_file=scratch[n],
            extra_env=env,
            accept=(0, 1),
            complaints=said[n],
        )

    try:
        with ThreadPoolExecutor(max_workers=len(parts)) as pool:
            list(pool.map(run, range(len(parts))))
        merge_indexes(scratch, index)
        for lines in said:
            complaints.extend(lines)
    except (GitFailed, IndexMergeRefused, OSError) as error:
        log.debug("the parallel add did not work out (one add instead): %s", error)
        return False
    finally:
        for path in scratch:
            with contextlib.suppress(OSError):
                path.unlink()
    return True
