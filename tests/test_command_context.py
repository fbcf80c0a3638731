"""Slash commands run against a CommandContext alone: no chat screen, no app (issue 11, point 2).

A command says things, reads the host, and asks the app for app-level things with a message;
these run the real commands against a stand-in context and check what they asked for.
"""

from __future__ import annotations

from tests.fakes.commands import StandIn, run
from zett_tui.ui.app_messages import (
    CopyRequested,
    ModelChosen,
    OpenSession,
    OpenSessionBrowser,
    QuitRequested,
    ThemeRequested,
)
from zett_tui.ui.chat.commands.builtin import builtin_commands
from zett_tui.ui.chat.commands.registry import CommandList
from zett_tui.ui.widgets.transcript import AnswerBlock


def test_app_level_commands_post_a_message_to_the_app() -> None:
    context = StandIn()
    for line in ("/quit", "/new", "/sessions", "/theme dracula"):
        assert run(context, line)
    kinds = [type(message) for message in context.posted]
    assert kinds == [QuitRequested, OpenSession, OpenSessionBrowser, ThemeRequested]
    assert context.posted[1].session_id is None and context.posted[3].name == "dracula"


def test_copy_takes_the_last_answers_code_and_asks_the_app_to_copy_it() -> None:
    answer = AnswerBlock()
    answer.append("Run this:\n\n```sh\nmake test\n```\n")
    answer.finish("completed")
    context = StandIn([answer])
    assert run(context, "/copy")
    [message] = context.posted
    assert isinstance(message, CopyRequested) and message.text == "make test"
    empty = StandIn()
    run(empty, "/copy")
    assert empty.posted == [] and empty.said == [("There is no answer to copy yet.", "warning")]


def test_commands_that_need_the_model_say_it_is_starting_and_change_nothing() -> None:
    context = StandIn()
    for line in ("/effort high", "/mode auto", "/compact"):
        run(context, line)
    assert context.toasts == ["The model is still starting; try again in a moment."] * 3
    assert not [message for message in context.posted if isinstance(message, ModelChosen)]


def test_help_lists_the_commands_and_the_keys_it_is_given() -> None:
    context = StandIn()
    run(context, "/help")
    [(text, _level)] = context.said
    assert "/quit" in text and "/copy [N|all]" in text and "ctrl+c" in text


def test_an_unknown_name_runs_nothing() -> None:
    context = StandIn()
    assert not run(context, "/no-such-command")
    assert CommandList(builtin_commands).nearest("hepl")[0] == "help"
