"""Slash commands run against a CommandContext alone: no chat screen, no app (issue 11, point 2).

A command says things, reads the host, and asks the app for app-level things with a message;
these run the real commands against a stand-in context and check what they asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from zett_tui.entry.launch import LaunchSettings
from zett_tui.ui.app_messages import (
    CopyRequested,
    ModelChosen,
    OpenSession,
    OpenSessionBrowser,
    QuitRequested,
    ThemeRequested,
)
from zett_tui.ui.chat.command_context import CommandContext
from zett_tui.ui.chat.commands.builtin import builtin_commands
from zett_tui.ui.chat.commands.registry import CommandList
from zett_tui.ui.widgets.transcript import AnswerBlock, Block


class StandIn:
    """Records what the commands did; has no host (the model is still starting)."""

    def __init__(self, blocks: Sequence[Block] = ()) -> None:
        self.said: list[tuple[str, str]] = []
        self.toasts: list[str] = []
        self.posted: list[Any] = []
        self.prompt = ""
        self.blocks = list(blocks)
        self.launch = LaunchSettings(model_label="scripted:test", model_factory=lambda: None, cwd=Path.cwd())
        self.commands = CommandList(builtin_commands)
        self.sent: list[str] = []

    host = None
    start_failed = False
    turn_running = False

    @property
    def cwd(self) -> Path:
        return self.launch.cwd

    def say(self, text: str, level: str = "info") -> None:
        self.said.append((text, level))

    def mark_rewound(self, prompt: str) -> None:
        self.said.append((f"(marked rewound from {prompt})", "info"))

    def unmark_rewound(self) -> None:
        self.said.append(("(unmarked rewound)", "info"))

    def notify(
        self, text: str, *, title: str = "", severity: str = "information", timeout: float = 3
    ) -> None:
        self.toasts.append(text)

    def send_prompt(self, text: str) -> None:
        self.sent.append(text)

    def send_prompt_with_model(self, text: str, model: Any, *, put_back: str) -> None:
        self.sent.append(text)

    def continue_turn(self) -> None:
        self.said.append(("continue", "test"))

    def compact(self, host: Any) -> None:
        raise AssertionError("no host, nothing to compact")

    def open_screen(self, screen: Any, on_result: Callable[[Any], None] | None = None) -> None:
        raise AssertionError("no screen expected")

    def run_in_background(self, work: Awaitable[Any], group: str) -> None:
        raise AssertionError("no background work expected")

    def put_in_prompt(self, text: str) -> None:
        self.prompt = text

    def transcript_blocks(self) -> Sequence[Block]:
        return self.blocks

    def show_help(self, sections: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> None:
        rows = [f"{left} {right}" for _title, entries in sections for left, right in entries]
        self.said.append(("\n".join(rows), "help"))

    def key_help(self) -> list[tuple[str, str]]:
        return [("ctrl+c", "Clear / stop / quit")]

    def set_mode(self, mode: Any, note: str = "") -> None:
        raise AssertionError("no session, no mode to switch")

    def model_switched(self, label: str, *, is_demo: bool) -> None:
        return None

    def context_changed(self, measured: Any) -> None:
        return None

    def review_trust(self) -> None:
        return None

    def post(self, message: Any) -> None:
        self.posted.append(message)


def run(context: StandIn, line: str) -> bool:
    name, _, arguments = line.lstrip("/").partition(" ")
    typed: CommandContext = context  # the stand-in is a CommandContext: mypy checks it here
    return CommandList(builtin_commands).run(typed, name, arguments)


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
