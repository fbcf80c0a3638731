"""The safe choice of a dangerous command or edit: the dialog opens on "Don't run"/"Don't apply", and
its number keys are off (an ordinary edit keeps them).

These tests answer a dialog once it takes keys; they do not time keys against its opening, so they
run with the tests' short arming delay in the parallel pass (``tests/test_dialog_arming.py`` holds
the tests of arming itself, with the real delay).
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_dialog_arming import answered, focused_value, keys_line
from tests.test_dialogs import shown
from tests.ui_helpers import dialog_armed, idle, make_app, ready_app, submit, wait_for
from zett_tui.ui.modals.edit_approval import REJECT
from zett_tui.ui.modals.shell_approval import DONT_RUN, RUN


async def test_a_dangerous_command_opens_on_dont_run_and_enter_refuses(project_dir: Path) -> None:
    victim = project_dir / "build" / "keep.txt"
    victim.parent.mkdir()
    victim.write_text("keep\n")
    model = ScriptedModel(tool_step("c1", "bash", {"command": "rm -rf build"}), text_step("Kept."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "clean up")
        dialog = await dialog_armed(pilot)
        text = shown(app)
        assert "Dangerous" in text and "1. Run once" not in text and "Run once" in text
        assert "1-9" not in keys_line(dialog)
        assert focused_value(dialog) == DONT_RUN
        await pilot.press("enter")  # "Don't run…": its optional note
        assert dialog.focused is dialog.query_one("#note-input", Input)
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert answered(app) == ["✗ You refused: rm -rf build"]
    assert victim.read_text() == "keep\n"


async def test_number_keys_do_not_run_a_dangerous_command_arrow_and_enter_do(project_dir: Path) -> None:
    victim = project_dir / "build" / "keep.txt"
    victim.parent.mkdir()
    victim.write_text("keep\n")
    model = ScriptedModel(tool_step("c1", "bash", {"command": "rm -rf build"}), text_step("Done."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "clean up")
        dialog = await dialog_armed(pilot)
        await pilot.press("1", "2", "3", "4", "9")
        assert app.screen is dialog and focused_value(dialog) == DONT_RUN
        assert victim.exists() and answered(app) == []
        for _ in range(len(dialog.root.choices)):  # the deliberate way: move to "Run once", Enter
            if focused_value(dialog) == RUN:
                break
            await pilot.press("up")
        assert focused_value(dialog) == RUN
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert answered(app) == ["✓ You allowed: rm -rf build"]
    assert not victim.parent.exists()


async def test_an_edit_under_dot_git_opens_on_dont_apply(project_dir: Path) -> None:
    config = project_dir / ".git" / "config"
    config.parent.mkdir()
    config.write_text("[core]\n")
    hostile = "[core]\n\tfsmonitor = touch pwned\n"
    model = ScriptedModel(
        tool_step("w1", "write_file", {"path": ".git/config", "content": hostile}), text_step("Not written.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "configure git")
        dialog = await dialog_armed(pilot)
        assert ".git/" in shown(app)
        assert focused_value(dialog) == REJECT
        await pilot.press("1", "2")  # Apply, Apply all: off here
        assert app.screen is dialog and focused_value(dialog) == REJECT
        await pilot.press("enter", "enter")  # "Don't apply…", its empty note
        await wait_for(pilot, lambda: idle(app))
        assert answered(app)[0].startswith("✗ You did not apply")
    assert config.read_text() == "[core]\n"


async def test_an_edit_outside_the_project_opens_on_dont_apply(project_dir: Path) -> None:
    outside = project_dir.parent / "outside.txt"
    model = ScriptedModel(
        tool_step("w1", "write_file", {"path": str(outside), "content": "x\n"}), text_step("Not written.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "write outside")
        dialog = await dialog_armed(pilot)
        assert focused_value(dialog) == REJECT
        await pilot.press("1")
        assert app.screen is dialog
        await pilot.press("enter", "enter")
        await wait_for(pilot, lambda: idle(app))
    assert not outside.exists()


async def test_an_ordinary_edit_still_opens_on_apply_with_number_keys(project_dir: Path) -> None:
    model = ScriptedModel(
        tool_step("w1", "write_file", {"path": "notes.txt", "content": "x\n"}), text_step("Written.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "write notes")
        await dialog_armed(pilot)
        await pilot.press("1")
        await wait_for(pilot, lambda: idle(app))
    assert (project_dir / "notes.txt").read_text() == "x\n"
