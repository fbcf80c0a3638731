"""What a slash command may do, and nothing more: the one object a command handler is given.

A command says something, reads the host and the launch settings, runs or compacts a turn, opens
a screen, puts text in the prompt, runs work in the background, and asks the app for what only
the app does (quit, open a session, switch the theme, copy) by posting a message from
``ui/app_messages.py``. It never sees the chat screen or the app, so adding a command cannot
reach into either, and the command modules import neither.

``ChatCommandContext`` (``ui/chat/chat_command_context.py``) is the chat screen's implementation.
What a command is (:class:`SlashCommand`, its :data:`Handler`) lives here too, beside what its
handler is given: the registry (``commands/registry.py``) builds on both, and this module names
the chat's commands only through :class:`OfferedCommands`, so neither imports the other back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.message import Message
    from textual.screen import Screen

    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.runtime.events import ContextMeasured
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.modes import PermissionMode
    from zett_tui.runtime.turn_model import TurnModel
    from zett_tui.ui.widgets.transcript import Block

Handler = Callable[["CommandContext", str], Awaitable[None] | None]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    handler: Handler
    #: A short hint of the arguments, shown in completion and help (e.g. "[ID]").
    arguments: str = ""
    #: Where a command from a file came from ("user command", "project skill"); "" for zett's own.
    source: str = ""


class OfferedCommands(Protocol):
    """What a command reads of the chat's commands (``commands.registry.CommandList``)."""

    #: One line per command or skill file that did not load.
    problems: list[str]
    #: Lines about what was there but is not offered on purpose.
    notes: list[str]

    def added(self) -> Mapping[str, SlashCommand]:
        """The commands from files, by name."""
        ...


class CommandContext(Protocol):
    """The chat as a slash command sees it."""

    @property
    def host(self) -> AgentHost | None:
        """The agent host, or None while the model is starting (or when it could not start)."""
        ...

    @property
    def start_failed(self) -> bool:
        """The model could not start: there is no host, and none is coming."""
        ...

    @property
    def launch(self) -> LaunchSettings:
        """How this session was launched (read it; the app owns changes: see ``ModelChosen``)."""
        ...

    @property
    def cwd(self) -> Path: ...

    @property
    def turn_running(self) -> bool: ...

    def say(self, text: str, level: str = "info") -> None:
        """One line (or a few) in the transcript."""
        ...

    def mark_rewound(self, prompt: str) -> None:
        """A conversation rewind went back to just before the turn of ``prompt``: that turn and
        the later ones shown say they are out of the model's context."""
        ...

    def unmark_rewound(self) -> None:
        """The last conversation rewind was undone: its turns no longer say so."""
        ...

    def show_help(self, sections: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> None:
        """Headed two-column lists in the transcript (what F1 and ``/help`` show)."""
        ...

    def notify(
        self, text: str, *, title: str = "", severity: str = "information", timeout: float = 3
    ) -> None:
        """A toast that goes away by itself."""
        ...

    @property
    def commands(self) -> OfferedCommands:
        """Every command this chat offers: zett's own and those from files."""
        ...

    def send_prompt(self, text: str) -> None:
        """Send ``text`` as the user's prompt, through the turn runner (queued while one runs)."""
        ...

    def send_prompt_with_model(self, text: str, model: TurnModel, *, put_back: str) -> None:
        """Send ``text`` as a turn that ``model`` answers (the session's model answers the next);
        while a turn runs nothing is sent, a line says so and ``put_back`` returns to the prompt."""
        ...

    def continue_turn(self) -> None:
        """``/continue``: carry on the turn that was cut off."""
        ...

    def compact(self, host: AgentHost) -> None:
        """Summarize the older turns now, as a turn of its own."""
        ...

    def open_screen(self, screen: Screen[Any], on_result: Callable[[Any], None] | None = None) -> None: ...

    def run_in_background(self, work: Awaitable[Any], group: str) -> None:
        """Run ``work`` in a worker of the chat; a failure is logged, never raised into the app."""
        ...

    def put_in_prompt(self, text: str) -> None:
        """Replace the prompt's text with ``text``, the cursor at its end, for the user to finish."""
        ...

    def transcript_blocks(self) -> Sequence[Block]: ...

    def key_help(self) -> list[tuple[str, str]]:
        """Every key that does something on the chat, with what it does."""
        ...

    def set_mode(self, mode: PermissionMode, note: str = "") -> None:
        """Switch the session's permission mode, through the session core that owns it (the status
        line follows the core); ``note``, what the mode means, shows beside it for a few seconds."""
        ...

    def model_switched(self, label: str, *, is_demo: bool) -> None:
        """Show the new model and its context meter in the status line."""
        ...

    def context_changed(self, measured: ContextMeasured) -> None:
        """Show ``measured`` in the status line's context meter (the context changed between turns)."""
        ...

    def review_trust(self) -> None:
        """Ask again whether to trust this folder's ``.zett/`` settings and extensions."""
        ...

    def post(self, message: Message) -> None:
        """Ask the app (an ``ui/app_messages.py`` message)."""
        ...
