"""``todo_write``: the model's checklist, replaced whole each call, kept across turns and on resume."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from zett_tui.runtime.events import TodoChanged, ToolFinished
from zett_tui.runtime.todo import TodoItem, parse_todos, summary

THREE = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]


async def test_a_write_replaces_the_list_and_tells_the_ui_without_another_request(
    project_dir: Path, hosts: HostFactory
) -> None:
    model = ScriptedModel(tool_step("t1", "todo_write", {"todos": THREE}), text_step("working"))
    host = await hosts(model)
    sink = Collector()
    await host.run_turn("do it", sink)

    [changed] = sink.of(TodoChanged)
    assert [item.status for item in changed.items] == ["completed", "in_progress", "pending"]
    assert changed.items[1].label == "Fixing the bug"  # the step in progress by its activeForm
    assert host.todos.items == changed.items
    assert len(model.requests) == 2  # the tool call and the answer after it: nothing more
    assert last_tool_result(model.requests[1]) == "3 tasks: 1 done, 1 in progress, 1 pending"


async def test_the_list_is_kept_across_turns_and_the_model_can_drop_items(
    project_dir: Path, hosts: HostFactory
) -> None:
    shorter = [{"content": "Ship it", "status": "in_progress", "activeForm": "Shipping it"}]
    model = ScriptedModel(
        tool_step("t1", "todo_write", {"todos": THREE}),
        text_step("one"),
        text_step("two"),
        tool_step("t2", "todo_write", {"todos": shorter}),
        text_step("three"),
    )
    host = await hosts(model)
    await host.run_turn("first", Collector())
    await host.run_turn("second", Collector())
    assert len(host.todos.items) == 3
    await host.run_turn("third", Collector())
    assert host.todos.items == (TodoItem("Ship it", "in_progress", "Shipping it"),)


async def test_a_bad_list_fails_the_call_and_keeps_the_old_one(project_dir: Path, hosts: HostFactory) -> None:
    bad = [{"content": "x", "status": "doing", "activeForm": "x"}]
    model = ScriptedModel(
        tool_step("t1", "todo_write", {"todos": THREE}),
        tool_step("t2", "todo_write", {"todos": bad}),
        text_step("ok"),
    )
    host = await hosts(model)
    sink = Collector()
    await host.run_turn("go", sink)
    states = [event.state for event in sink.of(ToolFinished)]
    assert states == ["done", "failed"]
    assert "status must be one of" in last_tool_result(model.requests[2])
    assert len(host.todos.items) == 3


async def test_resume_gets_the_list_back_and_todo_clear_is_remembered(
    project_dir: Path, hosts: HostFactory
) -> None:
    model = ScriptedModel(tool_step("t1", "todo_write", {"todos": THREE}), text_step("ok"))
    host = await hosts(model)
    await host.run_turn("go", Collector())
    await host.aclose()

    resumed = await hosts(ScriptedModel(text_step("again")), session_id=host.session_id)
    assert [item.content for item in resumed.todos.items] == ["Read the code", "Fix the bug", "Run the tests"]
    assert await resumed.clear_todos()
    await resumed.run_turn("more", Collector())
    await resumed.aclose()

    again = await hosts(ScriptedModel(), session_id=host.session_id)
    assert again.todos.items == ()


async def test_todo_clear_is_in_the_session_file_at_once_and_a_quit_right_after_keeps_it(
    project_dir: Path, hosts: HostFactory
) -> None:
    from zett_tui.sessions.index import SessionIndex
    from zett_tui.sessions.reader import ReadNotices
    from zett_tui.sessions.recorded_turns import load_transcript
    from zett_tui.sessions.todo_state import recorded_todos

    model = ScriptedModel(tool_step("t1", "todo_write", {"todos": THREE}), text_step("ok"))
    host = await hosts(model)
    await host.run_turn("go", Collector())
    assert host.files is not None
    transcript = host.files.transcript
    assert await host.clear_todos()
    assert recorded_todos(transcript) == ()  # on disk now, before any other turn
    await host.aclose()  # quit right after: no turn carries it

    again = await hosts(ScriptedModel(), session_id=host.session_id)
    assert again.todos.items == ()
    # the line is not a turn: the transcript, the index and the context know nothing of it
    assert [turn.prompt for turn in load_transcript(transcript, ReadNotices())] == ["go"]
    [summary] = SessionIndex(transcript.parent).list_sessions()
    assert summary.turns == 1
    assert not again.rewound.marked  # and it is no rewind


async def test_a_todo_clear_keeps_the_turns_a_rewind_hid_before_marks_were_written(
    project_dir: Path, hosts: HostFactory
) -> None:
    from zett_tui.sessions.rewind_marks import RewoundTurns

    turns = RewoundTurns()
    turns.apply({"rewound": [], "restored": []})  # what /todo clear's line reads as
    assert turns.hidden(lambda: {"old-request"}) == {"old-request"}


def test_parse_rejects_what_is_not_a_checklist() -> None:
    for bad in (None, "x", [1], [{"content": "", "status": "pending"}], [{"content": "a", "status": "x"}]):
        try:
            parse_todos(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad!r}")
    assert summary(()) == "Checklist cleared."


async def test_resume_skips_a_failed_write(project_dir: Path, hosts: HostFactory) -> None:
    bad = [{"content": "x", "status": "doing", "activeForm": "x"}]
    model = ScriptedModel(
        tool_step("t1", "todo_write", {"todos": THREE}),
        tool_step("t2", "todo_write", {"todos": bad}),
        text_step("ok"),
    )
    host = await hosts(model)
    await host.run_turn("go", Collector())
    await host.aclose()
    resumed = await hosts(ScriptedModel(), session_id=host.session_id)
    assert len(resumed.todos.items) == 3


async def test_todo_clear_while_the_turn_runs_is_not_undone_by_that_turn_line(
    project_dir: Path, hosts: HostFactory
) -> None:
    import asyncio

    from tests.fakes.host import wait_until

    gate = asyncio.Event()
    model = ScriptedModel(
        tool_step("t1", "todo_write", {"todos": THREE}),
        text_step("still working on it", gate=gate),
    )
    host = await hosts(model)
    sink = Collector()
    turn = asyncio.ensure_future(host.run_turn("go", sink))
    await wait_until(lambda: len(host.todos.items) == 3 and bool(sink.text))
    assert await host.clear_todos()  # typed while the turn still streams
    gate.set()
    await asyncio.wait_for(turn, 10)
    await host.aclose()

    again = await hosts(ScriptedModel(), session_id=host.session_id)
    assert again.todos.items == ()  # the turn's line came after the clear, with the earlier write
