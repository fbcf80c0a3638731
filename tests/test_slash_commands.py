"""Slash commands: dispatch, unknown-command suggestions, and /help generated from the bindings."""

from __future__ import annotations

from tests.fakes.scripted_model import ScriptedModel
from tests.ui_helpers import make_app, notices, prompts, ready_app, submit, wait_for
from zett_tui.ui.chat.commands.registry import split_command


def test_paths_and_double_slashes_are_prompts_not_commands() -> None:
    assert split_command("/model openai:gpt") == ("model", "openai:gpt")
    assert split_command("/etc/hosts is broken") is None
    assert split_command("//comment") is None
    assert split_command("hello /help") is None


async def test_unknown_command_suggests_the_nearest() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await submit(pilot, "/hlep")
        assert any("Unknown command /hlep" in text and "/help" in text for text in notices(app))
        assert prompts(app) == []


async def test_help_lists_commands_and_keys_from_the_bindings() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await submit(pilot, "/help")
        [text] = [t for t in notices(app) if t.startswith("Commands:")]
        assert "/quit" in text and "/continue" in text
        assert "ctrl+c" in text.lower() or "^c" in text.lower()


async def test_quit_command_quits() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await submit(pilot, "/quit")
        await wait_for(pilot, lambda: not app.is_running)


async def test_new_starts_a_fresh_session_and_keeps_the_old_one() -> None:
    from tests.fakes.scripted_model import text_step
    from tests.ui_helpers import answers, idle

    model = ScriptedModel(text_step("first"), text_step("second"))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        old_session = app.chat.host.session_id
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: app.chat.host is not None and app.chat.host.session_id != old_session)
        assert prompts(app) == [] and answers(app) == []
        await submit(pilot, "again")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        assert answers(app)[0].text == "second"
