"""What the chat's helpers (turns, dialogs, the trust question, MCP sign-in, workspace commands)
may do to the chat screen: say a line, show the queue, the context and the tokens, put text back
in the prompt, start a presenter for a turn. (The activity is not theirs to show: the screen binds
it to the session core's.) The chat screen (``screen.py``, the
composition root) implements it; the helpers import this, never the screen, so the screen's
widgets stay the screen's business.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual import events
    from textual._types import CallbackType as Callback
    from textual.app import App
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.timer import Timer, TimerCallback
    from textual.worker import Worker

    from zett_tui.core.todo_items import TodoItem
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.runtime.events import ContextMeasured
    from zett_tui.runtime.modes import PermissionMode
    from zett_tui.runtime.session import SessionCore
    from zett_tui.runtime.turn_model import TurnModel
    from zett_tui.ui.attention import Attention
    from zett_tui.ui.chat.commands.registry import CommandList
    from zett_tui.ui.chat.presenter import TurnPresenter
    from zett_tui.ui.widgets.transcript import Block, UserBlock

__all__ = ["ChatApp", "ChatView", "Dialogs", "Prompt", "Turns"]


class ChatApp(Protocol):
    """What the chat screen uses of its app (``ui/app.py``)."""

    attention: Attention

    def collect_when_quiet(self) -> None: ...

    def input_handled(self, event: events.InputEvent) -> None: ...


class Turns(Protocol):
    """The chat's turns as the dialogs and slash commands use them (``turns.TurnRunner``)."""

    @property
    def busy(self) -> bool: ...

    def submit(self, text: str) -> None: ...

    def submit_with_model(self, text: str, model: TurnModel, *, put_back: str) -> None: ...

    def continue_interrupted(self) -> None: ...

    def compact(self) -> None: ...

    def steer(self, text: str) -> bool: ...

    def tell(self, text: str) -> bool:
        """A dialog's note to the running turn (not the user's steering)."""

    def decision_answered(
        self, call_id: str, *, declined: bool, outcome: str, session_id: str = ""
    ) -> None: ...


class Prompt(Protocol):
    """The chat's prompt as its helpers use it (``chat_prompt.ChatPrompt``)."""

    def put_back(self, text: str) -> None:
        """Put ``text`` in the prompt when it is empty (a prompt that was not sent is not lost)."""

    def put_in(self, text: str) -> None:
        """Replace the prompt with ``text``, the cursor at its end, the prompt focused."""

    def give_back(self, texts: Sequence[str]) -> None:
        """Put ``texts`` in the prompt before what is being typed (unsent prompts of a stopped turn)."""


class Dialogs(Protocol):
    """The chat's question dialogs (``decisions.DecisionDialogs``, the session core's asker)."""

    def close_all(self) -> None: ...


class ChatView(Protocol):
    """The chat screen as its helpers see it."""

    launch: LaunchSettings
    warmup_failed: bool
    commands: CommandList

    @property
    def turns(self) -> Turns: ...

    @property
    def session(self) -> SessionCore | None:
        """The session core (None until the model is ready): its host's typed parts are what the
        helpers use; the screen's own ``host`` is not theirs."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def is_attached(self) -> bool: ...

    @property
    def is_running(self) -> bool: ...

    @property
    def dialogs(self) -> Dialogs: ...

    # -- what is shown ------------------------------------------------------------------------------

    def say(self, text: str, level: str = "info") -> None: ...

    def turn_settled(self) -> None:
        """The end of a turn has been handled: the checklist is no longer pinned."""

    def show_queued(self, queued: int) -> None:
        """The status line's count of prompts waiting (the queue changed)."""

    def show_todos(self, items: Sequence[TodoItem], *, turn_running: bool) -> None:
        """The todo checklist, pinned while a turn runs."""

    def show_queue(self, queued: int, *, turn_running: bool) -> None: ...

    def show_context(self, measured: ContextMeasured, *, window_guessed: bool | None = None) -> None: ...

    def show_tokens(self, input_tokens: int, output_tokens: int) -> None: ...

    def show_mcp(self, line: str) -> None:
        """The status line's word on the MCP servers (empty when all are ready)."""

    def show_model(self, label: str, *, is_demo: bool) -> None: ...

    def show_prompt(self, prompt: str | None) -> None:
        """A turn starts: its prompt in the transcript (None: an interrupted turn carried on)."""

    def new_presenter(self, model_label: str | None) -> TurnPresenter: ...

    def refresh_attachments(self) -> None: ...

    def mark_rewound(self, prompt: str) -> list[UserBlock]:
        """Mark the turns from ``prompt`` on as rewound; the prompts marked."""

    def unmark_rewound(self, blocks: list[UserBlock]) -> None: ...

    def add_block(self, block: Block) -> None: ...

    def transcript_blocks(self) -> Sequence[Block]: ...

    def key_help(self) -> list[tuple[str, str]]: ...

    def set_mode(self, mode: PermissionMode, note: str = "") -> None:
        """Switch the mode through the session core (nothing before the session is open); ``note``
        shows beside it in the status line for a few seconds."""

    @property
    def prompt(self) -> Prompt:
        """The prompt: text put in or given back (``chat_prompt.ChatPrompt``)."""

    # -- the rest -----------------------------------------------------------------------------------

    def use_settings(self, launch: LaunchSettings) -> None:
        """The chat's settings from now on (the folder's trust changed them)."""

    def close_dialogs(self) -> None: ...

    def dialog_opened(self, question: str) -> None:
        """A dialog waits for the user: the bell (when on) and the attention notification."""

    def turn_ended(self, about: str, *, failed: bool) -> None:
        """A turn the user may not be watching ended: the attention notification."""

    def collect_when_quiet(self) -> None:
        """A turn ended: the app collects garbage once the user is idle."""

    # Textual's own, as the screen has them

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def run_worker(
        self,
        work: Awaitable[Any],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...

    def set_timer(
        self,
        delay: float,
        callback: TimerCallback | None = None,
        *,
        name: str | None = None,
        pause: bool = False,
    ) -> Timer: ...

    def call_later(self, callback: Callback, *args: Any, **kwargs: Any) -> bool: ...

    def post_message(self, message: Message) -> bool: ...
