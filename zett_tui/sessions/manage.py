"""Changes to stored sessions: delete one (transcript, title, an unfinished turn's journal, lock,
model history, and the stored images no other session names) or rename it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from zett_tui.checkpoints.removal import remove_session_checkpoints
from zett_tui.core import paths
from zett_tui.sessions.image_cleanup import images_named_in, remove_unreferenced_images
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.lock import SessionLock
from zett_tui.sessions.meta import set_title
from zett_tui.sessions.naming import live_path, lock_path, meta_path, partial_path


@dataclass(frozen=True, slots=True)
class Deletion:
    session_id: str
    removed_files: list[Path]
    #: Whether the history database had rows for the session.
    history_rows_removed: bool
    #: How many of the session's checkpoints were dropped (``zett_tui.checkpoints``).
    checkpoints_removed: int = 0
    #: The stored images removed with it (``sessions.image_cleanup``): those no other session names.
    images_removed: tuple[Path, ...] = ()


async def delete_history(history_database: Path, session_id: str) -> bool:
    """Remove the session's rows from the SQLite history (model context). A missing database is
    left alone rather than created."""
    if not history_database.is_file():
        return False
    from zett_agent.extensions.sqlite import SQLiteSessionExtension

    extension = SQLiteSessionExtension(history_database)
    try:
        return await extension.delete_session(session_id)
    finally:
        await extension.close()


async def delete_session(
    summary: SessionSummary, history_database: Path | None, *, checkpoints_root: Path | None = None
) -> Deletion:
    """Delete everything zett keeps for one session, holding its lock while doing so.

    Raises :class:`~zett_tui.sessions.lock.SessionBusy` when a running zett has the session open,
    and ``OSError`` when a file cannot be removed. The history rows go first: if that fails, the
    transcript is still there to retry with.
    """
    lock = SessionLock(lock_path(summary.path)).acquire()
    try:
        rows = await delete_history(history_database, summary.session_id) if history_database else False
        removed: list[Path] = []
        files = (summary.path, live_path(summary.path), partial_path(summary.path))
        images = await asyncio.to_thread(lambda: set().union(*(images_named_in(path) for path in files)))
        for path in (*files, meta_path(summary.path)):
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            removed.append(path)
        root = checkpoints_root or paths.checkpoints_dir()
        checkpoints = await asyncio.to_thread(remove_session_checkpoints, summary.session_id, root)
        unnamed = await asyncio.to_thread(
            remove_unreferenced_images, images, summary.path.parent, history_database
        )
    finally:
        lock.release()
    return Deletion(summary.session_id, removed, rows, checkpoints, tuple(unnamed))


def rename_session(summary: SessionSummary, title: str | None) -> str | None:
    """Set (or with None/blank, clear) the session's title; returns the stored title."""
    return set_title(summary.path, title)
