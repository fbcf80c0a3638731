"""How much one checkpoint may record: past a bound, none is taken and checkpoints stop.

A checkpoint records every file of the folder zett was started in. Without bounds, zett started in
a home folder (or ``/tmp``, 873,000 files) recorded all of it before its first turn could end: two
minutes of git work, a copy of every file in zett's data folder, and every later checkpoint
listing the whole tree again. A project is seldom over these bounds; a folder that is not a
project often is. So a checkpoint that would record more files, or read more bytes anew, than
the bounds allow is not taken at all (never a partial one a rewind would then trust), and the
session says why in one line (``recording``). Listing the folder is git's own walk, which cannot
be stopped early: it is bounded in time instead.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
#: The Linux kernel has 90,000 files; a home folder, or a folder of many projects, far more.
DEFAULT_MAX_FILES = 100_000
#: About 10 s of ``git add`` on two cores, and that much of zett's data folder.
DEFAULT_MAX_NEW_BYTES = 1024 * 1024 * 1024
#: Listing 873,000 files took 3-14 s here; a minute is a folder no checkpoint should walk.
DEFAULT_LISTING_SECONDS = 60.0


@dataclass(frozen=True)
class CheckpointBounds:
    """What one checkpoint may record (``[checkpoints]`` in the user's config sets the first three)."""

    #: A larger file is left out of the checkpoint and named (the rest is recorded).
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    #: A project with more files to record than this: no checkpoint.
    max_files: int = DEFAULT_MAX_FILES
    #: A checkpoint that would read more than this of new or changed files: none.
    max_new_bytes: int = DEFAULT_MAX_NEW_BYTES
    #: git's listing of the project's files taking longer than this: no checkpoint.
    listing_seconds: float = DEFAULT_LISTING_SECONDS


class TooMuchToRecord(Exception):
    """A checkpoint over its bounds, not taken; ``str`` says which bound, in words."""


def files_over(count: int, bounds: CheckpointBounds) -> TooMuchToRecord:
    return TooMuchToRecord(
        f"this folder has {count:,} files to record, more than {bounds.max_files:,} ([checkpoints] max_files)"
    )


def bytes_over(size: int, bounds: CheckpointBounds) -> TooMuchToRecord:
    return TooMuchToRecord(
        f"a checkpoint would read {_megabytes(size)} of new or changed files, more than "
        f"{_megabytes(bounds.max_new_bytes)} ([checkpoints] max_new_mb)"
    )


def listing_too_slow(bounds: CheckpointBounds) -> TooMuchToRecord:
    return TooMuchToRecord(f"listing this folder's files took more than {bounds.listing_seconds:g} s")


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):,.0f} MB"
