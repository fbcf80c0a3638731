"""Putting a recorded file back in place: its bytes and mode, or its link, atomically.

A restore writes files itself (never ``git checkout``): a temporary file beside the target, made
0600 and ``O_NOFOLLOW``, given the mode the file had (git keeps only the exec bit), then renamed
over the target. A folder now in a file's place is not replaced.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

FILE_MODE = "100644"
EXEC_MODE = "100755"
LINK_MODE = "120000"


@dataclass(frozen=True)
class Entry:
    """One file of a checkpoint: git mode and blob id."""

    mode: str
    blob: str


def write_entry(target: Path, entry: Entry, data: bytes) -> None:
    """Put one recorded file in place atomically: bytes and mode, or a symlink."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_dir() and not target.is_symlink():
        raise IsADirectoryError(21, "a folder is in its place now")
    temporary = target.with_name(f".{target.name}.zett-restore-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    try:
        if entry.mode == LINK_MODE:
            os.symlink(os.fsdecode(data), temporary)
        else:
            mode = _mode_for(target, executable=entry.mode == EXEC_MODE)
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
                os.fchmod(stream.fileno(), mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def _mode_for(target: Path, *, executable: bool) -> int:
    """The permission bits to restore: the file's own (git keeps only the exec bit), else the umask's."""
    try:
        info = os.lstat(target)
        base = stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else 0o666 & ~_umask()
    except FileNotFoundError:
        base = 0o666 & ~_umask()
    base &= ~0o111
    return base | ((base & 0o444) >> 2) if executable else base


def remove_empty_parents(root: Path, folder: Path, kept: set[str]) -> None:
    """Remove folders left empty by removing a created file, up to the project (not recorded ones)."""
    while folder != root and str(folder.relative_to(root)) not in kept:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


_UMASK: int | None = None


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        current = os.umask(0o022)
        os.umask(current)
        _UMASK = current
    return _UMASK
