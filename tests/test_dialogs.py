"""Every question the runtime asks, answered through the real app with a scripted model.

Plan Mode (enter, send back with a note, edit then approve), ask_user, shell approvals (once,
always by rule, refused with a note), edit approvals, permission modes, cancelling, duplicates.
What the model was sent next is read from the scripted model's requests.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input
from zett_agent.model import ModelRequest

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.ui_helpers import (
    answers,
    dialog_armed,
    idle,
    make_app,
    notices,
    ready_app,
    submit,
    tools,
    wait_for,
    wait_ready,
)
from zett_tui.runtime.host import AgentHost
from zett_tui.runtime.modes import PermissionMode
from zett_tui.ui.app import ZettApp
from zett_tui.ui.chat.answers import DECLINED_TEXT, EDITED_PLAN_STEER, PLAN_FEEDBACK_STEER
from zett_tui.ui.modals.ask_user import AskUserDialog
from zett_tui.ui.modals.choice_dialog import ChoiceDialog
from zett_tui.ui.modals.plan_dialogs import PlanReviewDialog

PLAN_V1 = "# Plan\n\n1. Rewrite everything.\n"
PLAN_V2 = "# Plan\n\n1. Change `index.py` only.\n2. Add a test.\n"


def shown(app: ZettApp) -> str:
    """The terminal as lines of text, spaces kept (rebuilt from the screenshot's cell positions)."""
    svg = app.export_screenshot()
    rows: dict[float, dict[int, str]] = {}
    cell = None
    for x, y, length, text in re.findall(
        r'<text[^>]*x="([\d.]+)" y="([\d.]+)" textLength="([\d.]+)"[^>]*>(.*?)</text>', svg
    ):
        text = html.unescape(text).replace("\xa0", " ")
        if not text:
            continue
        cell = cell or float(length) / len(text)
        row = rows.setdefault(float(y), {})
        start = round(float(x) / cell)
        for offset, character in enumerate(text):
            row[start + offset] = character
    lines = []
    for y in sorted(rows):
        row = rows[y]
        lines.append("".join(row.get(i, " ") for i in range(max(row) + 1)).rstrip())
    return "\n".join(lines)


def sent(request: ModelRequest) -> str:
    """Everything a request carried, as one string (system, user, assistant and tool messages)."""
    return "\n".join(str(getattr(message, "content", "")) for message in request.messages)


def user_texts(request: ModelRequest) -> list[str]:
    return [str(m.content) for m in request.messages if str(getattr(m, "role", "")).endswith("user")]


def _laid_out(screen: Any) -> bool:
    """A pushed dialog is the app's screen before it has been composed and laid out."""
    keys = screen.query("#keys")
    return bool(keys) and keys.first().region.height > 0


async def open_dialog(pilot: Pilot[Any], kind: type = ChoiceDialog) -> Any:
    """The dialog of ``kind`` once it is laid out and takes keys (it arms 0.5 s after it is drawn)."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and _laid_out(app.screen))
    return await dialog_armed(pilot, kind)


async def dialog_closed(pilot: Pilot[Any], dialog: Any) -> None:
    await wait_for(pilot, lambda: pilot.app.screen is not dialog)


async def fill(pilot: Pilot[Any], selector: str, text: str) -> None:
    """Put ``text`` in the focused dialog's field (typing it key by key is slow and adds nothing)."""
    field = pilot.app.screen.query_one(selector, Input)
    assert pilot.app.screen.focused is field
    field.value = text
    await pilot.pause()


def focused_id(screen: Any) -> str | None:
    focused = screen.focused
    return focused.id if focused is not None else None


def host_of(app: ZettApp) -> AgentHost:
    assert app.chat.host is not None
    return app.chat.host


def mode(app: ZettApp) -> PermissionMode:
    return host_of(app).mode


def plan_file(app: ZettApp) -> Path:
    host = app.chat.host
    assert host is not None
    path: Path = host.plan_guard.plan_file(host.session_id)
    return path


# -- Plan Mode ------------------------------------------------------------------------------------


async def test_entering_plan_mode_when_the_user_agrees() -> None:
    model = ScriptedModel(
        tool_step("p1", "enter_plan_mode", {"reason": "It touches three modules."}), text_step("Planning.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "big change")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert "Enter Plan Mode?" in text and "It touches three modules." in text
        assert focused_id(dialog) == "choice-1"
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert mode(app) is PermissionMode.PLAN
        assert app.chat.status.permission_mode == "plan" and "plan mode" in shown(app)
        assert '"entered": true' in last_tool_result(model.requests[1])
        assert {tool.name for tool in model.requests[1].tools} >= {"exit_plan_mode", "read_file"}
        assert any("Plan Mode on" in text for text in notices(app))


async def test_declining_plan_mode_keeps_the_normal_mode() -> None:
    model = ScriptedModel(tool_step("p1", "enter_plan_mode", {"reason": "Maybe."}), text_step("Working."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "small change")
        await open_dialog(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))
        assert mode(app) is PermissionMode.ASK
        assert "declined Plan Mode" in last_tool_result(model.requests[1])
        assert any("without Plan Mode" in text for text in notices(app))


async def test_a_plan_sent_back_with_a_note_then_revised_and_approved() -> None:
    model = ScriptedModel(
        tool_step("p1", "enter_plan_mode", {"reason": "Big."}),
        tool_step("x1", "exit_plan_mode", {"plan": PLAN_V1}),
        tool_step("x2", "exit_plan_mode", {"plan": PLAN_V2}),
        text_step("Implementing the plan."),
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "refactor")
        await open_dialog(pilot)
        await pilot.press("enter")
        review = await open_dialog(pilot, PlanReviewDialog)
        assert "Rewrite everything." in shown(app)
        await pilot.press("4")  # Keep planning…: the note field opens
        await fill(pilot, "#note-input", "too broad, only touch index.py")
        await pilot.press("enter")
        await dialog_closed(pilot, review)

        review = await open_dialog(pilot, PlanReviewDialog)
        revision_request = model.requests[2]
        assert "The user requested more planning" in sent(revision_request)
        assert PLAN_FEEDBACK_STEER + "too broad, only touch index.py" in user_texts(revision_request)
        await pilot.press("enter")  # Approve, ask before edits
        await wait_for(pilot, lambda: idle(app))
        assert mode(app) is PermissionMode.ASK
        assert plan_file(app).read_text() == PLAN_V2.strip() + "\n"
        assert '"exited": true' in last_tool_result(model.requests[3])
        records = notices(app)
        assert any("sent the plan back" in text for text in records)
        shown_texts = [block.plain_text() for block in app.chat.transcript.blocks]
        assert sum("only touch index.py" in text for text in shown_texts) == 1  # the note, once
        assert any("approved the plan; zett asks before each edit" in text for text in records)


async def test_an_edited_plan_is_what_the_model_is_told_to_carry_out() -> None:
    model = ScriptedModel(
        tool_step("p1", "enter_plan_mode", {"reason": "Big."}),
        tool_step("x1", "exit_plan_mode", {"plan": PLAN_V1}),
        text_step("Carrying out your plan."),
    )
    app = make_app(model)
    edited = "# Plan\n\n1. Only rename `load()`.\n"
    async with ready_app(app) as pilot:
        await submit(pilot, "refactor")
        await open_dialog(pilot)
        await pilot.press("enter")
        review = await open_dialog(pilot, PlanReviewDialog)
        await pilot.press("3")  # Edit the plan…
        assert review.focused is review.editor
        review.editor.load_text(edited)
        await pilot.press("tab")  # from the editor to its choices
        assert focused_id(review) == "choice-3-1"
        await pilot.press("2")  # Approve my edited plan, edit freely
        await wait_for(pilot, lambda: idle(app))
        after = model.requests[2]
        assert '"exited": true' in sent(after)
        assert EDITED_PLAN_STEER + edited.strip() in user_texts(after)
        assert mode(app) is PermissionMode.ACCEPT_EDITS
        assert app.chat.status.permission_mode == "accept_edits"
        assert plan_file(app).read_text() == edited.strip() + "\n"
        assert any("approved your edited plan; edits apply without asking" in text for text in notices(app))


# -- ask_user -------------------------------------------------------------------------------------

QUESTION = {"question": "Which format?", "options": ["Markdown", "HTML", "Plain text"]}


async def ask(app: ZettApp, pilot: Pilot[Any]) -> AskUserDialog:
    await wait_ready(pilot)
    await submit(pilot, "export it")
    dialog: AskUserDialog = await open_dialog(pilot, AskUserDialog)
    return dialog


async def test_ask_user_one_option_by_its_number() -> None:
    model = ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("HTML it is."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await ask(app, pilot)
        text = shown(app)
        assert "Which format?" in text and "1. Markdown" in text and "3. Plain text" in text
        assert focused_id(dialog) == "choice-1"
        await pilot.press("2")
        await wait_for(pilot, lambda: idle(app))
        assert "The user chose: HTML" in last_tool_result(model.requests[1])
        assert tools(app)[0].outcome == "chose: HTML"  # on the row, and only there
        assert not any("chose: HTML" in text for text in notices(app))


async def test_ask_user_several_options_ticked_with_a_comment() -> None:
    question = {"question": "Which checks?", "options": ["ruff", "mypy", "pytest"], "allow_multiple": True}
    model = ScriptedModel(tool_step("q1", "ask_user", question), text_step("Noted."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await ask(app, pilot)
        assert focused_id(dialog) == "option-1"
        await pilot.press("1", "3")  # number keys tick
        await pilot.press("down", "space")  # and so does Space on the focused option
        await pilot.press("space")  # ...which unticks it again
        assert dialog.ticked == ["ruff", "pytest"]
        assert "[x] 1. ruff" in shown(app) and "[ ] 2. mypy" in shown(app)
        dialog.query_one("#answer-input", Input).value = "only on CI"
        await pilot.press("enter")  # Enter on an option sends
        await wait_for(pilot, lambda: idle(app))
        assert "The user chose: ruff; pytest and added: only on CI" in last_tool_result(model.requests[1])


async def test_ask_user_free_text_answer() -> None:
    model = ScriptedModel(
        tool_step("q1", "ask_user", {"question": "What should it be called?"}), text_step("OK.")
    )
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await ask(app, pilot)
        assert focused_id(dialog) == "answer-input"
        await pilot.press("enter")  # nothing typed: it says what to do and stays open
        assert "Type an answer, or press Esc to decline." in shown(app)
        await fill(pilot, "#answer-input", "zett export")
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert "The user answered: zett export" in last_tool_result(model.requests[1])


async def test_ask_user_own_words_instead_of_an_option() -> None:
    model = ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("OK."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await ask(app, pilot)
        await pilot.press("tab", "tab", "tab")  # past the three options to the text field
        assert focused_id(dialog) == "answer-input"
        await pilot.press("1")  # a digit in the text field is text, not a pick
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        assert "The user answered: 1" in last_tool_result(model.requests[1])


async def test_declining_a_question_tells_the_model_and_the_turn_goes_on() -> None:
    model = ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("I will pick Markdown then."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        await ask(app, pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app))
        assert DECLINED_TEXT in last_tool_result(model.requests[1])
        assert any("You declined to answer: Which format?" in text for text in notices(app))
        assert any(answer.plain_text() == "I will pick Markdown then." for answer in answers(app))
