"""Opening the history database: checked for damage, created private, or opened later.

When the file cannot even be created at start (a read-only, full or missing folder, a dead
mount), a stand-in opens it on the first read or write that finds it possible, so the session
runs in memory until then and is written without a restart afterwards.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zett_agent.extensions.persistence import ContextSnapshot, SessionView

from zett_tui.core import paths
from zett_tui.runtime import history_store
from zett_tui.runtime.history_damage import prepare_history_file
from zett_tui.runtime.history_images import HistoryImages
from zett_tui.runtime.history_store import HistoryExtension, HistoryStore, Notify

log = logging.getLogger(__name__)

#: SQLite's wait for another process's lock, as zett-agent sets it.
BUSY_TIMEOUT_MS = 5000


async def open_history(
    path: Path,
    *,
    redact: Callable[[str], str],
    notify: Notify | None = None,
    store_notify: Notify | None = None,
    busy_timeout_ms: int | None = None,
    retry_seconds: float | None = None,
    images: Path | None = None,
) -> HistoryExtension:
    """The history extension over ``path``, after making sure the file can be used.

    A damaged file is set aside and a fresh one started (``notify`` tells the user where the old
    one went). When the file cannot even be created (a read-only, full or missing folder, a dead
    mount), the database is opened later, by the first read or write that finds it possible; until
    then the store's faults keep the session in memory. ``store_notify`` (default ``notify``) hears
    the store's faults and recoveries. ``images``: the folder image bytes are kept in instead of
    the rows (``runtime.history_images``; the sessions folder's ``images/``).

    Raises:
        HistoryUnavailableError: the file is damaged and could not be moved out of the way.
    """
    notify = notify or (lambda text, level: None)
    timeout = BUSY_TIMEOUT_MS if busy_timeout_ms is None else busy_timeout_ms
    storage: Any
    try:
        storage = await _open_database(path, notify, timeout)
    except OSError as error:
        log.warning("history database not opened yet: %s", error)
        storage = _DeferredDatabase(path, notify, timeout)
    retry = history_store.RETRY_SECONDS if retry_seconds is None else retry_seconds
    store = HistoryStore(
        storage,
        redact=redact,
        notify=store_notify or notify,
        retry_seconds=retry,
        images=HistoryImages(images) if images is not None else None,
    )
    return HistoryExtension(store)


async def _open_database(path: Path, notify: Notify, busy_timeout_ms: int) -> Any:
    """The history database over ``path`` (``history_sqlite``: zett-agent's tables, written and read
    with ``sqlite3``), the file created 0600 first and checked for damage.

    Raises:
        OSError: the file (or its folder) cannot be created.
    """
    await asyncio.to_thread(_create_private_file, path)
    problem = await asyncio.to_thread(prepare_history_file, path)
    if problem is not None:
        notify(problem, "warning")
    return history_database(path, busy_timeout_ms)


def history_database(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> Any:
    """The history database over ``path`` (``history_sqlite``), zett-agent's storage made when needed."""
    from zett_tui.runtime.history_sqlite import HistoryDatabase

    return HistoryDatabase(
        path, busy_timeout_ms=busy_timeout_ms, upstream=lambda: agent_storage(path, busy_timeout_ms)
    )


def agent_storage(path: Path, busy_timeout_ms: int) -> Any:
    """zett-agent's SQLAlchemy storage over ``path``, for what the history database leaves to it.
    It imports SQLAlchemy (and the aiosqlite dialect its first connection would import on the event
    loop): call it in a worker thread."""
    import sqlalchemy.dialects.sqlite.aiosqlite  # noqa: F401
    from zett_agent.storage import SQLiteSessionStorage

    from zett_tui.runtime.sqlite_stop import stop_once

    stop_once()  # a connection stopped twice must not hang the quit
    storage = SQLiteSessionStorage(path)
    _set_busy_timeout(storage, busy_timeout_ms)
    return storage


def _create_private_file(path: Path) -> None:
    """Create ``path`` 0600 in a 0700 folder, so SQLite never creates it with the umask's mode."""
    paths.ensure_private_dir(path.parent)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, paths.PRIVATE_FILE_MODE))


class _DeferredDatabase:
    """Stands in for a database whose file could not be created at start; opens it when it can.

    Each call first tries to create the file (privately) and open the database; until that works
    it raises the ``OSError`` that stopped it, which the store treats as a write fault.
    """

    def __init__(self, path: Path, notify: Notify, busy_timeout_ms: int) -> None:
        self.path = path
        self._notify = notify
        self._busy_timeout_ms = busy_timeout_ms
        self._storage: Any = None

    async def _opened(self) -> Any:
        if self._storage is None:
            self._storage = await _open_database(self.path, self._notify, self._busy_timeout_ms)
            log.info("history database opened: %s", self.path)
        return self._storage

    async def load(self, *args: Any, **kwargs: Any) -> SessionView:
        return await (await self._opened()).load(*args, **kwargs)

    async def append(self, *args: Any, **kwargs: Any) -> int:
        return await (await self._opened()).append(*args, **kwargs)

    async def snapshot(self, *args: Any, **kwargs: Any) -> ContextSnapshot:
        return await (await self._opened()).snapshot(*args, **kwargs)

    async def list_raw_messages(self, *args: Any, **kwargs: Any) -> Any:
        return await (await self._opened()).list_raw_messages(*args, **kwargs)

    async def list_sessions(self, *args: Any, **kwargs: Any) -> Any:
        return await (await self._opened()).list_sessions(*args, **kwargs)

    async def get_session(self, session_id: str) -> Any:
        return await (await self._opened()).get_session(session_id)

    async def count_messages(self, session_id: str) -> Any:
        return await (await self._opened()).count_messages(session_id)

    async def latest_snapshot_id(self, session_id: str) -> str | None:
        result: str | None = await (await self._opened()).latest_snapshot_id(session_id)
        return result

    async def close(self) -> None:
        if self._storage is not None:
            await self._storage.close()


def _set_busy_timeout(storage: Any, milliseconds: int) -> None:
    """Wait ``milliseconds`` for another process's lock (runs after zett-agent's own setting)."""
    from sqlalchemy import event

    def configure(connection: Any, _record: Any) -> None:
        cursor = connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout={int(milliseconds)}")
        finally:
            cursor.close()

    event.listen(storage.engine.sync_engine, "connect", configure)
