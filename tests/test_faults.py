"""Faults: a full or read-only disk mid-turn, a locked or damaged history, a stalling provider.

The session always goes on: a visible warning, nothing already written damaged, writing resumed
once the fault clears, and the context intact for the model and for a later process.

Tests run as root, where ``chmod 0500`` stops nothing; a read-only disk is therefore simulated:
SQLite gets ``PRAGMA query_only`` (it then fails exactly as on a read-only file, with
SQLITE_READONLY) and the transcript's writes raise ``EROFS``. A full disk is simulated the same
way (SQLite's own "database or disk is full" error, and a half-written line followed by
``ENOSPC``), plus one test that fills a real database up to ``PRAGMA max_page_count``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy.exc
from sqlalchemy import event
from zett_agent.messages import UserMessage
from zett_agent.model import RetryOptions, TimeoutOptions
from zett_agent.storage import SQLiteSessionStorage

from tests.fakes.host import Collector, HostFactory, make_host, wait_until
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from zett_tui.core import line_append, paths
from zett_tui.core.redact import Redactor
from zett_tui.providers.errors import describe_error
from zett_tui.runtime import history_damage, history_open, history_store
from zett_tui.runtime.events import Notice, TextChunk, TurnFinished
from zett_tui.runtime.history_damage import HistoryUnavailableError
from zett_tui.runtime.history_faults import storage_fault
from zett_tui.runtime.history_sqlite import HistoryDatabase
from zett_tui.runtime.history_store import HistoryStore
from zett_tui.runtime.host import AgentHost, HostOptions
from zett_tui.runtime.storage_retry import saved_again


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry a failed write at once (not after 10 s), and wait 50 ms (not 5 s) for a lock."""
    monkeypatch.setattr(history_store, "RETRY_SECONDS", 0.0)
    monkeypatch.setattr(history_open, "BUSY_TIMEOUT_MS", 50)


def store_of(host: AgentHost) -> HistoryStore:
    store = host._history.storage
    assert isinstance(store, HistoryStore)
    return store


class FailingTranscript:
    """While ``on``, a transcript write puts half a line on disk and then fails with ``os_errno``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, os_errno: int) -> None:
        self.on = False
        write_all = line_append.write_all

        def failing_write(fd: int, data: bytes) -> None:
            if self.on:
                os.write(fd, data[: len(data) // 2])
                raise OSError(os_errno, os.strerror(os_errno))
            write_all(fd, data)

        monkeypatch.setattr(line_append, "write_all", failing_write)


class FailingDisk(FailingTranscript):
    """The transcript as above, and the history's appends fail with SQLite's ``sqlite_message``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, host: AgentHost, sqlite_message: str, os_errno: int):
        super().__init__(monkeypatch, os_errno)
        database = store_of(host).storage
        append = database.append

        async def failing_append(*args: Any, **kwargs: Any) -> int:
            if self.on:
                raise sqlite3.OperationalError(sqlite_message)  # as the history database raises it
            return await append(*args, **kwargs)

        monkeypatch.setattr(database, "append", failing_append)


async def on_every_connection(database: HistoryDatabase, hook: Callable[[Any], None]) -> None:
    """``hook`` on each connection the history database opens: its own statements' and those it
    leaves to zett-agent's storage (SQLAlchemy's)."""
    upstream = await database.upstream()
    event.listen(upstream.engine.sync_engine, "connect", lambda connection, _record: hook(connection))
    database.on_connect.append(hook)


def run_pragma(connection: Any, pragma: str) -> None:
    cursor = connection.cursor()
    try:
        cursor.execute(f"PRAGMA {pragma}")
    finally:
        cursor.close()


def stored_dialogue() -> list[str]:
    """The user and assistant texts in the history database, in order."""
    with contextlib.closing(sqlite3.connect(paths.history_db())) as connection:
        rows = connection.execute("SELECT content FROM raw_messages WHERE role IN (2, 3) ORDER BY sequence")
        return [content for (content,) in rows]


def notices(sink: Collector, level: str) -> list[str]:
    return [notice.text for notice in sink.of(Notice) if notice.level == level]


def user_prompts(path: Path) -> list[str]:
    return [json.loads(line)["messages"][0]["data"]["content"] for line in path.read_text().splitlines()]


def sent_texts(model: ScriptedModel, request: int = -1) -> list[str]:
    texts = []
    for message in model.requests[request].messages:
        content = getattr(message, "content", "")
        texts.append(
            content if isinstance(content, str) else "".join(getattr(p, "text", "") for p in content)
        )
    return texts


async def test_a_full_disk_mid_turn_warns_keeps_the_context_and_resumes_writing(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project_dir / "notes.txt").write_text("the answer is 42\n")
    model = ScriptedModel(
        text_step("first answer"),
        tool_step("call-1", "read_file", {"path": "notes.txt"}),
        text_step("read it"),
        text_step("third answer"),
        text_step("fourth answer"),
    )
    host = await make_host(model)
    await host.run_turn("first", Collector())
    assert host.recorder is not None
    transcript = host.recorder.session_path(host.session_id)
    written_before = transcript.read_bytes()

    disk = FailingDisk(monkeypatch, host, "database or disk is full", errno.ENOSPC)
    disk.on = True
    during = Collector()
    assert (await host.run_turn("second: read notes.txt", during)).status == "completed"
    [warning] = notices(during, "warning")  # the transcript's own warning is folded into it
    assert "disk is full" in warning
    assert transcript.read_bytes() == written_before  # the half-written line was cut off again

    still = Collector()
    assert (await host.run_turn("third", still)).status == "completed"
    assert notices(still, "warning") == []  # one warning per outage
    assert "the answer is 42\n" in sent_texts(model)  # the model kept the turn it could not save
    assert store_of(host).waiting > 0 and host.recorder.unsaved == 2

    disk.on = False
    after = Collector()
    assert (await host.run_turn("fourth", after)).status == "completed"
    assert notices(after, "info") == [saved_again(paths.data_dir())]
    assert user_prompts(transcript) == ["first", "second: read notes.txt", "third", "fourth"]
    assert transcript.read_bytes().startswith(written_before)
    await host.aclose()

    later = ScriptedModel(text_step("fifth answer"))
    again = await make_host(later, session_id=host.session_id)
    await again.run_turn("fifth", Collector())
    await again.aclose()
    sent = sent_texts(later)
    for text in ("first", "first answer", "second: read notes.txt", "the answer is 42\n", "third", "fourth"):
        assert text in sent


async def test_a_read_only_data_folder_is_ridden_out(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_only = False
    host = await make_host(ScriptedModel(text_step("one"), text_step("two"), text_step("three")))

    def query_only(connection: Any) -> None:
        run_pragma(connection, f"query_only={int(read_only)}")  # SQLite then fails as on a read-only file

    await on_every_connection(store_of(host).storage, query_only)

    disk = FailingTranscript(monkeypatch, errno.EROFS)
    await host.run_turn("one", Collector())
    read_only = disk.on = True
    sink = Collector()
    assert (await host.run_turn("two", sink)).status == "completed"
    [warning] = notices(sink, "warning")
    assert "cannot write" in warning and "history.sqlite3" in warning
    read_only = disk.on = False
    sink = Collector()
    assert (await host.run_turn("three", sink)).status == "completed"
    assert notices(sink, "info") == [saved_again(paths.data_dir())]
    await host.aclose()
    assert host.recorder is not None
    assert user_prompts(host.recorder.session_path(host.session_id)) == ["one", "two", "three"]
    assert stored_dialogue() == ["one", "one", "two", "two", "three", "three"]  # in spite of the outage


async def test_a_locked_history_says_so_and_the_session_goes_on(project_dir: Path) -> None:
    model = ScriptedModel(text_step("one"), text_step("two"), text_step("three"))
    host = await make_host(model)
    store = store_of(host)
    await host.run_turn("one", Collector())
    other = sqlite3.connect(paths.history_db(), isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    sink = Collector()
    try:
        assert (await host.run_turn("two", sink)).status == "completed"
    finally:
        other.execute("ROLLBACK")
        other.close()
    [warning] = notices(sink, "warning")
    assert "is locked by another program" in warning and "kept in memory" in warning
    sink = Collector()
    assert (await host.run_turn("three", sink)).status == "completed"
    assert "one" in sent_texts(model) and "two" in sent_texts(model)
    assert notices(sink, "info") == [saved_again(paths.data_dir())]
    await host.aclose()
    assert store.waiting == 0
    assert stored_dialogue() == ["one", "one", "two", "two", "three", "three"]


async def test_a_damaged_history_is_set_aside_and_a_fresh_one_started(project_dir: Path) -> None:
    database = paths.history_db()
    paths.ensure_private_dir(database.parent)
    database.write_bytes(b"this is not a database " * 200)
    host = await make_host(ScriptedModel(text_step("fine")))
    sink = Collector()
    assert (await host.run_turn("hello", sink)).status == "completed"
    await host.aclose()
    [aside] = database.parent.glob("history.sqlite3.corrupt-*")
    assert aside.read_bytes().startswith(b"this is not a database")
    [warning] = notices(sink, "warning")
    assert str(aside) in warning and "new, empty history" in warning and "transcripts" in warning
    assert stored_dialogue() == ["hello", "fine"]
    assert host.recorder is not None and user_prompts(host.recorder.session_path(host.session_id)) == [
        "hello"
    ]


async def test_a_damaged_history_set_aside_is_said_as_soon_as_the_app_is_ready(project_dir: Path) -> None:
    from tests.ui_helpers import make_app, ready_app
    from tests.ui_helpers import notices as shown_notices

    database = paths.history_db()
    paths.ensure_private_dir(database.parent)
    database.write_bytes(b"this is not a database " * 200)
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(120, 40)):
        assert any("new, empty history" in text for text in shown_notices(app))


async def test_a_damaged_history_that_cannot_be_moved_stops_the_start_with_a_way_forward(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch, hosts: HostFactory
) -> None:
    database = paths.history_db()
    paths.ensure_private_dir(database.parent)
    database.write_bytes(b"garbage" * 1000)

    def refuse(*_args: Any) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(history_damage.os, "replace", refuse)
    with pytest.raises(HistoryUnavailableError) as raised:
        await hosts(ScriptedModel())  # the half-started host (its session lock) is closed at teardown
    sentence = describe_error(raised.value)
    assert "is damaged and could not be moved aside (Permission denied)" in sentence
    assert "Move or delete it, then start zett again" in sentence


async def test_a_history_folder_that_cannot_be_created_runs_the_session_in_memory(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(history_damage, "_prepare_private_file", refuse)
    monkeypatch.setattr(history_open, "_create_private_file", refuse)  # the file, before any connection
    model = ScriptedModel(text_step("one"), text_step("two"))
    host = await make_host(model)
    sink = Collector()
    assert (await host.run_turn("first", sink)).status == "completed"
    assert (await host.run_turn("second", sink)).status == "completed"
    await host.aclose()
    [warning] = notices(sink, "warning")
    assert "cannot write" in warning and "Permission denied" in warning
    assert sent_texts(model)[-3:] == ["first", "one", "second"]


async def test_a_really_full_database_keeps_messages_until_there_is_room(tmp_path: Path) -> None:
    """SQLite's own SQLITE_FULL (the file may not grow), not a simulated one."""
    limit = {"pages": 1_000_000}
    storage = SQLiteSessionStorage(tmp_path / "full.sqlite3")

    @event.listens_for(storage.engine.sync_engine, "connect")
    def cap(connection: Any, _record: Any) -> None:
        run_pragma(connection, f"max_page_count={limit['pages']}")

    said: list[tuple[str, str]] = []
    store = HistoryStore(
        storage, redact=Redactor(), notify=lambda text, level: said.append((level, text)), retry_seconds=0
    )
    try:
        assert await store.append("s", "r1", UserMessage(content="small")) == 1
        limit["pages"] = 1  # no more pages than the file has now
        big = UserMessage(content="x" * 200_000)
        assert await store.append("s", "r1", big) == 2
        assert store.fault == "full" and store.waiting == 1
        assert [m.content for m in (await store.load("s")).messages] == ["small", big.content]
        limit["pages"] = 1_000_000
        assert await store.append("s", "r2", UserMessage(content="after")) == 3
        assert store.waiting == 0 and store.fault is None
        records = await storage.list_raw_messages("s")
        assert [(r.sequence, len(r.message.content)) for r in records] == [(1, 5), (2, 200_000), (3, 5)]
        assert [level for level, _ in said] == ["warning", "info"]
        assert "disk is full" in said[0][1]
    finally:
        await store.close()


def test_storage_faults_are_told_apart_from_bugs() -> None:
    def wrapped(message: str) -> BaseException:
        return sqlalchemy.exc.OperationalError("INSERT", {}, sqlite3.OperationalError(message))

    assert storage_fault(wrapped("database or disk is full")) == "full"
    assert storage_fault(wrapped("attempt to write a readonly database")) == "read-only"
    assert storage_fault(wrapped("database is locked")) == "locked"
    assert storage_fault(sqlite3.DatabaseError("file is not a database")) == "damaged"
    assert storage_fault(OSError(errno.ENOSPC, "No space left on device")) == "full"
    assert storage_fault(OSError(errno.EROFS, "Read-only file system")) == "read-only"
    assert storage_fault(ValueError("Session parent cannot change after creation")) is None
    assert storage_fault(sqlite3.IntegrityError("UNIQUE constraint failed")) is None


async def test_a_transcript_line_that_cannot_be_written_never_fails_the_turn(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: an OSError in the JSONL extension's on_success failed the turn and lost its record."""
    host = await make_host(ScriptedModel(text_step("answer"), text_step("again")))

    def broken_open(_path: Path) -> int:
        raise PermissionError(errno.EACCES, "Permission denied")

    with monkeypatch.context() as patch:
        patch.setattr(paths, "open_private_append", broken_open)
        sink = Collector()
        finished = await host.run_turn("hello", sink)
    assert finished.status == "completed" and finished.answer == "answer"
    assert any("Permission denied" in text for text in notices(sink, "warning"))
    await host.run_turn("again", Collector())
    await host.aclose()
    assert host.recorder is not None
    assert user_prompts(host.recorder.session_path(host.session_id)) == ["hello", "again"]


# -- a provider that stops sending ----------------------------------------------------------------


async def stalling_host(server: FakeLLMServer, idle: float) -> AgentHost:
    from zett_agent.providers.openai import OpenAIProvider

    def build() -> OpenAIProvider:
        return OpenAIProvider(
            "gpt-test",
            api_key="sk-test-not-a-real-key-000000000000",
            base_url=server.openai_base_url,
            retry=RetryOptions(max_retries=0),
            timeout=TimeoutOptions(connect=5, first_byte=5, idle=idle),
        )

    host = AgentHost(HostOptions(model_factory=build, model_label="openai:gpt-test"))
    await host.start()
    return host


async def test_a_stalled_provider_ends_the_turn_with_a_clear_message(llm_server: FakeLLMServer) -> None:
    llm_server.script(Reply.stall(30, after_chunks=1), Reply.text("Back again."))
    host = await stalling_host(llm_server, idle=0.3)
    sink = Collector()
    finished = await host.run_turn("hello", sink)
    assert finished.status == "failed"
    assert finished.error is not None and "went silent for 0.3 seconds" in finished.error
    assert "try again" in finished.error
    assert (await host.run_turn("again", Collector())).answer == "Back again."
    await host.aclose()


async def test_a_stalled_provider_can_be_cancelled_at_once(llm_server: FakeLLMServer) -> None:
    llm_server.script(Reply.stall(60, after_chunks=1), Reply.text("Still here."))
    host = await stalling_host(llm_server, idle=120)
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("hello", sink))
    while not sink.of(TextChunk):
        await asyncio.sleep(0.01)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(turn, 10)
    assert sink.of(TurnFinished)[-1].status == "cancelled"
    assert (await host.run_turn("again", Collector())).answer == "Still here."
    await host.aclose()


def test_hosted_providers_give_up_on_silence_sooner_than_local_models() -> None:
    from zett_tui.providers.build import ModelChoice, build_model

    env = {"OPENAI_API_KEY": "sk-test-not-a-real-key-000000000000"}
    hosted: Any = build_model(ModelChoice("openai", "gpt-test"), {}, env)
    local: Any = build_model(ModelChoice("ollama", "qwen3"), {}, env)
    try:
        assert hosted.timeout == TimeoutOptions(connect=10, first_byte=60, idle=300)
        assert local.timeout == TimeoutOptions(connect=5, first_byte=600, idle=600)
    finally:
        asyncio.run(hosted.aclose())
        asyncio.run(local.aclose())


async def test_a_resumed_session_whose_history_was_set_aside_is_remembered_from_its_transcript(
    project_dir: Path,
) -> None:
    """Issue 12, item 6: with history.sqlite3 set aside, the model forgot every earlier turn."""
    gate = asyncio.Event()
    first = ScriptedModel(text_step("Paris."), text_step("Streamed then stopped", chunk=9, gate=gate))
    host = await make_host(first)
    assert (await host.run_turn("capital of France?", Collector())).status == "completed"
    sink = Collector()
    cancelled = asyncio.create_task(host.run_turn("and of Spain?", sink))
    await wait_until(lambda: bool(sink.text))
    cancelled.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await cancelled
    await host.aclose()
    database = paths.history_db()
    database.write_bytes(b"this is not a database " * 200)  # damaged: set aside at the next start

    later = ScriptedModel(text_step("Madrid."))
    resumed = await make_host(later, session_id=host.session_id)
    sink = Collector()
    try:
        assert (await resumed.run_turn("and Spain, again?", sink)).status == "completed"
    finally:
        await resumed.aclose()
    from zett_agent.messages import SystemMessage

    sent = [str(m.content) for m in later.requests[0].messages if not isinstance(m, SystemMessage)]
    # the cancelled turn's prompt is remembered; its partial answer was never in the history
    assert sent == ["capital of France?", "Paris.", "and of Spain?", "and Spain, again?"]
    infos = notices(sink, "info")
    assert any("rebuilt from its transcript (2 turns)" in text for text in infos), infos
    assert list(database.parent.glob("history.sqlite3.corrupt-*"))
