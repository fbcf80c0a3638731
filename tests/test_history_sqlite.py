"""The history database's own statements (``runtime.history_sqlite``) against zett-agent's storage:
what one writes the other reads the same, row for row; and what a write does when it cannot."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from zett_agent.extensions.compaction import CompactedMessage
from zett_agent.extensions.events import MessageTiming
from zett_agent.messages import (
    AgentMessage,
    AssistantMessage,
    ImageBytesSource,
    ImageContent,
    TextContent,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from zett_agent.model import ModelUsage
from zett_agent.storage import SQLiteSessionStorage

from zett_tui.runtime.history_faults import storage_fault
from zett_tui.runtime.history_sqlite import HistoryDatabase

START = datetime(2026, 12, 7, 6, 2, 40, 123456, tzinfo=UTC)
TIMING = MessageTiming(
    started_at=START,
    completed_at=START + timedelta(seconds=2),
    duration_ns=2_000_000_000,
    reasoning_started_at=START + timedelta(milliseconds=100),
    reasoning_completed_at=START + timedelta(milliseconds=900),
    reasoning_duration_ns=800_000_000,
    content_started_at=START + timedelta(seconds=1),
    content_completed_at=START + timedelta(seconds=2),
    content_duration_ns=1_000_000_000,
)
INSTANT = MessageTiming(started_at=START, completed_at=START, duration_ns=0)
USAGE = ModelUsage(input_tokens=120, output_tokens=30, cache_read_tokens=100, reasoning_tokens=10)
#: What a session holds: (message, how it was timed, its usage, request metadata, tags).
DIALOGUE: list[tuple[Any, MessageTiming, ModelUsage | None, dict[str, Any] | None, dict[str, Any] | None]] = [
    (
        UserMessage(content="read notes.txt — ünïcode"),
        INSTANT,
        None,
        {"source": "prompt", "n": 1},
        {"mode": "plan"},
    ),
    (
        AssistantMessage(
            content="",
            reasoning="first the file",
            tool_calls=(ToolCall(id="c1", name="read_file", arguments={"path": "notes.txt"}),),
        ),
        TIMING,
        USAGE,
        None,
        None,
    ),
    (ToolMessage(tool_call_id="c1", name="read_file", content="line 1\nline 2"), TIMING, None, None, None),
    (
        UserMessage(
            content=[TextContent("and this"), ImageContent(ImageBytesSource(b"\x89PNG\r\n", "image/png"))]
        ),
        INSTANT,
        None,
        None,
        None,
    ),
    (AgentMessage(content="a subagent's note"), INSTANT, None, None, None),
    (
        AssistantMessage(content="The answer is 42."),
        TIMING,
        USAGE,
        {"nested": {"list": [1, 2.5, None]}},
        None,
    ),
]


async def write(storage: Any, session_id: str, **session: Any) -> list[int]:
    sequences = []
    for index, (message, timing, usage, metadata, tags) in enumerate(DIALOGUE):
        options = session if index == 0 else {"parent_session_id": session.get("parent_session_id")}
        sequences.append(
            await storage.append(
                session_id,
                f"r{index // 3}",
                message,
                timing,
                metadata=metadata,
                tags=tags,
                usage=usage,
                **options,
            )
        )
    return sequences


def rows(path: Path, table: str, session_column: str, session_id: str) -> list[dict[str, Any]]:
    """The table's rows for one session, without what differs by when and by whom they were written."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.row_factory = sqlite3.Row
        found = connection.execute(
            f"SELECT * FROM {table} WHERE {session_column} = ? ORDER BY rowid", (session_id,)
        )
        names = [column[0] for column in found.description]
        return [
            {key: row[key] for key in names if key not in ("id", session_column, "created_at", "updated_at")}
            for row in found
        ]


def stored_times(path: Path, session_id: str) -> list[tuple[str, str]]:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        return connection.execute(
            "SELECT created_at, started_at FROM raw_messages WHERE session_id = ? ORDER BY sequence",
            (session_id,),
        ).fetchall()


def database(path: Path) -> HistoryDatabase:
    return HistoryDatabase(path, busy_timeout_ms=5000, upstream=lambda: SQLiteSessionStorage(path))


async def test_what_either_writes_is_the_same_rows_and_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    ours, theirs = database(path), SQLiteSessionStorage(path)
    try:
        assert await write(ours, "a", title="Fix the build", agent_name="zett") == [1, 2, 3, 4, 5, 6]
        assert await write(theirs, "b", title="Fix the build", agent_name="zett") == [1, 2, 3, 4, 5, 6]
        for table, column in (("raw_messages", "session_id"), ("agent_sessions", "id")):
            assert rows(path, table, column, "a") == rows(path, table, column, "b")
        [(created, started), *_] = stored_times(path, "a")
        assert stored_times(path, "b")[0][1] == started == "2026-12-07 06:02:40.123456"
        assert len(created) == len("2026-12-07 06:02:40.123456")

        for session_id in ("a", "b"):
            mine, upstream = await ours.load(session_id), await theirs.load(session_id)
            assert mine == upstream and len(mine.raw_tail) == len(DIALOGUE)
            assert [record.message for record in mine.raw_tail] == [item[0] for item in DIALOGUE]
            assert mine.raw_tail[1].started_at == START and mine.raw_tail[1].input_tokens == 120
            assert await ours.get_session(session_id) == await theirs.get_session(session_id)
            assert await ours.count_messages(session_id) == 6 == await theirs.count_messages(session_id)
            for page in (
                {},
                {"after_sequence": 2},
                {"after_sequence": 1, "through_sequence": 4, "limit": 2, "offset": 1},
            ):
                assert await ours.list_raw_messages(session_id, **page) == await theirs.list_raw_messages(
                    session_id, **page
                )
        assert await ours.load("nobody") == await theirs.load("nobody")
        assert await ours.get_session("nobody") is None
    finally:
        await ours.close()
        await theirs.close()


async def test_a_snapshot_cuts_the_tail_the_same_way(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    ours, theirs = database(path), SQLiteSessionStorage(path)
    try:
        await write(ours, "s")
        assert await ours.latest_snapshot_id("s") is None
        made = await ours.snapshot("s", CompactedMessage(content="the story so far"), 3, 0)
        assert await ours.latest_snapshot_id("s") == made.id
        view = await ours.load("s")
        assert view == await theirs.load("s")
        assert view.snapshot is not None and view.snapshot.compacted_through_sequence == 3
        assert [record.sequence for record in view.raw_tail] == [4, 5, 6]
    finally:
        await ours.close()
        await theirs.close()


async def test_a_write_that_breaks_a_rule_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    ours = database(path)
    try:
        await ours.append("child", "r", UserMessage(content="hi"), parent_session_id="parent")
        with pytest.raises(ValueError, match="parent cannot change"):
            await ours.append("child", "r", UserMessage(content="again"), parent_session_id="other")
        with pytest.raises(ValueError, match="only to assistant"):
            await ours.append("child", "r", UserMessage(content="x"), parent_session_id="parent", usage=USAGE)
        with pytest.raises(ValueError, match="title"):
            await ours.append("child", "r", UserMessage(content="x"), parent_session_id="parent", title=" ")
        with pytest.raises(ValueError, match="Checkpoints"):
            await ours.append("child", "r", CompactedMessage(content="x"), parent_session_id="parent")
        assert await ours.count_messages("child") == 1
        assert (await ours.append("child", "r", UserMessage(content="ok"), parent_session_id="parent")) == 2
    finally:
        await ours.close()


async def test_two_writers_at_once_never_take_the_same_sequence(tmp_path: Path) -> None:
    """Each append takes the write lock before it reads the last sequence (``BEGIN IMMEDIATE``)."""
    path = tmp_path / "history.sqlite3"
    first, second = database(path), database(path)
    try:
        await first.count_messages("s")  # the schema, before two writers race to make it

        async def append(storage: HistoryDatabase, n: int) -> int:
            return await storage.append("s", f"r{n}", UserMessage(content=str(n)))

        sequences = await asyncio.gather(*(append(first if n % 2 else second, n) for n in range(40)))
        assert sorted(sequences) == list(range(1, 41))
        assert [record.sequence for record in (await first.load("s")).raw_tail] == list(range(1, 41))
    finally:
        await first.close()
        await second.close()


async def test_a_write_the_database_refuses_is_a_fault_the_store_rides_out(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    ours = database(path)
    try:
        await ours.append("s", "r", UserMessage(content="kept"))
        ours.on_connect.append(lambda connection: connection.execute("PRAGMA query_only=1"))
        with pytest.raises(sqlite3.OperationalError) as refused:
            await ours.append("s", "r", UserMessage(content="refused"))
        assert storage_fault(refused.value) == "read-only"
        ours.on_connect.clear()
        assert [record.message.content for record in (await ours.load("s")).raw_tail] == ["kept"]
    finally:
        await ours.close()


async def test_the_first_statement_upgrades_an_older_database_first(tmp_path: Path) -> None:
    """A database from before ``session_type``: zett-agent's storage adds the column before this writes."""
    path = tmp_path / "history.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute(
            "CREATE TABLE agent_sessions (id VARCHAR(36) PRIMARY KEY, parent_session_id VARCHAR(36), "
            "title VARCHAR(200), agent_name VARCHAR(64), created_at DATETIME NOT NULL, updated_at DATETIME NOT NULL)"
        )
        connection.commit()
    ours = database(path)
    try:
        assert await ours.append("s", "r", UserMessage(content="hi")) == 1
        summary = await ours.get_session("s")
        assert summary is not None and summary.session_type == 0 and summary.message_count == 1
    finally:
        await ours.close()


def test_a_session_on_a_new_file_and_on_a_current_one_imports_no_sqlalchemy(tmp_path: Path) -> None:
    """The tables of a new file are made here (``history_schema``) and a current one is used as it is:
    SQLAlchemy (~0.5 s, ~21 MB) is imported only for a snapshot, a listing or an older database."""
    script = """
import asyncio, sys
from pathlib import Path
from zett_agent.messages import UserMessage
from zett_tui.runtime.history_open import history_database

async def main(path):
    for _ in range(2):  # a new file, then the same file again
        database = history_database(path)
        await database.append("s", "r", UserMessage(content="hi"))
        assert len((await database.load("s")).raw_tail) >= 1
        await database.close()
    print(sorted(name for name in sys.modules if name.split(".")[0] in ("sqlalchemy", "aiosqlite")))

asyncio.run(main(Path(sys.argv[1])))
"""
    path = tmp_path / "history.sqlite3"
    path.touch()
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


async def test_a_new_file_gets_the_tables_zett_agent_makes(tmp_path: Path) -> None:
    ours_path, theirs_path = tmp_path / "ours.sqlite3", tmp_path / "theirs.sqlite3"
    ours, theirs = database(ours_path), SQLiteSessionStorage(theirs_path)
    try:
        await ours.count_messages("s")
        await theirs.count_messages("s")
        assert ours._upstream is None  # made here, without zett-agent's storage
        assert schema(ours_path) == schema(theirs_path)
    finally:
        await ours.close()
        await theirs.close()


def schema(path: Path) -> list[tuple[str, str, str]]:
    """Each table and index: its type, its name, and the statement that made it (spacing aside)."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        rows = connection.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    return [(kind, name, " ".join((sql or "").split())) for kind, name, sql in rows]


async def test_two_databases_opening_a_new_file_at_once_make_the_tables_once(tmp_path: Path) -> None:
    """Four at once on each of ten new files: the file's conversion to WAL and the tables' creation
    race, and no database fails or takes another's half-made tables for an older version's."""
    for round_number in range(10):
        path = tmp_path / f"history-{round_number}.sqlite3"
        databases = [database(path) for _ in range(4)]
        try:
            counts = await asyncio.gather(*(each.count_messages("s") for each in databases))
            assert counts == [0, 0, 0, 0]
            assert all(each._upstream is None for each in databases)
            with contextlib.closing(sqlite3.connect(path)) as connection:
                (tables,) = connection.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                ).fetchone()
            assert tables == 3
        finally:
            for each in databases:
                await each.close()


async def test_a_read_only_history_can_still_be_read(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    writer = database(path)
    await writer.append("s", "r", UserMessage(content="kept"))
    await writer.close()
    reader = database(path)  # a new process's first statement, on a file it may not write
    reader.on_connect.append(lambda connection: connection.execute("PRAGMA query_only=1"))
    try:
        assert [record.message.content for record in (await reader.load("s")).raw_tail] == ["kept"]
    finally:
        await reader.close()
