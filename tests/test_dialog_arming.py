"""No approval by accident: keys typed across a dialog's opening land in the prompt, never in the dialog.

Every dialog is a ``ChoiceDialog``; it takes no key until it has been on screen ``ARM_DELAY`` (the
real 0.5 s here, nothing patched) with no key typed meanwhile. The attacks are the ones from the
issue: a sentence with a "1" in it, "ok go" + Enter, typed while a command's dialog opens; a dangerous
command answered with Enter or a number key. Each test checks the command's file on disk (the
victim), what the runtime was answered (the transcript's record of it) and what the prompt holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input
from zett_agent.model import ModelEvent, ModelRequest

from tests.fakes.scripted_model import ScriptedModel, Step, text_step, tool_step
from tests.test_dialogs import shown
from tests.ui_helpers import dialog_armed, idle, make_app, notices, ready_app, submit, tools, wait_for
from zett_tui.ui.app import ZettApp
from zett_tui.ui.modals import choice_dialog, dialog_arming
from zett_tui.ui.modals.choice_dialog import ChoiceButton, ChoiceDialog, Picked
from zett_tui.ui.modals.shell_approval import DONT_RUN, RUN, shell_approval_dialog

#: The real arming delay (every other test has a short one, tests/conftest.py), and keys timed
#: against it: serial tests (one at a time, at normal priority, beside the niced parallel pass).
pytestmark = [pytest.mark.real_arming, pytest.mark.serial]

SENTENCE_BEFORE = "thanks, and after"
SENTENCE_ACROSS = " that please update 1 test"


def gated(gate: asyncio.Event, step: Step) -> Step:
    """``step``, once ``gate`` is set: the test decides when the dialog opens."""

    async def run(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        await gate.wait()
        async for event in step(request):
            yield event

    return run


def keys_of(text: str) -> list[str]:
    """``text`` as key names for ``pilot.press`` (a space is "space", a comma "comma"...)."""
    names = {" ": "space", ",": "comma", ".": "full_stop", "/": "slash", "-": "minus"}
    return [names.get(character, character) for character in text]


def answered(app: ZettApp) -> list[str]:
    """The transcript's one-line records of dialog answers (allowed, refused, applied...)."""
    return [text for text in notices(app) if text.startswith(("✓", "✗"))]


def focused_value(dialog: ChoiceDialog) -> Any:
    focused = dialog.focused
    return focused.choice.value if isinstance(focused, ChoiceButton) else None


def keys_line(dialog: ChoiceDialog) -> str:
    return str(dialog.query_one("#keys").render())


async def drawn(pilot: Pilot[Any]) -> ChoiceDialog:
    """The dialog once it is on screen (laid out), armed or not."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog) and app.screen.shown_at is not None)
    dialog = app.screen
    assert isinstance(dialog, ChoiceDialog)
    return dialog


# -- typing across the opening --------------------------------------------------------------------


async def test_a_sentence_typed_across_a_shell_dialog_opening_lands_in_the_prompt(project_dir: Path) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(
        gated(gate, tool_step("c1", "bash", {"command": "echo ran > ran.txt"})), text_step("Not run.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "first prompt")
        await wait_for(pilot, lambda: len(model.requests) == 1)
        await pilot.press(*keys_of(SENTENCE_BEFORE))
        gate.set()
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog))  # pushed, maybe not drawn
        dialog = app.screen
        assert isinstance(dialog, ChoiceDialog)
        await pilot.press(*keys_of(SENTENCE_ACROSS), "enter", *keys_of("ok go"), "enter", "1", "2", "3")
        assert app.screen is dialog and not dialog.armed  # every key restarted the wait
        assert dialog.shown_at is not None  # it was drawn while the keys came
        assert not (project_dir / "ran.txt").exists()
        assert answered(app) == []
        composer = app.chat.composer
        await wait_for(pilot, lambda: composer.text.endswith("123"))
        assert composer.text == SENTENCE_BEFORE + SENTENCE_ACROSS + "\nok go\n123"
        assert composer.cursor_location == (2, 3)  # typed at the cursor, in order

        await dialog_armed(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))
        assert not (project_dir / "ran.txt").exists()
        assert answered(app) == ["✗ You refused: echo ran > ran.txt"]
        assert composer.text == SENTENCE_BEFORE + SENTENCE_ACROSS + "\nok go\n123"  # still there to send


async def test_keys_posted_before_the_dialog_is_drawn_go_to_the_prompt() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        picked: list[Picked | None] = []
        dialog = shell_approval_dialog("echo hi", Path.cwd(), 60)
        mounted_when_typed: list[bool] = []

        def open_and_type() -> None:
            app.push_screen(dialog, picked.append)
            mounted_when_typed.append(dialog.is_mounted)
            for key, character in (("1", "1"), ("enter", "\r"), ("y", "y"), ("escape", "\x1b")):
                app.post_message(events.Key(key, character))  # what the terminal driver does

        app.call_later(open_and_type)
        await wait_for(pilot, lambda: app.chat.composer.text == "1\ny")
        assert mounted_when_typed == [False]
        assert app.screen is dialog and picked == []
        await dialog_armed(pilot)
        assert picked == [] and app.chat.composer.text == "1\ny"
        await pilot.press("enter")  # armed: Enter takes the focused choice, Run once
        await wait_for(pilot, lambda: bool(picked))
        assert picked == [Picked(RUN)]


async def test_ok_go_and_enter_right_after_the_dialog_is_drawn_do_not_approve(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rule under test is "keys inside the arming window never answer"; a longer window keeps a
    # loaded machine's gap between two presses from arming the dialog mid-attempt (which would be
    # the rule working, not a typed-through approval).
    monkeypatch.setattr(dialog_arming, "ARM_DELAY", 3.0)
    model = ScriptedModel(tool_step("c1", "bash", {"command": "echo ran > ran.txt"}), text_step("Ran."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "make the file")
        for attempt in range(4):  # the issue: "approved it 4 times in 4"
            dialog = await drawn(pilot)
            await pilot.press(*keys_of("ok go"), "enter")
            assert app.screen is dialog and not dialog.armed, f"attempt {attempt + 1}"
        assert not (project_dir / "ran.txt").exists() and answered(app) == []
        assert app.chat.composer.text == "ok go\nok go\nok go\nok go\n"

        dialog = await dialog_armed(pilot)
        assert focused_value(dialog) == RUN
        await pilot.press("enter")  # armed: keys work as usual
        await wait_for(pilot, lambda: idle(app))
        assert (project_dir / "ran.txt").read_text() == "ran\n"
        assert answered(app) == ["✓ You allowed: echo ran > ran.txt"]


async def test_editing_keys_and_a_paste_edit_the_prompt_and_nothing_else_happens() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        composer.load_text("abc")
        composer.move_cursor(composer.document.end)
        editor_runs: list[list[str]] = []

        def run_editor(command: list[str]) -> int:
            editor_runs.append(command)
            return 0

        composer.run_editor = run_editor
        picked: list[Picked | None] = []
        app.push_screen(shell_approval_dialog("echo hi", Path.cwd(), 60), picked.append)
        dialog = await drawn(pilot)
        await pilot.press("backspace", "left", "X", "end", "escape", "tab", "shift+tab", "ctrl+g")
        app.post_message(events.Paste(" pasted"))
        await wait_for(pilot, lambda: composer.text == "aXb pasted")
        assert app.screen is dialog and not dialog.armed and picked == []
        assert host_mode_unchanged(app) and editor_runs == []  # Shift+Tab, Ctrl+G: not from here
        await dialog_armed(pilot)
        await pilot.press("escape")  # armed: Esc declines
        await wait_for(pilot, lambda: bool(picked))
        assert picked == [Picked(DONT_RUN)] and composer.text == "aXb pasted"


def host_mode_unchanged(app: ZettApp) -> bool:
    """Shift+Tab typed into the opening dialog did not cycle the permission mode."""
    host = app.chat.host
    return host is not None and host.mode.value == "ask"


async def test_clicks_before_the_dialog_takes_keys_are_ignored() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        picked: list[Picked | None] = []
        app.push_screen(shell_approval_dialog("echo hi", Path.cwd(), 60), picked.append)
        dialog = await drawn(pilot)
        assert await pilot.click("#choice-1")
        await pilot.pause()
        assert app.screen is dialog and picked == []
        await dialog_armed(pilot)
        assert await pilot.click("#choice-1")
        await wait_for(pilot, lambda: bool(picked))
        assert picked == [Picked(RUN)]


async def test_the_dialog_shows_when_it_starts_taking_keys() -> None:
    assert dialog_arming.ARM_DELAY == choice_dialog.ARM_DELAY == 0.5
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        app.push_screen(shell_approval_dialog("echo hi", Path.cwd(), 60))
        dialog = await drawn(pilot)
        if not dialog.armed:  # always, unless this machine stalled for half a second just now
            assert keys_line(dialog) == choice_dialog.KEYS_WAITING_TYPING
            assert dialog.query_one("#choices").disabled and dialog.focused is None
            assert "what you type still goes to your prompt" in shown(app)
        await dialog_armed(pilot)
        assert dialog.shown_at is not None and dialog.armed_at is not None
        assert dialog.armed_at - dialog.shown_at >= dialog_arming.ARM_DELAY
        assert keys_line(dialog).startswith("Enter choose · ↑/↓ move · 1-9 pick")
        assert not dialog.query_one("#choices").disabled and focused_value(dialog) == RUN


async def test_the_ask_user_answer_field_takes_no_text_before_it_arms() -> None:
    model = ScriptedModel(tool_step("q1", "ask_user", {"question": "Which name?"}), text_step("Thanks."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "ask me")
        dialog = await drawn(pilot)
        await pilot.press(*keys_of("early"), "enter")
        field = dialog.query_one("#answer-input", Input)
        assert field.value == "" and app.screen is dialog
        await wait_for(pilot, lambda: app.chat.composer.text == "early\n")
        await dialog_armed(pilot)
        await pilot.press("enter")  # typing went to the prompt: a deliberate key starts the answer
        await wait_for(pilot, lambda: dialog.focused is field)
        await pilot.press(*keys_of("late"), "enter")
        await wait_for(pilot, lambda: idle(app))
        assert answered(app) == [] and tools(app)[0].outcome == "answered: late"  # shown on its row


# -- typing into a dialog that already takes keys ------------------------------------------------


async def test_a_message_typed_into_an_armed_dialog_goes_to_the_prompt_and_enter_does_not_approve(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user paused (the dialog armed), then typed a message and pressed Enter: the message is in
    the prompt, the Enter a line break there, and the command has not run."""
    monkeypatch.setattr(dialog_arming, "ARM_DELAY", 2.0)  # a loaded machine's gap between keys
    model = ScriptedModel(tool_step("c1", "bash", {"command": "echo ran > ran.txt"}), text_step("Not run."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "make the file")
        dialog = await dialog_armed(pilot)
        assert focused_value(dialog) == RUN
        await pilot.press(*keys_of("also fix the docs"), "enter")
        assert app.screen is dialog and not dialog.armed
        assert not (project_dir / "ran.txt").exists() and answered(app) == []
        composer = app.chat.composer
        await wait_for(pilot, lambda: composer.text == "also fix the docs\n")
        app.post_message(events.Paste("and the tests"))
        await wait_for(pilot, lambda: composer.text == "also fix the docs\nand the tests")
        assert app.screen is dialog and not dialog.armed

        dialog = await dialog_armed(pilot)  # armed again after a pause, on the same choice
        assert focused_value(dialog) == RUN
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))
        assert answered(app) == ["✗ You refused: echo ran > ran.txt"]
    assert not (project_dir / "ran.txt").exists()


async def test_typing_keeps_the_choice_the_user_moved_to_and_dialog_keys_still_answer() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        picked: list[Picked | None] = []
        app.push_screen(shell_approval_dialog("echo hi", Path.cwd(), 60), picked.append)
        dialog = await dialog_armed(pilot)
        await pilot.press("down")
        moved_to = focused_value(dialog)
        assert moved_to != RUN
        await pilot.press("x", "backspace")
        assert not dialog.armed and dialog.focused is None and picked == []
        assert keys_line(dialog) == choice_dialog.KEYS_WAITING_TYPING
        dialog = await dialog_armed(pilot)
        assert focused_value(dialog) == moved_to
        await pilot.press("up", "1")  # number keys are the dialog's own: Run once
        await wait_for(pilot, lambda: bool(picked))
        assert picked == [Picked(RUN)] and app.chat.composer.text == ""


async def test_the_prompt_says_what_enter_does_while_a_dialog_is_up() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        idle_hint = composer.placeholder
        app.push_screen(shell_approval_dialog("echo hi", Path.cwd(), 60))
        dialog = await drawn(pilot)
        assert "Enter adds a line" in str(composer.border_title)
        assert (
            "tell the running turn" not in composer.placeholder and "Enter sends" not in composer.placeholder
        )
        assert "Enter adds a line" in shown(app)
        await dialog_armed(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is not dialog)
        assert composer.border_title is None and composer.placeholder == idle_hint


@pytest.mark.parametrize("options", [[], ["Markdown", "HTML"]])
async def test_the_rest_of_a_message_typed_after_an_ask_user_dialog_armed_goes_to_the_prompt(
    options: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user was typing a message as the question opened, paused (it armed), and typed on: the
    rest and its Enter land in the prompt, not in the answer field as the answer sent."""
    monkeypatch.setattr(dialog_arming, "ARM_DELAY", 1.0)
    gate = asyncio.Event()
    model = ScriptedModel(
        gated(gate, tool_step("q1", "ask_user", {"question": "Which name?", "options": options})),
        text_step("Thanks."),
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "ask me")
        await wait_for(pilot, lambda: len(model.requests) == 1)
        await pilot.press(*keys_of("also rename"))
        gate.set()
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        dialog = app.screen
        await pilot.press(*keys_of(" the"))
        await dialog_armed(pilot)  # the user paused
        await pilot.press(*keys_of(" module 2"), "enter")
        field = dialog.query_one("#answer-input", Input)
        composer = app.chat.composer
        await wait_for(pilot, lambda: composer.text == "also rename the module 2\n")
        assert app.screen is dialog and field.value == "" and answered(app) == []

        await dialog_armed(pilot)
        await pilot.press("tab" if options else "enter")  # deliberate: now the field takes the answer
        if options:
            await pilot.press("tab")  # past the second option
        await wait_for(pilot, lambda: dialog.focused is field)
        await pilot.press(*keys_of("late"), "enter")
        await wait_for(pilot, lambda: idle(app))
        assert tools(app)[0].outcome == "answered: late"
        assert composer.text == "also rename the module 2\n"
