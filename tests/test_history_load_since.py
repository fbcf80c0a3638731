"""The history's load reads only the rows stored since the last one (``runtime.history_since``),
and gives what reading the whole dialogue gives: after turns, tool batches, compaction, rewinds, a
resume, another writer, a failing disk."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
from zett_agent.extensions.compaction import CompactedMessage
from zett_agent.extensions.persistence import SessionView
from zett_agent.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from zett_agent.storage import SQLiteSessionStorage

from tests.fakes.host import host_options
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from zett_tui.core.redact import Redactor
from zett_tui.runtime.history_open import history_database
from zett_tui.runtime.history_store import HistoryStore
from zett_tui.runtime.host import AgentHost


class Reads:
    """Counts what a storage is asked to read: whole loads, and the rows each page returns."""

    def __init__(self, storage: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.whole: list[str] = []
        self.pages: list[list[int]] = []
        load, pages = storage.load, storage.list_raw_messages

        async def counted_load(session_id: str) -> SessionView:
            self.whole.append(session_id)
            return await load(session_id)

        async def counted_pages(session_id: str, **kwargs: Any) -> Any:
            page = await pages(session_id, **kwargs)
            self.pages.append([record.sequence for record in page])
            return page

        monkeypatch.setattr(storage, "load", counted_load)
        monkeypatch.setattr(storage, "list_raw_messages", counted_pages)


async def turn(store: HistoryStore, number: int, *, session: str = "s") -> SessionView:
    """A request as the runtime makes one: the history loaded, then its system messages and the
    dialogue appended (a tool batch every third turn)."""
    view = await store.load(session)
    request = f"r{number}"
    await store.append(session, request, SystemMessage(content="You are zett. " * 20))
    await store.append(session, request, UserMessage(content=f"question {number}"))
    if number % 3 == 0:
        call = ToolCall(id=f"c{number}", name="read_file", arguments={"path": f"f{number}.py"})
        await store.append(session, request, AssistantMessage(content="", tool_calls=(call,)))
        await store.append(session, request, ToolMessage(tool_call_id=call.id, name=call.name, content="x"))
    await store.append(session, request, AssistantMessage(content=f"answer {number}"))
    return view


def as_loaded(view: SessionView) -> dict[str, Any]:
    """Everything of a view a reader of the history sees, the records as stored (ids included),
    without the stored system messages no request restores."""
    kept = [
        record
        for record in view.raw_tail
        if not isinstance(record.message, SystemMessage) or record.message.include_in_messages
    ]
    return view.model_copy(update={"raw_tail": kept}).model_dump()


async def whole_load(path: Path, session: str = "s", hidden: frozenset[str] = frozenset()) -> SessionView:
    """The view a store that never read the session gives: the whole dialogue, read once."""
    other = HistoryStore(history_database(path), redact=Redactor())
    other.hidden_requests = lambda session_id: hidden
    try:
        return await other.load(session)
    finally:
        await other.close()


async def test_a_load_reads_only_the_rows_stored_since_the_last_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = history_database(tmp_path / "h.sqlite3")
    store = HistoryStore(storage, redact=Redactor())
    reads = Reads(storage, monkeypatch)
    try:
        for number in range(12):
            await turn(store, number)
        view = await store.load("s")
        assert reads.whole == ["s"]  # the first load only; the other 12 read what followed it
        # each read gave the rows the turn before stored (3, or 5 with a tool batch), no more
        assert [len(page) for page in reads.pages] == [5, 3, 3] * 4
        last = 0
        for page in reads.pages:
            assert page == list(range(last + 1, last + len(page) + 1))
            last = page[-1]
        assert len(view.raw_tail) == 2 * 12 + 2 * 4
    finally:
        monkeypatch.undo()
        await store.close()
    assert as_loaded(view) == as_loaded(await whole_load(tmp_path / "h.sqlite3"))


async def test_the_load_since_gives_what_a_whole_load_gives_through_compaction_and_rewinds(
    tmp_path: Path,
) -> None:
    path = tmp_path / "h.sqlite3"
    store = HistoryStore(history_database(path), redact=Redactor())
    hidden: frozenset[str] = frozenset()
    store.hidden_requests = lambda session_id: hidden
    try:
        for number in range(6):
            await turn(store, number)
            assert as_loaded(await store.load("s")) == as_loaded(await whole_load(path, hidden=hidden))
        # a compaction of the first turns, as the runtime stores it
        await store.snapshot("s", CompactedMessage(content="summary of 0-2"), 16, 0)
        for number in range(6, 9):
            await turn(store, number)
            assert as_loaded(await store.load("s")) == as_loaded(await whole_load(path, hidden=hidden))
        hidden = frozenset({"r7", "r1"})  # a rewind: one turn after the summary, one in it
        assert as_loaded(await store.load("s")) == as_loaded(await whole_load(path, hidden=hidden))
        await turn(store, 9)
        hidden = frozenset()  # put back
        loaded = await store.load("s")
        assert as_loaded(loaded) == as_loaded(await whole_load(path))
        assert loaded.snapshot is not None and loaded.snapshot.compacted_message.content == "summary of 0-2"
        # a second compaction, then the turns after it
        await store.snapshot("s", CompactedMessage(content="summary of 0-7"), 37, loaded.snapshot.version)
        await turn(store, 10)
        assert as_loaded(await store.load("s")) == as_loaded(await whole_load(path))
    finally:
        await store.close()


async def test_what_another_writer_stored_is_read_whole(tmp_path: Path) -> None:
    """A session this store read before and another zett wrote since (it had it open meanwhile):
    its rows, its compaction and its deletion are all seen."""
    path = tmp_path / "h.sqlite3"
    store = HistoryStore(history_database(path), redact=Redactor())
    other = SQLiteSessionStorage(path)  # an older zett: zett-agent's storage
    try:
        for number in range(3):
            await turn(store, number)
        await store.load("s")
        await other.append("s", "elsewhere", UserMessage(content="from the other zett"))
        await other.append("s", "elsewhere", AssistantMessage(content="its answer"))
        view = await store.load("s")
        assert [record.message.content for record in view.raw_tail][-2:] == [
            "from the other zett",
            "its answer",
        ]
        assert as_loaded(view) == as_loaded(await whole_load(path))

        await other.snapshot("s", CompactedMessage(content="their summary"), 9, 0)
        view = await store.load("s")
        assert view.snapshot is not None and view.snapshot.compacted_message.content == "their summary"
        assert as_loaded(view) == as_loaded(await whole_load(path))

        await other.delete_session("s")
        await other.append("s", "anew", UserMessage(content="a new session of the same id"))
        view = await store.load("s")
        assert [record.message.content for record in view.raw_tail] == ["a new session of the same id"]
        await other.delete_session("s")
        view = await store.load("s")
        assert view.raw_tail == [] and view.snapshot is None

        for number in range(3):  # a session with no summary, deleted and started again elsewhere
            await turn(store, number, session="t")
        await store.load("t")
        await other.delete_session("t")
        await other.append("t", "anew", UserMessage(content="the other zett's first turn"))
        view = await store.load("t")
        assert [record.message.content for record in view.raw_tail] == ["the other zett's first turn"]
    finally:
        await other.close()
        await store.close()


async def test_a_failing_read_of_the_new_rows_serves_the_memory_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = history_database(tmp_path / "h.sqlite3")
    notes: list[tuple[str, str]] = []
    store = HistoryStore(storage, redact=Redactor(), notify=lambda text, level: notes.append((level, text)))
    try:
        for number in range(3):
            await turn(store, number)
        expected = as_loaded(await whole_load(tmp_path / "h.sqlite3"))

        async def unreadable(*args: Any, **kwargs: Any) -> Any:
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(storage, "list_raw_messages", unreadable)
        monkeypatch.setattr(storage, "load", unreadable)
        view = await store.load("s")
        contents = [record.message.content for record in view.raw_tail]
        assert contents == [record["message"]["content"] for record in expected["raw_tail"]]
        assert [level for level, _ in notes] == ["warning"]
    finally:
        monkeypatch.undo()
        await store.close()


async def test_a_storage_that_cannot_read_its_latest_snapshot_alone_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """zett-agent's own storage has no ``latest_snapshot_id``: every load reads the whole dialogue."""
    storage = SQLiteSessionStorage(tmp_path / "h.sqlite3")
    assert not hasattr(storage, "latest_snapshot_id")
    store = HistoryStore(storage, redact=Redactor())
    reads = Reads(storage, monkeypatch)
    try:
        for number in range(3):
            await turn(store, number)
        view = await store.load("s")
        assert reads.whole == ["s"] * 4  # as before: every load reads the whole dialogue
    finally:
        monkeypatch.undo()
        await store.close()
    assert as_loaded(view) == as_loaded(await whole_load(tmp_path / "h.sqlite3"))


# -- the runtime over it --------------------------------------------------------------------------


def dialogue(request: Any) -> list[Any]:
    return [message for message in request.messages if not isinstance(message, SystemMessage)]


async def test_a_session_s_requests_carry_what_a_resumed_session_s_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes.txt").write_text("one line\n")
    monkeypatch.chdir(tmp_path)
    steps = [
        text_step("first answer"),
        tool_step("c1", "read_file", {"path": "notes.txt"}),
        text_step("read it"),
    ]
    model = ScriptedModel(*steps, text_step("third answer"), text_step("fourth answer"))
    host = AgentHost(host_options(tmp_path, model))
    await host.start()
    try:
        history = host.files.history.storage  # type: ignore[union-attr]
        reads = Reads(history.storage, monkeypatch)
        for prompt in ("first", "second", "third", "fourth"):
            finished = await host.run_turn(prompt, lambda event: None)
            assert finished.status == "completed"
        assert len(reads.whole) <= 1  # the session's first request; the others read what followed
    finally:
        await host.aclose()
    continued = dialogue(model.requests[-1])
    assert [getattr(message, "content", None) for message in continued][-2:] == ["third answer", "fourth"]

    later = ScriptedModel(text_step("again"))
    resumed = AgentHost(host_options(tmp_path, later, session_id=host.session_id))
    await resumed.start()
    try:
        await resumed.run_turn("fourth", lambda event: None)
    finally:
        await resumed.aclose()
    # the resumed session's request: the same dialogue read whole, up to its own new prompt
    assert dialogue(later.requests[0])[: len(continued)] == continued


async def test_a_message_appended_while_the_new_rows_are_read_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The context estimate can load while a turn appends: what lands after the rows were read
    stays in the copy, after them, and the next load has it as the database does."""
    path = tmp_path / "h.sqlite3"
    storage = history_database(path)
    store = HistoryStore(storage, redact=Redactor())
    pages = storage.list_raw_messages
    try:
        for number in range(3):
            await turn(store, number)

        async def appended_meanwhile(session_id: str, **kwargs: Any) -> Any:
            page = await pages(session_id, **kwargs)
            monkeypatch.setattr(storage, "list_raw_messages", pages)
            await store.append(session_id, "r3", UserMessage(content="typed meanwhile"))
            return page

        monkeypatch.setattr(storage, "list_raw_messages", appended_meanwhile)
        view = await store.load("s")
        assert [record.message.content for record in view.raw_tail][-2:] == ["answer 2", "typed meanwhile"]
        assert as_loaded(await store.load("s")) == as_loaded(await whole_load(path))
    finally:
        monkeypatch.undo()
        await store.close()
