"""Keep session storage private: folders 0700, files 0600, whatever the umask was.

zett-agent's JSONLExtension creates files with the process umask (often 0644), and older zett
versions or copies may have left looser modes. These helpers tighten what exists; they never
loosen anything and never fail the caller (a file that cannot be changed is reported).
"""

from __future__ import annotations

import stat
from pathlib import Path

from zett_tui.core.paths import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tighten
from zett_tui.sessions.reader import ReadNotice

#: SQLite keeps these beside the database file; they hold the same data.
_SQLITE_SIDE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def tighten_file(path: Path, notices: list[ReadNotice] | None = None) -> None:
    _tighten(path, PRIVATE_FILE_MODE, notices)


def tighten_dir(path: Path, notices: list[ReadNotice] | None = None) -> None:
    _tighten(path, PRIVATE_DIR_MODE, notices)


def _tighten(path: Path, mode: int, notices: list[ReadNotice] | None) -> None:
    try:
        tighten(path, mode)
    except OSError as error:
        if notices is not None:
            notices.append(ReadNotice(path, 0, f"cannot make private ({error.strerror or error})"))


def needs_tightening(st_mode: int, mode: int = PRIVATE_FILE_MODE) -> bool:
    """Whether a file with ``st_mode`` has group/other bits beyond ``mode``."""
    return bool(stat.S_IMODE(st_mode) & ~mode & 0o077)


def tighten_session_storage(
    sessions_directory: Path, history_database: Path | None = None, notices: list[ReadNotice] | None = None
) -> None:
    """Tighten the sessions folder, its parent data folder, every file in it and the history database.

    Nothing is created. The index tightens each session file as it lists it; this walks the whole
    folder (for ``zett sessions`` commands and at start-up).
    """
    for directory in (sessions_directory.parent, sessions_directory):
        if directory.is_dir():
            tighten_dir(directory, notices)
    if sessions_directory.is_dir():
        try:
            children = list(sessions_directory.iterdir())
        except OSError as error:
            children = []
            if notices is not None:
                notices.append(ReadNotice(sessions_directory, 0, f"cannot list ({error.strerror or error})"))
        for child in children:
            if child.is_symlink():
                continue
            if child.is_file():
                tighten_file(child, notices)
            elif child.is_dir():
                tighten_dir(child, notices)
    if history_database is not None:
        for suffix in _SQLITE_SIDE_SUFFIXES:
            side = history_database.with_name(history_database.name + suffix)
            if side.is_file() and not side.is_symlink():
                tighten_file(side, notices)
