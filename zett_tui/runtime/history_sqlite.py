"""The history database: zett-agent's SQLite tables, written and read with ``sqlite3``.

zett-agent's ``SQLiteSessionStorage`` goes through SQLAlchemy's ORM over aiosqlite and opens a
connection for each operation: appending one message or loading a session costs ~13 ms of CPU on a
2-core machine, most of it SQLAlchemy's, on the event loop, and importing SQLAlchemy ~0.5 s and
~21 MB. A turn appends a few messages and its requests read the session back (``history_since``:
its summary, its latest snapshot, the rows since the last read). ``HistoryDatabase`` makes those
statements itself with ``sqlite3``, in a worker thread, on the same tables, columns, value formats
and pragmas, with a connection for each operation as zett-agent does. zett-agent's storage is made
(in a worker thread: it imports SQLAlchemy) only for what is rare: a compaction's snapshot, listing
its sessions, and upgrading a database an older version made (``history_schema`` creates the tables
of a new file and checks an existing one's). What either writes, the other reads the same
(``tests/test_history_sqlite.py``), and ``tests/test_upstream_contracts.py`` checks this module's
copies of zett-agent's private encoding against its own.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from zett_agent.extensions.compaction import CompactedMessage
from zett_agent.extensions.events import MessageTiming
from zett_agent.extensions.persistence import ContextSnapshot, RawMessageRecord, SessionSummary, SessionView
from zett_agent.ids import new_uuid7
from zett_agent.json_types import JsonValue, json_object
from zett_agent.messages import AnyMessage, AssistantMessage, ToolMessage, UserMessage
from zett_agent.model import ModelUsage
from zett_agent.storage import MESSAGE_TYPES, MessageKind, decode_messages, encode_messages

from zett_tui.runtime.history_schema import TABLES, create_if_empty

__all__ = ["ConnectHook", "HistoryDatabase"]

ConnectHook = Callable[[sqlite3.Connection], None]
Result = TypeVar("Result")

#: How SQLAlchemy's SQLite ``DateTime`` stores a value: its fields as they are (zett-agent's are UTC).
_STORED_TIME = "%04d-%02d-%02d %02d:%02d:%02d.%06d"
#: What a read selects (rows are read by name): every column zett-agent's ``_record`` reads, which is
#: every column but the three it writes only for other readers.
_RAW_COLUMNS = ", ".join(sorted(TABLES["raw_messages"][0] - {"role", "content", "tool_name"}))
_SNAPSHOT_COLUMNS = ", ".join(sorted(TABLES["session_snapshots"][0]))
#: The session type zett-agent's ``append`` gives a session it creates (``storage._DEFAULT_SESSION_TYPE``).
DEFAULT_SESSION_TYPE = 0


class HistoryDatabase:
    """zett-agent's history tables in the SQLite file ``path``, every turn's operations made here.

    Args:
        path: The database file (it exists: ``history_open`` creates it private first).
        busy_timeout_ms: How long a statement waits for another process's lock.
        upstream: Makes zett-agent's storage over the same file, for what this leaves to it; called
            once, in a worker thread, the first time it is needed.
    """

    def __init__(self, path: Path, *, busy_timeout_ms: int, upstream: Callable[[], Any]) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        #: Called with each connection this opens, after its pragmas (tests simulate faults here).
        self.on_connect: list[ConnectHook] = []
        self._make_upstream = upstream
        self._upstream: Any = None
        self._upstream_made = asyncio.Lock()
        self._schema_ready = False

    async def upstream(self) -> Any:
        """zett-agent's storage over the same file, made the first time it is asked for."""
        async with self._upstream_made:
            if self._upstream is None:
                self._upstream = await asyncio.to_thread(self._make_upstream)
        return self._upstream

    # -- left to zett-agent's storage --------------------------------------------------------------

    async def snapshot(self, *args: Any, **kwargs: Any) -> ContextSnapshot:
        await self._ready()
        result: ContextSnapshot = await (await self.upstream()).snapshot(*args, **kwargs)
        return result

    async def list_sessions(self, *args: Any, **kwargs: Any) -> list[SessionSummary]:
        await self._ready()
        result: list[SessionSummary] = await (await self.upstream()).list_sessions(*args, **kwargs)
        return result

    async def close(self) -> None:
        if self._upstream is not None:
            await self._upstream.close()

    # -- every turn's, made here -------------------------------------------------------------------

    async def append(
        self,
        session_id: str,
        request_id: str,
        message: AnyMessage,
        timing: MessageTiming | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        agent_name: str | None = None,
        metadata: Mapping[str, JsonValue] | None = None,
        tags: Mapping[str, JsonValue] | None = None,
        usage: ModelUsage | None = None,
    ) -> int:
        """Store one message and return its sequence in the session (zett-agent's ``append``)."""
        if title is not None and (not title.strip() or len(title) > 200):
            raise ValueError("Session title must contain between 1 and 200 characters")
        if agent_name is not None and (not agent_name.strip() or len(agent_name) > 64):
            raise ValueError("Agent name must contain between 1 and 64 characters")
        if usage is not None and not isinstance(message, AssistantMessage):
            raise ValueError("Model usage belongs only to assistant messages")
        kind = next((kind for kind, cls in MESSAGE_TYPES.items() if type(message) is cls), None)
        if kind is None:
            raise ValueError(f"Not a message zett-agent stores: {type(message).__name__}")
        if kind == MessageKind.CHECKPOINT:
            raise ValueError("Checkpoints belong in snapshots, not raw logs")
        timing = timing or MessageTiming.instant()
        row = {
            "session_id": session_id,
            "request_id": request_id,
            "role": int(kind),
            "content": message.text if isinstance(message, (UserMessage, ToolMessage)) else message.content,
            "tool_name": message.name if isinstance(message, ToolMessage) else None,
            "message_json": encode_messages([message]),
            "metadata_json": encode_context(metadata, field_name="Message metadata"),
            "tags_json": encode_context(tags, field_name="Message tags", nonempty_keys=True),
            "started_at": _stored_time(timing.started_at),
            "completed_at": _stored_time(timing.completed_at),
            "duration_ns": timing.duration_ns,
            "reasoning_started_at": _stored_time(timing.reasoning_started_at),
            "reasoning_completed_at": _stored_time(timing.reasoning_completed_at),
            "reasoning_duration_ns": timing.reasoning_duration_ns,
            "content_started_at": _stored_time(timing.content_started_at),
            "content_completed_at": _stored_time(timing.content_completed_at),
            "content_duration_ns": timing.content_duration_ns,
            "input_tokens": usage.input_tokens if usage is not None else None,
            "output_tokens": usage.output_tokens if usage is not None else None,
            "cache_read_tokens": usage.cache_read_tokens if usage is not None else None,
            "cache_write_tokens": usage.cache_write_tokens if usage is not None else None,
            "reasoning_tokens": usage.reasoning_tokens if usage is not None else None,
        }
        session = {"parent_session_id": parent_session_id, "title": title, "agent_name": agent_name}
        return await self._run(_append, row, session)

    async def load(self, session_id: str) -> SessionView:
        """The latest snapshot and the messages after it (zett-agent's ``load``)."""
        return await self._run(_load, session_id)

    async def get_session(self, session_id: str) -> SessionSummary | None:
        return await self._run(_summary, session_id)

    async def count_messages(self, session_id: str) -> int:
        return await self._run(_count, session_id)

    async def list_raw_messages(
        self,
        session_id: str,
        *,
        after_sequence: int = 0,
        through_sequence: int | None = None,
        limit: int = 10_000,
        offset: int = 0,
    ) -> list[RawMessageRecord]:
        """One page of the session's stored messages by sequence (zett-agent's ``list_raw_messages``)."""
        if after_sequence < 0:
            raise ValueError("after_sequence cannot be negative")
        if through_sequence is not None and through_sequence < 1:
            raise ValueError("through_sequence must be positive")
        if limit < 1:
            raise ValueError("limit must be positive")
        if offset < 0:
            raise ValueError("offset cannot be negative")
        return await self._run(_raw_page, session_id, after_sequence, through_sequence, limit, offset)

    async def latest_snapshot_id(self, session_id: str) -> str | None:
        """The id of the session's latest compaction snapshot; None when it has none."""
        return await self._run(_latest_snapshot_id, session_id)

    async def _run(self, work: Callable[..., Result], *args: Any) -> Result:
        await self._ready()
        return await asyncio.to_thread(self._in_connection, work, *args)

    async def _ready(self) -> None:
        """The tables are there: created here on a file without them, or by zett-agent's storage
        (its first statement) on a database an older version made."""
        if self._schema_ready:
            return
        if await asyncio.to_thread(self._in_connection, create_if_empty) == "other":
            await (await self.upstream()).count_messages("")
        self._schema_ready = True

    def _in_connection(self, work: Callable[..., Result], *args: Any) -> Result:
        connection = sqlite3.connect(self.path, timeout=self.busy_timeout_ms / 1000, isolation_level=None)
        try:
            connection.row_factory = sqlite3.Row
            _use_wal(connection, self.busy_timeout_ms / 1000)  # as zett-agent sets each connection
            connection.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            connection.execute("PRAGMA synchronous=NORMAL")
            for hook in self.on_connect:
                hook(connection)
            return work(connection, *args)
        finally:
            connection.close()


def _use_wal(connection: sqlite3.Connection, timeout: float) -> None:
    """Put the file in WAL mode (a no-op once it is), waiting up to ``timeout`` seconds for others.

    The first connection to a new file converts it, and that needs the file to itself. Two doing it
    at once (two zetts starting on a new data folder) each hold a shared lock and want the other's
    gone; SQLite answers one of them "database is locked" at once instead of calling its busy
    handler, since waiting could never end. That one tries again until the other has converted it.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(0.005)


@contextmanager
def _transaction(connection: sqlite3.Connection, *, write: bool = False) -> Iterator[None]:
    """One transaction: a write takes the lock first, so no other writer reads the same last sequence."""
    connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def _append(connection: sqlite3.Connection, row: dict[str, Any], session: dict[str, Any]) -> int:
    session_id = row["session_id"]
    with _transaction(connection, write=True):
        (last,) = connection.execute(
            "SELECT max(sequence) FROM raw_messages WHERE session_id = ?", (session_id,)
        ).fetchone()
        sequence = (last or 0) + 1
        now = _stored_time(datetime.now(UTC))
        stored = connection.execute(
            "SELECT parent_session_id FROM agent_sessions WHERE id = ?", (session_id,)
        ).fetchone()
        if stored is None:
            connection.execute(
                "INSERT INTO agent_sessions (id, parent_session_id, session_type, title, agent_name, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    session["parent_session_id"],
                    DEFAULT_SESSION_TYPE,
                    session["title"],
                    session["agent_name"],
                    now,
                    now,
                ),
            )
        elif stored["parent_session_id"] != session["parent_session_id"]:
            raise ValueError("Session parent cannot change after creation")
        else:
            connection.execute(
                "UPDATE agent_sessions SET title = coalesce(?, title), agent_name = coalesce(?, agent_name), "
                "updated_at = ? WHERE id = ?",
                (session["title"], session["agent_name"], now, session_id),
            )
        values = {**row, "id": new_uuid7(), "sequence": sequence, "created_at": now, "updated_at": now}
        names = ", ".join(values)
        connection.execute(
            f"INSERT INTO raw_messages ({names}) VALUES ({', '.join('?' * len(values))})",
            tuple(values.values()),
        )
    return sequence


def _load(connection: sqlite3.Connection, session_id: str) -> SessionView:
    with _transaction(connection):
        session = connection.execute(
            "SELECT parent_session_id, session_type, title, agent_name FROM agent_sessions WHERE id = ?",
            (session_id,),
        ).fetchone()
        latest = connection.execute(
            f"SELECT {_SNAPSHOT_COLUMNS} FROM session_snapshots WHERE session_id = ? "
            "ORDER BY version DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        snapshot = _snapshot_record(latest) if latest is not None else None
        after = snapshot.compacted_through_sequence if snapshot is not None else 0
        rows = connection.execute(
            f"SELECT {_RAW_COLUMNS} FROM raw_messages WHERE session_id = ? AND sequence > ? ORDER BY sequence",
            (session_id, after),
        ).fetchall()
    return SessionView(
        parent_session_id=session["parent_session_id"] if session is not None else None,
        session_type=session["session_type"] if session is not None else DEFAULT_SESSION_TYPE,
        title=session["title"] if session is not None else None,
        agent_name=session["agent_name"] if session is not None else None,
        snapshot=snapshot,
        raw_tail=[_record(row) for row in rows],
    )


def _summary(connection: sqlite3.Connection, session_id: str) -> SessionSummary | None:
    with _transaction(connection):
        row = connection.execute(
            "SELECT id, parent_session_id, session_type, title, agent_name, created_at, updated_at "
            "FROM agent_sessions WHERE id = ?",
            (session_id,),
        ).fetchone()
        if row is None:
            return None
        count = _count(connection, session_id)
    return SessionSummary(
        session_id=row["id"],
        parent_session_id=row["parent_session_id"],
        session_type=row["session_type"],
        title=row["title"],
        agent_name=row["agent_name"],
        message_count=count,
        created_at=_read_time(row["created_at"]),
        updated_at=_read_time(row["updated_at"]),
    )


def _count(connection: sqlite3.Connection, session_id: str) -> int:
    (count,) = connection.execute(
        "SELECT count(id) FROM raw_messages WHERE session_id = ?", (session_id,)
    ).fetchone()
    return int(count or 0)


def _raw_page(
    connection: sqlite3.Connection,
    session_id: str,
    after: int,
    through: int | None,
    limit: int,
    offset: int,
) -> list[RawMessageRecord]:
    upper = "" if through is None else " AND sequence <= ?"
    bounds: tuple[Any, ...] = (session_id, after) if through is None else (session_id, after, through)
    rows = connection.execute(
        f"SELECT {_RAW_COLUMNS} FROM raw_messages WHERE session_id = ? AND sequence > ?{upper} "
        "ORDER BY sequence LIMIT ? OFFSET ?",
        (*bounds, limit, offset),
    ).fetchall()
    return [_record(row) for row in rows]


def _latest_snapshot_id(connection: sqlite3.Connection, session_id: str) -> str | None:
    row = connection.execute(
        "SELECT id FROM session_snapshots WHERE session_id = ? ORDER BY version DESC LIMIT 1", (session_id,)
    ).fetchone()
    return None if row is None else str(row["id"])


def _record(row: sqlite3.Row) -> RawMessageRecord:
    """A stored message as zett-agent's ``_record`` builds it."""
    return RawMessageRecord(
        id=row["id"],
        session_id=row["session_id"],
        request_id=row["request_id"],
        sequence=row["sequence"],
        message=decode_messages(row["message_json"])[0],
        metadata=decode_context(row["metadata_json"], field_name="message metadata"),
        tags=decode_context(row["tags_json"], field_name="message tags", nonempty_keys=True),
        started_at=_read_time(row["started_at"]),
        completed_at=_read_time(row["completed_at"]),
        duration_ns=row["duration_ns"],
        reasoning_started_at=_read_optional_time(row["reasoning_started_at"]),
        reasoning_completed_at=_read_optional_time(row["reasoning_completed_at"]),
        reasoning_duration_ns=row["reasoning_duration_ns"],
        content_started_at=_read_optional_time(row["content_started_at"]),
        content_completed_at=_read_optional_time(row["content_completed_at"]),
        content_duration_ns=row["content_duration_ns"],
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        cache_read_tokens=row["cache_read_tokens"],
        cache_write_tokens=row["cache_write_tokens"],
        reasoning_tokens=row["reasoning_tokens"],
        created_at=_read_time(row["created_at"]),
        updated_at=_read_time(row["updated_at"]),
    )


def _snapshot_record(row: sqlite3.Row) -> ContextSnapshot:
    """A stored snapshot as zett-agent's ``_snapshot_record`` builds and checks it."""
    messages = decode_messages(row["message_json"])
    if len(messages) != 1 or not isinstance(messages[0], CompactedMessage):
        raise ValueError("Context snapshot must contain exactly one CompactedMessage")
    return ContextSnapshot(
        id=row["id"],
        session_id=row["session_id"],
        version=row["version"],
        compacted_message=messages[0],
        compacted_through_sequence=row["compacted_through_sequence"],
        created_at=_read_time(row["created_at"]),
        updated_at=_read_time(row["updated_at"]),
    )


def _stored_time(value: datetime | None) -> str | None:
    if value is None:
        return None
    return _STORED_TIME % (
        value.year,
        value.month,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.microsecond,
    )


def _read_time(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _read_optional_time(text: str | None) -> datetime | None:
    return None if text is None else _read_time(text)


def encode_context(
    value: Mapping[str, JsonValue] | None, *, field_name: str, nonempty_keys: bool = False
) -> str:
    """A message's metadata or tags checked and stored as zett-agent's ``_encode_context_data`` does."""
    checked = json_object(value, field_name=field_name, nonempty_keys=nonempty_keys)
    return json.dumps(checked, ensure_ascii=False, sort_keys=True, allow_nan=False)


def decode_context(payload: str, *, field_name: str, nonempty_keys: bool = False) -> dict[str, JsonValue]:
    """A stored message's metadata or tags, read back as zett-agent's ``_decode_context_data`` does."""
    try:
        value = json.loads(payload)
    except (TypeError, json.JSONDecodeError) as error:
        raise ValueError(f"Stored {field_name} is not valid JSON") from error
    if not isinstance(value, dict):
        raise ValueError(f"Stored {field_name} must be a JSON object")
    return json_object(value, field_name=f"Stored {field_name}", nonempty_keys=nonempty_keys)
