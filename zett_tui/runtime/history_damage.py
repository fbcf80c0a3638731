"""A damaged history database at start: found, set aside, and said, so a fresh history can begin.

:func:`prepare_history_file` runs before the runtime opens the file. A file that is not a database,
or fails SQLite's quick check, is renamed to ``history.sqlite3.corrupt-<time>`` and a fresh,
private one is created; the line it returns tells the user where the old file went and that the
JSONL transcripts are untouched. When the file cannot be moved, :class:`HistoryUnavailableError`
says what to do. A locked or unreadable file is not damaged: the store rides that out
(``history_store``). No Textual here.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from datetime import datetime
from pathlib import Path

from zett_tui.core import paths
from zett_tui.runtime.history_faults import sqlite_fault

log = logging.getLogger(__name__)

#: Files up to this size get SQLite's quick check at start (it reads the whole file).
QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024


class HistoryUnavailableError(Exception):
    """The history database cannot be used and could not be set aside; the message says what to do."""


def prepare_history_file(path: Path) -> str | None:
    """Create the file private, and set it aside when damaged. Returns a line for the user, or None."""
    try:
        _prepare_private_file(path)
    except OSError as error:  # the store's first read or write fails the same way, and says so
        log.warning("history file unavailable: %s", error)
        return None
    damage = damaged(path)
    if damage is None:
        return None
    aside = set_aside(path)
    _prepare_private_file(path)
    log.warning("damaged history %s moved to %s: %s", path, aside, damage)
    return (
        f"The history database was damaged ({damage}) and could not be read. It was moved to {aside}, "
        "and zett started a new, empty history: a session you resume has the model's memory of it "
        f"rebuilt from its transcript. The session transcripts in {paths.sessions_dir()} are intact "
        "(zett sessions list, show and export read them)."
    )


def damaged(path: Path) -> str | None:
    """Why the SQLite file at ``path`` is unusable (not a database, failed quick check), or None.

    A locked or unreadable file is not damaged: that is a fault the store rides out.
    """
    try:
        if path.stat().st_size == 0:
            return None
    except OSError:
        return None
    try:
        connection = sqlite3.connect(path, timeout=0.1)
    except sqlite3.Error:
        return None
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if path.stat().st_size <= QUICK_CHECK_MAX_BYTES:
            [result] = connection.execute("PRAGMA quick_check(1)").fetchone()
            if result != "ok":
                return " ".join(str(result).split())[:120]
    except sqlite3.Error as error:
        return str(error) if sqlite_fault(error) == "damaged" else None
    finally:
        connection.close()
    return None


def set_aside(path: Path) -> Path:
    """Rename the damaged database (and its ``-wal``/``-shm``) to ``<name>.corrupt-<time>``.

    Raises:
        HistoryUnavailableError: when the rename fails.
    """
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    try:
        os.replace(path, aside)
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                os.replace(side, aside.with_name(aside.name + suffix))
    except OSError as error:
        raise HistoryUnavailableError(
            f"The history database {path} is damaged and could not be moved aside "
            f"({error.strerror or error}). Move or delete it, then start zett again; the session "
            f"transcripts in {paths.sessions_dir()} are intact."
        ) from error
    return aside


def _prepare_private_file(path: Path) -> None:
    """Create ``path`` 0600 in a 0700 folder before SQLite opens it with the umask's mode."""
    paths.ensure_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, paths.PRIVATE_FILE_MODE)
    os.close(fd)
    for suffix in ("", "-wal", "-shm", "-journal"):
        paths.tighten(path.with_name(path.name + suffix), paths.PRIVATE_FILE_MODE)
