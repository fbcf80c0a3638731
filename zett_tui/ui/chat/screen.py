"""The chat screen: the composition root of the terminal UI.

It lays out the transcript, composer and status line, has ``session_start.SessionStart`` open the
session (``entry/bootstrap``) and hands it to a ``SessionCore`` (``runtime/session.py``) that runs
the turns, owns the queue and asks its questions through the chat's dialogs
(``decisions.DecisionDialogs``, the core's asker). The core's state (activity, queued prompts,
permission mode, context use) is held in this screen's vars, which ``compose`` binds to the
status line with ``data_bind``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.worker import Worker

from zett_tui.core import paths
from zett_tui.core.heap_arenas import limit_heaps
from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.activity import Activity
from zett_tui.terminal import first_frame
from zett_tui.ui.chat.changes_lines import notice_block, read_diffs_when_expanded
from zett_tui.ui.chat.chat_command_context import ChatCommandContext
from zett_tui.ui.chat.chat_prompt import ChatPrompt
from zett_tui.ui.chat.commands.registry import CommandList, split_command
from zett_tui.ui.chat.session_start import SessionStart
from zett_tui.ui.chat.turns import TurnRunner
from zett_tui.ui.speed.focus_repaint import focus_without_screen_repaint
from zett_tui.ui.speed.keys_first import KeysInFlight
from zett_tui.ui.speed.terminal_scroll import ScrollingCompositor
from zett_tui.ui.textual_compat import install_compositor
from zett_tui.ui.widgets.completion_menu import CompletionMenu
from zett_tui.ui.widgets.composer import Composer
from zett_tui.ui.widgets.queued_prompts import QueuedPrompts
from zett_tui.ui.widgets.status_line import StatusLine
from zett_tui.ui.widgets.todo_panel import TodoPanel
from zett_tui.ui.widgets.transcript import Block, NoticeBlock, Transcript, UserBlock
from zett_tui.ui.widgets.transcript_blocks import NoticeLevel

if TYPE_CHECKING:
    from textual.command import Provider

    from zett_tui.checkpoints.store import CheckpointStore
    from zett_tui.core.todo_items import TodoItem
    from zett_tui.runtime.events import ContextMeasured, Notice
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.modes import PermissionMode
    from zett_tui.runtime.session import SessionCore
    from zett_tui.ui.chat.decisions import DecisionDialogs
    from zett_tui.ui.chat.presenter import TurnPresenter
    from zett_tui.ui.chat.view import ChatApp

log = logging.getLogger(__name__)


def _chat_commands() -> type[Provider]:
    """The palette's provider, imported when the palette first opens (Textual accepts a callable)."""
    from zett_tui.ui.chat.palette import ChatCommands

    return ChatCommands


#: Two presses of Esc this close together at idle, on an empty prompt, open ``/rewind``.
DOUBLE_ESCAPE_SECONDS = 0.8


class ChatScreen(Screen[None]):
    """The transcript, composer and status line; ``turns`` runs the prompts, one turn at a time."""

    DEFAULT_CSS = """
    ChatScreen {
        layout: vertical;
    }
    ChatScreen > Transcript {
        height: 1fr;
    }
    """

    #: Focused as soon as the screen is composed, so keys typed at start-up land in the prompt.
    AUTO_FOCUS = "#composer"

    BINDINGS = [
        Binding("escape", "cancel_turn", "Stop the turn", show=False),
        Binding("shift+tab", "cycle_mode", "Permission mode: ask → accept edits → plan → auto", show=False),
        Binding("f1", "show_help", "Commands and keys", show=False, tooltip="List the commands and keys"),
        Binding("ctrl+f", "find", "Find in the transcript", show=False, priority=True),
        Binding("f3", "find(1)", "Next match", show=False),
        Binding("shift+f3", "find(-1)", "Previous match", show=False),
        *(
            Binding(key.key, f"read_transcript({key.action!r})", key.description, show=False)
            for key in Transcript.READING_KEYS
        ),
    ]
    #: Ctrl+P lists the slash commands and key-only actions (see ui/palette.py).
    COMMANDS = {_chat_commands}

    focused = focus_without_screen_repaint()  # a focus move repaints its two widgets (speed/)

    # The session's state as the status line shows it (bound in ``compose``; ``_session_changed``
    # follows the core). Plain ``var``s: the status line repaints its own row when one changes; a
    # reactive of the screen would draw the whole screen again each time (a turn's activity,
    # tools and context changes wrote ~36 KB a turn to the terminal).
    #: What the session is doing (``runtime.activity``), and the tools running while it works.
    activity: var[Activity] = var(Activity.STARTING)
    tools: var[str] = var("")
    #: Prompts waiting for the running turn to end.
    queued_prompts: var[int] = var(0)
    #: The permission mode's value ("ask", "accept_edits", "plan", "auto").
    permission_mode: var[str] = var("ask")
    #: The context meter: tokens in the context, the model's window, and how sure both are.
    context_tokens: var[int] = var(0)
    context_window: var[int] = var(0)
    context_estimated: var[bool] = var(True)
    context_window_guessed: var[bool] = var(False)

    def __init__(self, launch: LaunchSettings, commands: CommandList | None = None) -> None:
        super().__init__()
        if launch.terminal_scroll:  # the transcript's scrolls move the terminal's rows
            install_compositor(self, ScrollingCompositor())
        self.launch = launch
        #: Keys taken for the prompt and not handled yet: frames wait for them (``speed/keys_first``).
        self.keys_in_flight = KeysInFlight()
        #: The prompt as the app, the turns and the slash commands use it.
        self.prompt = ChatPrompt(self, self.keys_in_flight)
        #: When Esc was last pressed at idle on an empty prompt (``action_cancel_turn``).
        self._last_idle_escape = 0.0
        #: The slash commands offered here (the app passes zett's; none without it).
        self.commands = commands or CommandList(dict)
        #: What a slash command is given: what it may do here, and no more.
        self.command_context = ChatCommandContext(self)
        self.host: AgentHost | None = None
        self._dialogs: DecisionDialogs | None = None
        self.warmup_failed = False
        #: The only code that starts or stops a turn.
        self.turns = TurnRunner(self, answer_model=launch.model_label)
        if launch.read_only:
            self.turns.refuse_sends(
                "Nothing was sent: this session is read-only here, another zett is writing it. "
                "/new starts a new one."
            )
        #: Set once the composer has focus: keys handled before that would go nowhere.
        self.ready_for_keys = asyncio.Event()
        #: Plain text typed while zett started, put in the composer before the first frame.
        self.typed_at_start = ""

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        transcript = Transcript(id="transcript")
        transcript.hold_updates = self.keys_in_flight.waiting  # a typed key first (speed/keys_first)
        yield transcript
        yield QueuedPrompts(self.turns.queue, id="queued-prompts")
        yield TodoPanel(id="todo-panel")
        menu = CompletionMenu(id="completion-menu")
        yield menu
        yield Composer(
            id="composer",
            menu=menu,
            project_root=self.launch.cwd,
            history_file=paths.prompt_history_file(),
            commands=self.commands,
            queue=self.turns.queue,
            key_handled=self.prompt.handled,
        )
        yield StatusLine(id="status").data_bind(
            ChatScreen.activity,
            ChatScreen.tools,
            ChatScreen.permission_mode,
            ChatScreen.context_tokens,
            ChatScreen.context_window,
            ChatScreen.context_estimated,
            ChatScreen.context_window_guessed,
            queued=ChatScreen.queued_prompts,
        )

    @property
    def session(self) -> SessionCore | None:
        """The session core, once the model is ready (``open_session``)."""
        return self.turns.session

    @property
    def dialogs(self) -> DecisionDialogs:
        """The runtime's questions as dialogs (made at the first question or cancel)."""
        if self._dialogs is None:
            from zett_tui.ui.chat.decisions import DecisionDialogs

            self._dialogs = DecisionDialogs(self, self.launch.cwd)
        return self._dialogs

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def composer(self) -> Composer:
        return self.query_one(Composer)

    @property
    def todo_panel(self) -> TodoPanel:
        """The model's checklist, pinned above the prompt while a turn runs."""
        return self.query_one(TodoPanel)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def dialog_waiting(self) -> bool:
        """A dialog is open and waits for the user's answer."""
        return self._dialogs is not None and self._dialogs.open is not None

    def close_dialogs(self) -> None:
        """Close the open dialog, if any was made (a turn was cancelled)."""
        if self._dialogs is not None:
            self._dialogs.close_all()

    def _say_notice(self, notice: Notice) -> None:
        self.transcript.add(notice_block(notice))

    def _checkpoint_store(self) -> CheckpointStore | None:
        host = self.host
        return host.checkpoints.store if host is not None and host.checkpoints is not None else None

    def say(self, text: str, level: NoticeLevel | str = "info") -> None:
        """Say one line (or a few) in the transcript: what zett tells the user, not the model
        (``level`` is one of ``NoticeLevel``; another string is shown as info)."""
        self.transcript.add(NoticeBlock(text, level))

    # -- what the helpers may do (``ui/chat/view.py``: ChatView) ------------------------------------

    def _session_changed(self) -> None:
        """The session core's state changed: the vars the status line is bound to follow."""
        session = self.turns.session
        if session is None:
            return
        self.activity, self.tools = session.activity, session.tools
        self.permission_mode = session.mode.value
        if session.context is not None:
            self.show_context(session.context)

    def turn_settled(self) -> None:
        self.todo_panel.set_turn_running(False)

    def show_todos(self, items: Sequence[TodoItem], *, turn_running: bool) -> None:
        self.todo_panel.show(items)
        self.todo_panel.set_turn_running(turn_running)

    def show_queued(self, queued: int) -> None:
        self.queued_prompts = queued

    def show_queue(self, queued: int, *, turn_running: bool) -> None:
        self.queued_prompts = queued
        try:
            self.composer.show_turn_running(turn_running)
        except NoMatches:  # the chat is being taken down (quitting, or closing after a crash)
            return

    def show_context(self, measured: ContextMeasured, *, window_guessed: bool | None = None) -> None:
        """The context meter (``ctx 23% of 200k``; ``≈`` while it is an estimate, ``~128k`` while
        the window is a guess). ``window_guessed`` None keeps what the last call said."""
        self.context_tokens, self.context_window = measured.tokens, measured.window
        self.context_estimated = measured.estimated
        if window_guessed is not None:
            self.context_window_guessed = window_guessed

    def show_tokens(self, input_tokens: int, output_tokens: int) -> None:
        self.status.input_tokens = input_tokens
        self.status.output_tokens = output_tokens

    def show_mcp(self, line: str) -> None:
        self.status.mcp = line

    def show_model(self, label: str, *, is_demo: bool) -> None:
        self.status.model_label = label
        self.status.is_demo = is_demo

    def show_prompt(self, prompt: str | None) -> None:
        if prompt is not None:
            self.transcript.add(UserBlock(prompt))
        else:
            self.say("Continuing…")
        self.transcript.following = True

    def new_presenter(self, model_label: str | None) -> TurnPresenter:
        from zett_tui.ui.chat.presenter import TurnPresenter

        return TurnPresenter(
            self.transcript,
            schedule=lambda delay, callback: self.set_timer(delay, callback),
            model_label=model_label,
            on_todos=lambda changed: self.todo_panel.show(changed.items),
        )

    def mark_rewound(self, prompt: str) -> list[UserBlock]:
        from zett_tui.ui.chat.rewound_turns import mark_rewound_turns

        return mark_rewound_turns(self.transcript, prompt)

    def unmark_rewound(self, blocks: list[UserBlock]) -> None:
        from zett_tui.ui.chat.rewound_turns import unmark_turns

        unmark_turns(self.transcript, blocks)

    def refresh_attachments(self) -> None:
        self.composer.show_attachments()  # what an @ in the draft attaches

    def add_block(self, block: Block) -> None:
        self.transcript.add(block)

    def transcript_blocks(self) -> Sequence[Block]:
        return self.transcript.blocks

    def use_settings(self, launch: LaunchSettings) -> None:
        self.launch = launch

    def _on_timer_update(self) -> None:  # textual_compat.HELD_FRAME_METHOD
        """Draw what changed, unless a typed key is on its way to the prompt: the timer then keeps
        running and its next tick draws, after the key (``speed/keys_first``)."""
        if self.keys_in_flight.hold_frame():
            return
        super()._on_timer_update()

    @property
    def session_id(self) -> str | None:
        """The session this chat is in: its host's, or (before the model is ready) the one resumed."""
        return self.host.session_id if self.host is not None else self.launch.session_id

    def show_hint(self, text: str) -> None:
        self.status.hint = text

    def dialog_opened(self, question: str) -> None:
        if self.launch.bell:
            self.app.bell()
        cast("ChatApp", self.app).attention.dialog_opened(question)

    def turn_ended(self, about: str, *, failed: bool) -> None:
        cast("ChatApp", self.app).attention.turn_ended(about, failed=failed)

    def collect_when_quiet(self) -> None:
        self.app.call_later(cast("ChatApp", self.app).collect_when_quiet)

    def on_mount(self) -> None:
        read_diffs_when_expanded(
            self.transcript,
            self._checkpoint_store,
            lambda reading: self.run_worker(reading, group="changes-diff", exit_on_error=False),
        )
        self.composer.cursor_blink = self.app.animation_level != "none"  # blinking is motion too
        self.keys_in_flight.prompt = self.composer
        self.composer.focus()
        if self.typed_at_start:
            self.composer.insert(self.typed_at_start)
            self.typed_at_start = ""
        first_frame.app_paints()  # the box's echo (speed/box_echo) ends before this screen's first frame
        self.ready_for_keys.set()
        self.status.model_label = self.launch.model_label
        self.status.is_demo = self.launch.is_demo
        for level, text in self.launch.notices:
            self.say(text, level)
        self.call_after_refresh(self._after_first_frame)  # before the agent's warm-up, queued below
        SessionStart(self, self.transcript, settings=lambda: self.launch).begin()  # past, then agent

    def _after_first_frame(self) -> None:
        """The threads share a few heaps from now on (``core.heap_arenas``), set before the first that
        lives for the session: the prompt history's, then the agent's."""
        limit_heaps()
        self.composer.load_history()

    # -- what the start-up hands back (``session_start.StartingChat``) ------------------------------

    def show_activity(self, activity: Activity) -> None:
        """Before the session opens (starting, read-only, not ready); after, the core says it."""
        self.activity, self.tools = activity, ""

    def past_shown(self, answer_model: str | None) -> None:
        self.turns.answer_model = answer_model or self.launch.model_label

    def model_failed(self) -> None:
        self.warmup_failed = True
        self.turns.refuse_sends(
            "Nothing was sent: the model could not start; see the message above.", "error"
        )

    def take_host(self, host: AgentHost, measured: ContextMeasured) -> None:
        self.show_context(measured, window_guessed=host.context_window_guessed)
        self.host = host
        self.composer.read_rules = host.read_access  # the @ chips follow the session's read grants
        self.composer.images.model_label = lambda: host.model_label  # pasted images fit its limits
        host.listen_between_turns(self._say_notice)

    def open_session(self, host: AgentHost) -> None:
        """The session core runs the turns from now on; its questions go to the dialogs."""
        from zett_tui.runtime.session import SessionCore

        session = SessionCore(host, self.dialogs, queued=self.turns.queue)
        self.dialogs.attach(session)
        session.state_listeners.append(self._session_changed)
        self.turns.attach(session)
        self._session_changed()

    def show_session_label(self, label: str) -> None:
        self.status.session_id = label

    # -- prompts and turns ----------------------------------------------------------------------

    @on(Composer.Submitted)
    def _submitted(self, event: Composer.Submitted) -> None:
        text = event.text.strip()
        command = split_command(text)
        if command is not None:
            if not self._run_command(*command):
                self.composer.put_back(event.text)  # a typo in the name must not cost the arguments
            return
        self.status.mode_note = ""  # read by now: the status line shows the turn
        if event.queue:
            self.turns.queue_for_later(text)
        else:
            self.turns.submit(text)

    def _run_command(self, name: str, arguments: str) -> bool:
        """Run ``/name arguments``; False (and a line saying so) when there is no such command."""
        if self.commands.run(self.command_context, name, arguments):
            return True
        suggestions = self.commands.nearest(name)
        hint = f" Did you mean {', '.join('/' + s for s in suggestions)}?" if suggestions else ""
        self.say(f"Unknown command /{name}: nothing was sent.{hint} /help lists them all.", "warning")
        return False

    def action_show_help(self) -> None:
        """F1: the same list as /help."""
        self.commands.run(self.command_context, "help", "")

    async def action_find(self, direction: int = 0) -> None:
        """Ctrl+F opens the find bar (ui/widgets/find_bar.py); F3 and Shift+F3 step through matches."""
        from zett_tui.ui.widgets.find_bar import find_bar_of

        bar = await find_bar_of(self, self.transcript)
        if direction:
            bar.step(direction)
        else:
            bar.open()

    def key_help(self) -> list[tuple[str, str]]:
        """Every key that does something here, with what it does (``key_help``)."""
        from zett_tui.ui.chat.key_help import keys_in_effect

        return keys_in_effect(self.app.active_bindings.values())

    async def action_read_transcript(self, action: str) -> None:
        """Scrolling and block keys pressed in the prompt act on the transcript (its READING_KEYS)."""
        await self.app.run_action(action, self.transcript)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.turns.worker_state_changed(event)

    # -- permission modes -----------------------------------------------------------------------

    def action_cycle_mode(self) -> None:
        from zett_tui.ui.chat.commands.permissions import cycle_mode

        cycle_mode(self.command_context)

    def set_mode(self, mode: PermissionMode, note: str = "") -> None:
        """Switch the mode through the session core (the status line follows it:
        ``_session_changed``), and show ``note`` beside it for a few seconds (``show_mode_note``)."""
        session = self.turns.session
        if session is None:  # the model is still starting: there is no mode to switch yet
            return
        session.set_mode(mode)
        if note:
            self.status.show_mode_note(note)

    # -- stopping -------------------------------------------------------------------------------

    def action_cancel_turn(self) -> None:
        """Esc stops the running turn; at idle on an empty prompt, Esc twice opens ``/rewind``."""
        if self.turns.cancel() or self.turns.busy or self.composer.text.strip():
            self._last_idle_escape = 0.0
            return
        now = time.monotonic()
        if now - self._last_idle_escape < DOUBLE_ESCAPE_SECONDS:
            self._last_idle_escape = 0.0
            self._run_command("rewind", "")
        else:
            self._last_idle_escape = now

    async def on_unmount(self) -> None:
        """However the screen goes away (quit, /new, a crash, a test ending), a running turn is
        recorded and the provider and stores close. After a crash nothing called :meth:`shutdown`:
        Textual cancelled the turn's worker, which is still writing the turn's record as cancelled;
        closing the host under it lost that line."""
        await self.shutdown()

    async def shutdown(self) -> None:
        """Cancel a running turn, wait until it is recorded, and close the host."""
        await self.turns.stop()
        if self.host is not None:
            await self.host.aclose()
