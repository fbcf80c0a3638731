"""The checklist on screen: pinned above the prompt with its three states while the turn streams,
in the transcript where it changed, and again after resume."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_todo import THREE
from tests.ui_helpers import blocks_of, idle, make_app, ready_app, screen_text, submit, wait_for
from zett_tui.entry.startup import find_session_to_resume
from zett_tui.ui.widgets.todo_panel import TodoBlock, TodoPanel


async def test_the_checklist_is_pinned_while_the_turn_streams_and_shown_after_resume(
    project_dir: Path,
) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(
        tool_step("t1", "todo_write", {"todos": THREE}), text_step("still going on", gate=gate)
    )
    app = make_app(model)
    async with ready_app(app, size=(100, 30)) as pilot:
        await submit(pilot, "fix it")
        panel = app.screen.query_one(TodoPanel)
        await wait_for(pilot, lambda: panel.has_class("-listing"))
        await wait_for(pilot, lambda: "still" in screen_text(app))  # the answer streams meanwhile
        text = screen_text(app)
        assert "✓ Read the code" in text
        assert "▶ Fixing the bug" in text  # the step in progress by its activeForm
        assert "○ Run the tests" in text
        [line_done, *_] = panel.lines()
        assert any(span.style.strike for span in line_done.spans if hasattr(span.style, "strike"))
        gate.set()
        await wait_for(pilot, lambda: idle(app))
        assert not panel.has_class("-listing")  # pinned while a turn runs only
        [block] = blocks_of(app, TodoBlock)
        assert [item.status for item in block.items] == ["completed", "in_progress", "pending"]
        session_id = app.screen.host.session_id

    found = find_session_to_resume(project_dir, session_id, continue_last=False)
    resumed = make_app(ScriptedModel(text_step("next")), session_id=found.session_id, resume_path=found.path)
    async with ready_app(resumed, size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: bool(blocks_of(resumed, TodoBlock)))
        await submit(pilot, "go on")
        panel = resumed.screen.query_one(TodoPanel)
        await wait_for(pilot, lambda: idle(resumed))
        assert [item.label for item in panel.items] == ["Read the code", "Fixing the bug", "Run the tests"]


async def test_a_list_all_done_is_not_pinned_over_later_turns() -> None:
    done = [{**item, "status": "completed"} for item in THREE]
    gate = asyncio.Event()
    model = ScriptedModel(
        tool_step("t1", "todo_write", {"todos": THREE}),
        tool_step("t2", "todo_write", {"todos": done}),
        text_step("all done"),
        text_step("going on now", gate=gate),
    )
    app = make_app(model)
    async with ready_app(app, size=(100, 30)) as pilot:
        panel = app.screen.query_one(TodoPanel)
        await submit(pilot, "fix it")  # (pinned while it had steps left: the test above)
        await wait_for(pilot, lambda: idle(app))
        await submit(pilot, "what now?")
        await wait_for(pilot, lambda: "going on" in screen_text(app))
        assert not panel.has_class("-listing")  # the next turn runs with the list all done
        gate.set()
        await wait_for(pilot, lambda: idle(app))
        assert [item.status for item in panel.items] == ["completed"] * 3  # kept, for /todo


def test_a_long_list_shows_a_window_and_a_count() -> None:
    from zett_tui.runtime.todo import TodoItem
    from zett_tui.ui.widgets.todo_panel import pinned_items

    items = [TodoItem(f"step {n}", "completed" if n < 7 else "pending") for n in range(12)]
    items[7] = TodoItem("step 7", "in_progress", "doing 7")
    shown, left_out = pinned_items(items)
    assert [item.content for item in shown] == ["step 6", "step 7", "step 8", "step 9", "step 10"]
    assert left_out == 7
