"""The history's memory copy (``HistoryStore``): the whole dialogue when the database cannot be read,
kept packed, not as a second set of decoded records growing with every turn."""

from __future__ import annotations

import asyncio
import errno
import gc
from pathlib import Path
from typing import Any

import pytest
from zett_agent.extensions.persistence import RawMessageRecord
from zett_agent.messages import AssistantMessage, SystemMessage, UserMessage

from zett_tui.core.redact import Redactor
from zett_tui.runtime import packed_records
from zett_tui.runtime.history_open import history_database
from zett_tui.runtime.history_store import HistoryStore
from zett_tui.runtime.packed_records import PackedRecords


def live_records() -> int:
    gc.collect()
    return sum(1 for item in gc.get_objects() if isinstance(item, RawMessageRecord))


async def turns(store: HistoryStore, count: int) -> None:
    """``count`` turns as the runtime makes them: the dialogue loaded, then two messages appended."""
    for number in range(count):
        await store.load("s")
        await store.append("s", f"r{number}", UserMessage(content=f"question {number}"))
        await store.append("s", f"r{number}", AssistantMessage(content=f"answer {number}"))


def unreadable(storage: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every read of ``storage`` fails as a dying disk's would (a load reads the whole dialogue, or
    only the rows since the last one: ``runtime.history_since``)."""

    async def failing(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EIO, "Input/output error")

    for read in ("load", "list_raw_messages", "get_session"):
        monkeypatch.setattr(storage, read, failing)


def contents(view: Any) -> list[str]:
    return [record.message.content for record in view.raw_tail]


async def test_the_memory_copy_keeps_no_decoded_record_between_turns(tmp_path: Path) -> None:
    before = live_records()  # what earlier tests in this process may still hold
    store = HistoryStore(history_database(tmp_path / "h.sqlite3"), redact=Redactor())
    try:
        await turns(store, 40)
        view = await store.load("s")
        assert len(view.raw_tail) == 80
        del view
        # the loop's step that resumed this test holds the last worker thread's result (the page
        # of new rows) until the test yields, and the worker thread until it is back at its queue
        # (it can be paused by the GIL just after handing the result over): what outlives a turn
        # is what this counts
        for _ in range(20):
            await asyncio.sleep(0.02)
            if live_records() <= before:
                break
        assert live_records() <= before  # decoded, this copy held all 80
    finally:
        await store.close()


async def test_the_memory_copy_serves_the_whole_dialogue_when_the_database_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = history_database(tmp_path / "h.sqlite3")
    store = HistoryStore(storage, redact=Redactor())
    try:
        await turns(store, 3)
        await store.append("s", "r3", UserMessage(content="after the last load"))

        unreadable(storage, monkeypatch)
        view = await store.load("s")
        expected = [text for n in range(3) for text in (f"question {n}", f"answer {n}")]
        assert contents(view) == [*expected, "after the last load"]
        assert [record.sequence for record in view.raw_tail] == list(range(1, 8))
        assert contents(await store.load("s")) == contents(view)  # unpacked anew, still whole
    finally:
        monkeypatch.undo()
        await store.close()


async def test_a_record_read_again_is_not_packed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = HistoryStore(history_database(tmp_path / "h.sqlite3"), redact=Redactor())
    try:
        await turns(store, 5)
        packed: list[RawMessageRecord] = []
        dumps = packed_records.pickle.dumps

        def counted(record: RawMessageRecord, protocol: int) -> bytes:
            packed.append(record)
            return dumps(record, protocol)

        monkeypatch.setattr(packed_records.pickle, "dumps", counted)
        await turns(store, 1)  # loads the 10 records there were
        # only the two appended since the last load are packed again (the database gave them their ids)
        assert [record.message.content for record in packed] == [
            "question 4",
            "answer 4",
            "question 0",
            "answer 0",
        ]
    finally:
        monkeypatch.undo()
        await store.close()


async def test_packed_records_unpack_equal_in_order_and_forget_what_a_compaction_summarised(
    tmp_path: Path,
) -> None:
    storage = history_database(tmp_path / "h.sqlite3")
    try:
        for number in range(4):
            await storage.append("s", "r", UserMessage(content=f"m{number}"))
        records = await storage.list_raw_messages("s")
        packed = PackedRecords(records[:3])
        packed.append(records[3])
        assert packed.unpack() == records and len(packed) == 4 and packed.last_sequence == 4
        again = PackedRecords(records, reuse=packed)
        assert again.unpack() == records
        packed.keep_after(2)
        assert packed.unpack() == records[2:] and packed.last_sequence == 4
        packed.keep_after(4)
        assert packed.unpack() == [] and packed.last_sequence == 0
    finally:
        await storage.close()


async def test_the_memory_copy_keeps_no_system_message_and_still_serves_the_dialogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each request stores zett's system messages again; none is ever restored, so the copy for an
    unreadable database keeps none of them (they were most of it), and counts their sequences."""
    storage = history_database(tmp_path / "h.sqlite3")
    store = HistoryStore(storage, redact=Redactor())
    try:
        for number in range(40):
            await store.load("s")
            await store.append("s", f"r{number}", SystemMessage(content="You are zett. " * 40))
            await store.append("s", f"r{number}", UserMessage(content=f"question {number}"))
            await store.append("s", f"r{number}", AssistantMessage(content=f"answer {number}"))
            await store.append("s", f"r{number}", SystemMessage(content="# Tool snippets " * 40))
        await store.load("s")
        known = store._known["s"]
        assert len(known.records) == 80  # the dialogue only: 160 records were stored
        assert known.last_sequence == 160

        unreadable(storage, monkeypatch)
        view = await store.load("s")
        assert contents(view) == [text for n in range(40) for text in (f"question {n}", f"answer {n}")]
        assert await store.append("s", "r40", UserMessage(content="while unreadable")) == 161
    finally:
        monkeypatch.undo()
        await store.close()
