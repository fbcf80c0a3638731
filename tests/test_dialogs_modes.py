"""Permission modes (Shift+Tab, /mode, /plan), saved rules (/permissions), and the dialog queue's
edges: cancelling with dialogs open and queued, a duplicate answer, the bell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step, tools_step
from tests.test_dialogs import PLAN_V1, dialog_closed, host_of, open_dialog, shown
from tests.ui_helpers import idle, make_app, notices, ready_app, submit, tools, wait_for, wait_ready
from zett_tui.runtime.modes import PermissionMode
from zett_tui.ui.modals.choice_dialog import ChoiceDialog
from zett_tui.ui.modals.plan_dialogs import PlanReviewDialog


async def test_shift_tab_cycles_the_modes_and_auto_still_asks_for_a_recursive_delete(
    project_dir: Path,
) -> None:
    (project_dir / "build").mkdir()
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": "echo harmless > h.txt"}),
        tool_step("c2", "bash", {"command": "rm -rf build"}),
        text_step("Done."),
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        chat = app.chat
        assert chat.focused is chat.composer and chat.status.permission_mode == "ask"
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")  # from the composer: it must not move the focus
            seen.append(host_of(app).mode)
        assert seen == [PermissionMode.ACCEPT_EDITS, PermissionMode.PLAN, PermissionMode.AUTO]
        assert chat.focused is chat.composer
        assert chat.status.permission_mode == "auto" and "⚠ auto" in shown(app)
        assert not host_of(app).plan_guard.is_active(host_of(app).session_id)  # left Plan Mode on the way

        await submit(pilot, "clean up")
        dialog = await open_dialog(pilot)  # the harmless command ran without one
        assert (project_dir / "h.txt").read_text() == "harmless\n"
        assert "rm -rf build" in shown(app) and "deletes recursively" in shown(app)
        await pilot.press("escape")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app))
        assert (project_dir / "build").is_dir()
        assert any("Ran without asking: allowed by auto mode" in text for text in notices(app))

        await pilot.press("shift+tab")
        assert host_of(app).mode is PermissionMode.ASK and "│  ask  │" in shown(app)


async def test_mode_command_sets_and_explains(project_dir: Path) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await submit(pilot, "/mode accept-edits")
        assert host_of(app).mode is PermissionMode.ACCEPT_EDITS
        assert "✎ accept edits" in shown(app)
        await submit(pilot, "/mode")
        assert "Permission mode: accept-edits" in notices(app)[-1]
        await submit(pilot, "/mode yolo")
        assert "There is no mode 'yolo'" in notices(app)[-1]
        assert host_of(app).mode is PermissionMode.ACCEPT_EDITS


async def test_plan_command_switches_plan_mode_and_shows_the_kept_plan(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("x1", "exit_plan_mode", {"plan": PLAN_V1}), text_step("On it."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "/plan")
        assert "There is no kept plan in this session" in notices(app)[-1]
        await submit(pilot, "/plan on")
        host = host_of(app)
        assert host.mode is PermissionMode.PLAN and host.plan_guard.is_active(host.session_id)
        assert "plan mode" in shown(app)

        await submit(pilot, "plan it")
        await open_dialog(pilot, PlanReviewDialog)
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert host.mode is PermissionMode.ASK and app.chat.status.permission_mode == "ask"

        await submit(pilot, "/plan")
        viewer = await open_dialog(pilot)
        assert "The kept plan" in shown(app) and "Rewrite everything." in shown(app)
        await pilot.press("escape")
        await dialog_closed(pilot, viewer)

        await submit(pilot, "/plan on")
        await submit(pilot, "/plan off")
        assert host.mode is PermissionMode.ASK and not host.plan_guard.is_active(host.session_id)


async def test_permissions_lists_and_removes_saved_rules(command_host: Any) -> None:
    chat = await command_host(ScriptedModel())
    rules = chat.host.shell_rules
    rules.add("prefix", "pytest")
    rules.add("exact", "git diff --stat")
    [listing] = await chat.command("/permissions")
    assert "1. starts with  pytest" in listing and "2. exactly     git diff --stat" in listing
    [removed] = await chat.command("/rules rm 1")
    assert "Removed the rule for commands that start with `pytest`" in removed
    assert [rule.command for rule in rules.rules()] == ["git diff --stat"]
    [refused] = await chat.command("/permissions rm 5")
    assert "Give the number of a rule from /permissions (1 to 1)" in refused


async def test_cancelling_closes_the_open_dialog_and_drops_the_queued_ones() -> None:
    calls = [("a", "bash", {"command": "echo one"}), ("b", "bash", {"command": "echo two"})]
    model = ScriptedModel(tools_step(calls), text_step("next turn"))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "two commands")
        await open_dialog(pilot)
        await wait_for(pilot, lambda: len(app.chat.dialogs.pending) == 1)  # the second one waits its turn
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.chat.turns.busy)
        assert not isinstance(app.screen, ChoiceDialog)
        assert not app.chat.dialogs.pending and app.chat.dialogs.open is None
        assert [row.state for row in tools(app)] == ["cancelled", "cancelled"]
        await submit(pilot, "again")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 2)


async def test_cancelling_while_editing_a_plan_closes_it() -> None:
    model = ScriptedModel(
        tool_step("p1", "enter_plan_mode", {"reason": "Big."}),
        tool_step("x1", "exit_plan_mode", {"plan": PLAN_V1}),
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "plan")
        await open_dialog(pilot)
        await pilot.press("enter")
        review = await open_dialog(pilot, PlanReviewDialog)
        await pilot.press("3")
        assert review.focused is review.editor
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.chat.turns.busy)
        assert app.screen is app.chat
        assert host_of(app).mode is PermissionMode.PLAN  # nothing was answered


async def test_a_duplicate_answer_is_ignored() -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "echo once"}), text_step("Ran."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "run")
        await open_dialog(pilot)
        decision = app.chat.dialogs.current
        assert decision is not None and decision.payload["command"] == "echo once"
        # Another answer gets there first; the dialog's own answer is then a duplicate.
        host = host_of(app)
        assert host.answer(decision, {"tool_call_id": "c1", "decision": "execute"})
        await pilot.press("3")  # the user says no, too late: no error, no record of a refusal
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert tools(app)[0].state == "done" and "once" in last_tool_result(model.requests[1])
        assert not any("You refused" in text for text in notices(app))


async def test_the_bell_rings_when_a_dialog_opens() -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "echo hi"}), text_step("Ran."))
    app = make_app(model, bell=True)
    rings: list[int] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
        await wait_ready(pilot)
        await submit(pilot, "run")
        await open_dialog(pilot)
        assert rings == [1]
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
