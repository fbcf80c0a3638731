"""Input is exact, from the user's side: history keeps the draft, the first ``@`` lists the project,
an unknown command keeps what was typed, and letters typed in ask-user become the answer.
(Bursts and the terminal's answers, through a real pty: tests/e2e/test_exact_input.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.ui_helpers import (
    dialog_armed,
    idle,
    make_app,
    notices,
    prompts,
    ready_app,
    screen_text,
    submit,
    wait_for,
)
from zett_tui.ui.modals.ask_user import AskUserDialog
from zett_tui.ui.widgets.completion_menu import CompletionMenu


async def type_text(pilot: Any, text: str) -> None:
    await pilot.press(*["space" if char == " " else char for char in text])


# -- history ---------------------------------------------------------------------------------------


async def test_up_and_down_bring_the_unsent_draft_back() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        composer.prompt_history.entries[:] = ["first", "second"]
        await type_text(pilot, "my draft")
        await pilot.press("up", "up")
        assert composer.text == "first"
        await pilot.press("down", "down")
        assert composer.text == "my draft"


async def test_a_new_draft_typed_while_browsing_is_the_one_kept() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        composer.prompt_history.entries[:] = ["first", "second"]
        await type_text(pilot, "old draft")
        await pilot.press("up")
        assert composer.text == "second"
        await pilot.press("ctrl+c")  # clears the prompt
        await type_text(pilot, "new draft")
        await pilot.press("up")
        assert composer.text == "second"
        await pilot.press("down")
        assert composer.text == "new draft"


# -- the @ finder ----------------------------------------------------------------------------------


async def test_the_first_at_in_a_5000_file_project_lists_a_full_menu(project_dir: Path) -> None:
    for number in range(5000):
        folder = project_dir / f"pkg{number % 50:02}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{number:04}.py").write_text("")
    app = make_app(ScriptedModel(), cwd=project_dir)
    async with ready_app(app, size=(100, 30)) as pilot:
        await pilot.press("@")
        menu = app.chat.query_one(CompletionMenu)
        await wait_for(pilot, lambda: len(menu.items) == 50)
        await pilot.pause()
        shown = screen_text(app)
        assert "5,000 files" in shown
        assert shown.count(".py") == CompletionMenu.VISIBLE_ROWS  # eight rows of files, not one
        assert menu.outer_size.height >= CompletionMenu.VISIBLE_ROWS + 1


# -- unknown commands ------------------------------------------------------------------------------


async def test_an_unknown_command_keeps_what_was_typed_and_says_so() -> None:
    model = ScriptedModel()
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "/reveiw the parser module please")
        await wait_for(pilot, lambda: any("Unknown command /reveiw" in text for text in notices(app)))
        assert app.chat.composer.text == "/reveiw the parser module please"
        assert prompts(app) == [] and model.requests == []
        assert not app.chat.query_one(CompletionMenu).is_open


# -- ask-user --------------------------------------------------------------------------------------

QUESTION = {"question": "Which format?", "options": ["Markdown", "HTML", "Plain text"]}


async def test_letters_typed_on_the_options_go_to_the_own_answer() -> None:
    model = ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("OK."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "export it")
        dialog = await dialog_armed(pilot, AskUserDialog)
        assert dialog.focused is not None and dialog.focused.id != "answer-input"  # on the first option
        await type_text(pilot, "reStructuredText 2")
        assert dialog.query_one("#answer-input").value == "reStructuredText 2"
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert "The user answered: reStructuredText 2" in last_tool_result(model.requests[1])
