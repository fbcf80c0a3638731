"""Every dialog zett shows keeps its choices and its key line on screen in a low terminal (80x10):
it drops its border and gaps there and the body (command, diff, plan) scrolls in what is left.
At 80x24 the dialogs keep their border (nothing changes there)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Static

from tests.ui_helpers import dialog_armed, screen_text, wait_for
from zett_tui.checkpoints.journal import TurnRecord
from zett_tui.config.trust import ProjectFiles, TrustState
from zett_tui.runtime.shell.policy import Rule
from zett_tui.ui.chat.trust_prompt import trust_dialog
from zett_tui.ui.modals import rewind_dialogs
from zett_tui.ui.modals.ask_user import AskUserDialog
from zett_tui.ui.modals.choice_dialog import CRAMPED_BELOW, ChoiceButton, ChoiceDialog
from zett_tui.ui.modals.edit_approval import edit_approval_dialog
from zett_tui.ui.modals.mcp_approval import mcp_approval_dialog
from zett_tui.ui.modals.plan_dialogs import PlanReviewDialog, enter_plan_dialog
from zett_tui.ui.modals.read_access import read_access_dialog
from zett_tui.ui.modals.sandbox_escape import sandbox_escape_dialog
from zett_tui.ui.modals.shell_approval import shell_approval_dialog

LONG_COMMAND = "\n".join(f"echo step {i} && make target-{i}" for i in range(40))
LONG_DIFF = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,40 +1,40 @@\n" + "".join(
    f"-old line {i}\n+new line {i}\n" for i in range(40)
)
LONG_PLAN = "# Plan\n\n" + "\n".join(f"{i}. Step number {i} of the plan." for i in range(1, 41))
RECORD = TurnRecord(kind="turn", turn="t1", at="2025-03-14T15:00:00+00:00", prompt="fix it")

DIALOGS: dict[str, Callable[[], ChoiceDialog]] = {
    "shell approval": lambda: shell_approval_dialog(
        LONG_COMMAND,
        Path("/tmp/project"),
        120,
        suggestions=[Rule("prefix", "make")],
        offer_network=True,
    ),
    "dangerous shell": lambda: shell_approval_dialog(
        "rm -rf build\n" + LONG_COMMAND, Path("/tmp/project"), 120, reason="deletes files", dangerous=True
    ),
    "edit approval": lambda: edit_approval_dialog("notes.txt", "edit", LONG_DIFF, added=40, removed=40),
    "edit outside the project": lambda: edit_approval_dialog(
        "../notes.txt", "edit", LONG_DIFF, outside_project=True, absolute_path="/tmp/notes.txt"
    ),
    "ask-user with options": lambda: AskUserDialog(
        "Which format?\n\n" + "\n\n".join(f"Line {i} of the question." for i in range(30)),
        ["Markdown", "HTML", "Plain text"],
    ),
    "plan exit": lambda: PlanReviewDialog(LONG_PLAN),
    "plan enter": lambda: enter_plan_dialog("a big change\n" * 30),
    "rewind turn list": lambda: rewind_dialogs.turn_list_dialog([RECORD, RECORD], 1024),
    "rewind what": lambda: rewind_dialogs.what_dialog(RECORD, code_possible=None, too_large=[]),
    "rewind conflict": lambda: rewind_dialogs.conflict_dialog("notes.txt"),
    "rewind conflict diff": lambda: rewind_dialogs.conflict_diff_dialog("notes.txt", LONG_DIFF),
    "MCP approval": lambda: mcp_approval_dialog(
        "files", "write", {f"key{i}": "value " * 10 for i in range(30)}, read_only=False
    ),
    "read access": lambda: read_access_dialog("read_file", "/etc/hosts", reason="outside the project"),
    "sandbox escape": lambda: sandbox_escape_dialog(LONG_COMMAND, Path("/tmp/project"), "it failed"),
    "trust question": lambda: trust_dialog(
        ProjectFiles(Path("/tmp/project"), tuple(f".zett/skills/s{i}.md" for i in range(30)), "d"),
        TrustState.NEW,
    ),
}


class DialogApp(App[None]):
    def __init__(self, dialog: ChoiceDialog) -> None:
        super().__init__()
        self.dialog = dialog

    def on_mount(self) -> None:
        self.push_screen(self.dialog)


def labels(dialog: ChoiceDialog) -> list[str]:
    """The labels of the choices shown now (the first step)."""
    return [
        button.choice.label.removesuffix("…")
        for button in dialog.query(ChoiceButton)
        if button.display and button.choice in dialog.root.choices
    ]


def squeezed(text: str) -> str:
    return "".join(text.split())


class Shown:
    """What a dialog showed: the screen's text, its choices' labels, its key line and border."""

    def __init__(self, dialog: ChoiceDialog, text: str) -> None:
        self.text = text
        self.labels = labels(dialog)
        self.keys = str(dialog.query_one("#keys", Static).render()).strip()
        self.border = dialog.query_one("#dialog").styles.border_top[0]


async def shown(dialog: ChoiceDialog, size: tuple[int, int]) -> Shown:
    app = DialogApp(dialog)
    async with app.run_test(size=size) as pilot:
        await dialog_armed(pilot, type(dialog))
        await wait_for(pilot, lambda: dialog.cramped == (size[1] < CRAMPED_BELOW))
        await pilot.pause()
        await pilot.pause()
        return Shown(dialog, screen_text(app).replace("\n", " "))


@pytest.mark.parametrize("name", list(DIALOGS))
async def test_every_choice_shows_at_80x10(name: str) -> None:
    seen = await shown(DIALOGS[name](), (80, 10))
    assert seen.labels
    for label in seen.labels:
        assert label in seen.text, f"{name}: {label!r} is not on screen"
    assert seen.keys and squeezed(seen.keys) in squeezed(seen.text)  # wrapped lines join without a space
    assert seen.border == ""


@pytest.mark.parametrize("name", ["shell approval", "edit approval", "plan exit", "trust question"])
async def test_dialogs_at_80x24_keep_their_border_and_choices(name: str) -> None:
    seen = await shown(DIALOGS[name](), (80, 24))
    assert seen.border == "thick"
    for label in seen.labels:
        assert label in seen.text


async def test_the_plan_editor_leaves_its_choices_on_screen_at_80x10() -> None:
    dialog = PlanReviewDialog(LONG_PLAN)
    app = DialogApp(dialog)
    async with app.run_test(size=(80, 10)) as pilot:
        await dialog_armed(pilot, PlanReviewDialog)
        dialog.pick(dialog.edit_choice)
        await wait_for(pilot, lambda: dialog.editor.has_class("-shown"))
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app)
        assert dialog.editor.region.height >= 3
        for choice in dialog.edit_choice.then:
            assert choice.label in text, f"{choice.label!r} is not on screen"


async def test_a_terminal_shrunk_under_an_open_dialog_keeps_its_choices() -> None:
    dialog = DIALOGS["edit approval"]()
    app = DialogApp(dialog)
    async with app.run_test(size=(80, 24)) as pilot:
        await dialog_armed(pilot, type(dialog))
        assert not dialog.cramped
        await pilot.resize_terminal(80, 10)
        await wait_for(pilot, lambda: dialog.cramped)
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app)
        for label in labels(dialog):
            assert label in text, f"{label!r} is not on screen"
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: not dialog.cramped)
