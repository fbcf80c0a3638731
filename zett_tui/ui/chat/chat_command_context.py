"""The chat screen's :class:`~zett_tui.ui.chat.command_context.CommandContext`: what a slash
command may do, each method a short delegation to the part of the chat that does it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.runtime.events import ContextMeasured
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.modes import PermissionMode
    from zett_tui.runtime.turn_model import TurnModel
    from zett_tui.ui.chat.commands.registry import CommandList
    from zett_tui.ui.chat.view import ChatView
    from zett_tui.ui.widgets.transcript import Block
    from zett_tui.ui.widgets.transcript_blocks import UserBlock


class ChatCommandContext:
    """A slash command's view of ``chat`` (built once per chat screen)."""

    def __init__(self, chat: ChatView) -> None:
        self._chat = chat
        #: The prompts each conversation rewind of this run marked, newest last (an undo unmarks).
        self._rewound_groups: list[list[UserBlock]] = []

    @property
    def host(self) -> AgentHost | None:
        session = self._chat.session
        return session.host if session is not None else None

    @property
    def start_failed(self) -> bool:
        return self._chat.warmup_failed

    @property
    def launch(self) -> LaunchSettings:
        return self._chat.launch

    @property
    def cwd(self) -> Path:
        return self.launch.cwd

    @property
    def turn_running(self) -> bool:
        return self._chat.turns.busy

    def say(self, text: str, level: str = "info") -> None:
        self._chat.say(text, level)

    def mark_rewound(self, prompt: str) -> None:
        self._rewound_groups.append(self._chat.mark_rewound(prompt))

    def unmark_rewound(self) -> None:
        if self._rewound_groups:
            self._chat.unmark_rewound(self._rewound_groups.pop())

    def notify(
        self, text: str, *, title: str = "", severity: str = "information", timeout: float = 3
    ) -> None:
        level: SeverityLevel = (
            "warning" if severity == "warning" else "error" if severity == "error" else "information"
        )
        self._chat.notify(text, title=title, severity=level, timeout=timeout)

    @property
    def commands(self) -> CommandList:
        return self._chat.commands

    def send_prompt(self, text: str) -> None:
        self._chat.turns.submit(text)

    def send_prompt_with_model(self, text: str, model: TurnModel, *, put_back: str) -> None:
        self._chat.turns.submit_with_model(text, model, put_back=put_back)

    def continue_turn(self) -> None:
        self._chat.turns.continue_interrupted()

    def compact(self, host: AgentHost) -> None:
        self._chat.turns.compact()

    def open_screen(self, screen: Screen[Any], on_result: Callable[[Any], None] | None = None) -> None:
        self._chat.app.push_screen(screen, on_result)

    def run_in_background(self, work: Awaitable[Any], group: str) -> None:
        self._chat.run_worker(work, group=group, exit_on_error=False)

    def put_in_prompt(self, text: str) -> None:
        self._chat.prompt.put_in(text)

    def transcript_blocks(self) -> Sequence[Block]:
        return self._chat.transcript_blocks()

    def show_help(self, sections: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> None:
        from zett_tui.ui.widgets.help_block import HelpBlock

        self._chat.add_block(HelpBlock(sections))

    def key_help(self) -> list[tuple[str, str]]:
        return self._chat.key_help()

    def set_mode(self, mode: PermissionMode, note: str = "") -> None:
        self._chat.set_mode(mode, note)

    def model_switched(self, label: str, *, is_demo: bool) -> None:
        from zett_tui.runtime.events import ContextMeasured

        self._chat.show_model(label, is_demo=is_demo)
        host = self.host
        if host is not None:
            measured = host.last_context
            self._chat.show_context(
                ContextMeasured(measured.tokens if measured else 0, host.context_window, estimated=True),
                window_guessed=host.context_window_guessed,
            )

    def context_changed(self, measured: ContextMeasured) -> None:
        host = self.host
        self._chat.show_context(
            measured, window_guessed=host.context_window_guessed if host is not None else False
        )

    def review_trust(self) -> None:
        from zett_tui.ui.chat.trust_prompt import review_trust

        self._chat.run_worker(
            review_trust(self._chat, self.launch, self.host), group="trust", exit_on_error=False
        )

    def post(self, message: Message) -> None:
        self._chat.post_message(message)
