"""The Textual application: key handling that must win everywhere, quitting, and crash safety."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import TextArea

if TYPE_CHECKING:
    from textual.await_remove import AwaitRemove
    from textual.dom import DOMNode
    from textual.widget import Widget

from zett_tui.core import paths
from zett_tui.core.long_lived_objects import collect_everything, full_collection_due, full_collection_overdue
from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.mcp.lifetime import ProcessMcp
from zett_tui.terminal.hangup import Ending, EndWatch
from zett_tui.terminal.resume_guard import resume_only_after_suspend
from zett_tui.ui.app_messages import (
    CopyRequested,
    EffortChosen,
    ModelChosen,
    OpenSession,
    OpenSessionBrowser,
    QuitRequested,
    SettingsReloaded,
    ThemeRequested,
)
from zett_tui.ui.attention import Attention
from zett_tui.ui.chat.command_context import SlashCommand
from zett_tui.ui.chat.commands.registry import CommandList
from zett_tui.ui.chat.screen import ChatScreen
from zett_tui.ui.session_choices import SessionChoices
from zett_tui.ui.sixteen_colours import ReadableIn16Colours, runs_in_16_colours
from zett_tui.ui.speed.box_echo import BoxEcho
from zett_tui.ui.speed.echo_latency import keep_echo_quick
from zett_tui.ui.speed.predicted_echo import PredictedEcho, PromptLook, drawn_as, tracked
from zett_tui.ui.speed.shown_rows import forget_cells
from zett_tui.ui.textual_compat import (
    discard_exit_output,
    frame_reaches_terminal,
    keep_exception_for_tests,
    keep_terminal_replies_out_of_input,
    remember_copied_text,
    screen_compositor,
    stop_reading_terminal,
    terminal_driver,
    write_at_once_from_threads,
    written_at_once,
)
from zett_tui.ui.themes import MONOCHROME_CSS, READABLE_CSS, start_themes, theme_variable_defaults
from zett_tui.ui.widgets.composer import Composer

log = logging.getLogger(__name__)

#: A second Ctrl+C within this many seconds quits.
QUIT_WINDOW_SECONDS = 2.0
#: No key or mouse input for this long: a whole garbage collection will not be felt.
QUIET_SECONDS = 30.0


class ZettApp(App[str | None]):
    """Returns the session id on exit, so the CLI can print how to resume it."""

    TITLE = "zett"
    ENABLE_COMMAND_PALETTE = True  # Ctrl+P; the chat screen adds the slash commands (ui/palette.py)
    CSS = MONOCHROME_CSS + READABLE_CSS

    BINDINGS = [
        Binding("ctrl+c", "interrupt", "Clear / stop / quit", show=False, priority=True),
        Binding("ctrl+d", "eof", "Quit on an empty prompt", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("ctrl+o", "open_sessions", "Browse sessions", show=False),
        # priority: a terminal's Alt+C is a printable "c" that the composer would type instead
        Binding("alt+c", "copy_code", "Copy the last code block, raw (/copy)", show=False, priority=True),
    ]

    def __init__(self, launch: LaunchSettings, *, open_sessions: bool = False) -> None:
        """``open_sessions``: show the session browser once the chat is up (``zett --resume``
        without an id)."""
        super().__init__()
        self._open_sessions_at_start = open_sessions
        keep_echo_quick()
        keep_terminal_replies_out_of_input()
        write_at_once_from_threads()
        #: As launched (frozen); what the user changes since is ``choices``.
        self.launch = launch
        self.choices = SessionChoices(launch)
        self._crashed = False
        # Before the stylesheet is first parsed: chosen later, the whole stylesheet is parsed twice.
        for problem in start_themes(self, launch.theme, launch.terminal_background):
            launch.notices.append(("warning", problem))
        if not launch.animations:
            self.animation_level = "none"
        self.chat = self._new_chat(launch)
        #: Keys read before the first frame, shown in the box drawn before the app (``speed/box_echo``).
        self._box_echo = BoxEcho()
        #: Typed characters drawn from the driver's input thread while the loop is busy.
        self._predicted_echo = PredictedEcho(self._write_from_input_thread)
        #: The compositor whose frame the terminal last received (None: unknown; ``speed/shown_rows``).
        self.terminal_shows: object = None
        self._prompt_look = PromptLook()
        self._last_interrupt = 0.0
        self._quitting = False
        self._last_input = time.monotonic()
        self._quiet_timer: Timer | None = None
        #: The MCP servers of this process (started with the first agent, ``ui/chat/mcp_status.py``).
        self.mcp = ProcessMcp()
        #: Notifications and the terminal title when zett needs the user (``ui/attention.py``).
        self.attention = Attention(self, lambda: self.chat.launch.notify, lambda: self.chat.dialog_waiting)
        #: The terminal gone, SIGHUP or SIGTERM: quit as the user would (``terminal/hangup.py``).
        self.end_watch = EndWatch(self._ended_from_outside)
        #: After Textual's own: on a 16-colour terminal, pairs the downgrade spoils are fixed.
        self._zett_filters: list[LineFilter] = (
            [ReadableIn16Colours()] if runs_in_16_colours(self.console.color_system) else []
        )

    def _write_from_input_thread(self, sequences: str) -> None:
        """What the input thread draws is written at once when nothing waits to be written, else it
        goes through the driver's writer thread, after the frames queued before it."""
        driver = terminal_driver(self)
        if driver is None or self.is_headless or written_at_once(driver, sequences):
            return
        with contextlib.suppress(AssertionError):  # the driver stopped meanwhile (its writer is gone)
            driver.write(sequences)

    @staticmethod
    def _new_chat(launch: LaunchSettings) -> ChatScreen:
        """A chat offering zett's slash commands (their modules load at the first use)."""
        return ChatScreen(launch, CommandList(_builtin_commands))

    def get_default_screen(self) -> Screen[Any]:
        """The chat is the first screen (not pushed over an empty one): one screen less to lay out
        and draw before the first frame."""
        return self.chat

    async def on_mount(self) -> None:
        """Hold the app's queue until the composer has focus: the first keys (typed at start-up and
        replayed, or read by the driver) are handled after this, so none goes nowhere."""
        if not self.is_headless:
            self._predicted_echo.enabled = True
            self.end_watch.start(asyncio.get_running_loop(), _terminal_fd())
            resume_only_after_suspend()
            self.app_resume_signal.subscribe(self, self._resumed)
        with contextlib.suppress(TimeoutError):  # a chat that failed to mount is reported, not waited for
            await asyncio.wait_for(self.chat.ready_for_keys.wait(), timeout=10)
        self._box_echo.stop()  # its keys go to the prompt now (the box got its last line in the chat's mount)
        if self._open_sessions_at_start:
            self.open_session_browser()

    def on_load(self) -> None:
        from zett_tui.ui.speed.typeahead_replay import replay_typeahead

        self.chat.typed_at_start = replay_typeahead(self)  # before the driver starts: these come first
        self._box_echo.start(self.chat.typed_at_start)

    def _post_message(
        self, message: Message
    ) -> Coroutine[Any, Any, bool]:  # textual_compat.DRIVER_POST_METHOD
        """What the terminal driver calls in its input thread for each event (and awaits on the
        loop): a key is counted here, so the chat's frames wait for it to reach the prompt from the
        first event-loop turn on (``speed/keys_first``)."""
        if isinstance(message, events.Key) and (message.is_printable or message.key == "backspace"):
            self.chat.keys_in_flight.arrived()  # not Esc, Ctrl+C and the like: bindings take them
            self._box_echo.key(message)
        if tracked(message):
            self._predicted_echo.arrived(message, drawn_as(message))
        return super()._post_message(message)

    def _display(self, screen: Screen[Any], renderable: Any) -> None:  # textual_compat.FRAME_WRITTEN_METHOD
        """After each frame written: whose rows the terminal shows (``speed/shown_rows``), and
        where a key typed next is drawn from the input thread (``speed/predicted_echo``)."""
        reaches = renderable is not None and frame_reaches_terminal(self)
        super()._display(screen, renderable)
        if reaches:
            self.terminal_shows = screen_compositor(screen)
        self._publish_echo_spot()

    def forget_terminal(self) -> None:
        """The terminal may show anything now (back from a suspend): the next frame of every
        screen is drawn whole, each row."""
        self.terminal_shows = None

    def _prune(
        self, *nodes: Widget, parent: DOMNode | None = None
    ) -> AwaitRemove:  # textual_compat.NODES_REMOVED_METHOD
        """A screen removed (a dialog closed, a screen popped) is pruned with no parent: Textual's
        would lay out and repaint the app, whose current screen the removal leaves as it was and
        which is already being drawn again whole as it comes back: two more whole frames at every
        dialog's close (``tests/test_state_changes_output.py``). What else Textual does
        then, the hover under the pointer brought up to date, every frame drawn does too. Over a
        dialog (which shows the screens below it) it is left to Textual: one of those may be gone."""
        screens = nodes and all(isinstance(node, Screen) for node in nodes)
        stack = self.screen_stack  # (empty as the app closes: no current screen to spare)
        if parent is not self or not screens or not stack or stack[-1].is_modal:
            return super()._prune(*nodes, parent=parent)
        return super()._prune(*nodes, parent=None)

    def _publish_echo_spot(self) -> None:
        if not self._predicted_echo.enabled:
            return
        prompt = self.chat.keys_in_flight.prompt
        if isinstance(prompt, Composer) and self.screen is self.chat and not self.is_inline:
            self._predicted_echo.publish(self._prompt_look.spot(prompt, prompt.single_erases))
        else:
            self._predicted_echo.publish(None)

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, events.InputEvent):
            await self._on_any_event(event)
            return
        self._last_input = time.monotonic()
        to_prompt = False
        try:
            to_prompt = await self._on_any_event(event)
        finally:
            if not to_prompt and tracked(event):  # else the prompt says when it has handled it
                self.input_handled(event)

    def input_handled(self, event: events.InputEvent) -> None:
        """``event`` has been handled: the cells the input thread drew for it are drawn again from
        what the app shows there (``speed/predicted_echo``)."""
        for cells in self._predicted_echo.handled(event):
            forget_cells(self.screen, cells)  # drawn from the input thread, outside the screen's frames
            self.screen.refresh(cells)
        self._publish_echo_spot()  # ignored while other events are on their way

    async def _on_any_event(self, event: events.Event) -> bool:
        """True when the event went to the prompt (which handles it later, in order)."""
        if isinstance(event, events.Key | events.MouseDown | events.Paste):
            self.attention.user_is_here()
        if (
            isinstance(event, events.Key | events.Paste)
            and not event.is_forwarded
            and self.screen is self.chat
        ):
            if isinstance(event, events.Key) and not self.app_focus:
                self.app_focus = True  # as Textual's own handling does
            if self.chat.prompt.forward_key(event):  # in order (keys_in_order.py)
                return True
        await super().on_event(event)
        return False

    def on_app_focus(self, _event: events.AppFocus) -> None:
        self.attention.focus_changed(True)

    def on_app_blur(self, _event: events.AppBlur) -> None:
        self.attention.focus_changed(False)

    def on_unmount(self) -> None:
        """However zett ends (quit, crash, the test harness), while the driver still writes."""
        self.end_watch.stop()
        self.attention.closing()

    def _resumed(self, _app: App[Any]) -> None:
        """Back from a suspend (SIGTSTP, then ``fg``): the terminal's screen was the shell's, so
        every cell is drawn again. Textual does this after ``App.suspend()``, not after a signal."""
        self.forget_terminal()
        self.refresh(layout=True)

    def _ended_from_outside(self, ending: Ending) -> None:
        """The terminal is gone or a stop signal came: quit as Ctrl+Q does (the turn is cancelled
        and recorded), with the status a shell expects. A dead terminal's input threads are told to
        stop first: they would spin on its end-of-file while zett closes."""
        if ending.terminal_gone:
            stop_reading_terminal(self)
        self.run_worker(self.action_quit(status=ending.status), group="quit")

    def collect_when_quiet(self) -> None:
        """Once a whole garbage collection is due (``long_lived_objects``), run it when the user
        has left zett alone for a while and no turn runs: it takes a noticeable moment."""
        if not full_collection_due():
            return
        quiet_for = time.monotonic() - self._last_input
        if (quiet_for >= QUIET_SECONDS or full_collection_overdue()) and not self.chat.turns.busy:
            if self._quiet_timer is not None:
                self._quiet_timer.stop()
                self._quiet_timer = None
            self.collect_now()
        elif self._quiet_timer is None:
            self._quiet_timer = self.set_timer(max(1.0, QUIET_SECONDS - quiet_for), self._quiet_timer_fired)

    def collect_now(self) -> None:
        """What a quiet moment runs: forget the styles of lines drawn long ago
        (``ui.speed.drawn_styles``), then collect the whole heap (``long_lived_objects``)."""
        from zett_tui.ui.speed.drawn_styles import forget_drawn_styles

        forget_drawn_styles()
        collect_everything()

    def _quiet_timer_fired(self) -> None:
        self._quiet_timer = None
        self.collect_when_quiet()

    def get_line_filters(self) -> Sequence[LineFilter]:
        return [*super().get_line_filters(), *self._zett_filters]

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette entries, less its developer ones, and less Theme and Quit on the chat
        screen (/theme and /quit list there)."""
        from zett_tui.ui.chat.palette import without_duplicates

        yield from without_duplicates(super().get_system_commands(screen), screen)

    def action_change_theme(self) -> None:
        """The command palette's theme entry: zett's picker, which saves the choice."""
        from zett_tui.ui.theme_choice import open_theme_picker

        open_theme_picker(self, self.chat.say, self.choices)

    # -- what screens and commands ask of the app (ui/app_messages.py) --------------------------

    def on_quit_requested(self, _message: QuitRequested) -> None:
        self.run_worker(self.action_quit(), group="quit")

    def on_open_session(self, message: OpenSession) -> None:
        self.run_worker(
            self.open_session(message.session_id, message.resume_path),
            group="switch-session",
            exit_on_error=False,
        )

    def on_open_session_browser(self, _message: OpenSessionBrowser) -> None:
        self.open_session_browser()

    def on_theme_requested(self, message: ThemeRequested) -> None:
        from zett_tui.ui.theme_choice import choose_theme

        choose_theme(self, message.name, self.chat.say, self.choices)

    def on_copy_requested(self, message: CopyRequested) -> None:
        self.copy_to_clipboard(message.text, label=message.label)

    def on_model_chosen(self, message: ModelChosen) -> None:
        self.choices.choose_model(message.selection)

    def on_effort_chosen(self, message: EffortChosen) -> None:
        self.choices.set_effort(message.effort)

    def on_settings_reloaded(self, message: SettingsReloaded) -> None:
        self.choices.settings_reloaded(message.settings)

    # -- Ctrl+C: copy a selection, else clear the prompt, else stop the turn, else quit twice ----

    def action_interrupt(self) -> None:
        chat = self.chat
        if self.screen is not chat:
            if not chat.turns.cancel():
                self.screen.dismiss(None)
            return
        selected = self._selected_text()
        if selected:
            self.copy_to_clipboard(selected)  # notifies what actually happened
            self.screen.clear_selection()
            return
        if chat.prompt.clear():
            return
        if chat.turns.cancel():
            return
        now = time.monotonic()
        if now - self._last_interrupt <= QUIT_WINDOW_SECONDS:
            self.run_worker(self.action_quit(), group="quit")
            return
        self._last_interrupt = now
        chat.show_hint("Press Ctrl+C again to quit")
        self.set_timer(QUIT_WINDOW_SECONDS, self._clear_hint)

    def _clear_hint(self) -> None:
        if time.monotonic() - self._last_interrupt >= QUIT_WINDOW_SECONDS - 0.05:
            self.chat.show_hint("")

    def _selected_text(self) -> str | None:
        focused = self.focused
        if isinstance(focused, TextArea) and focused.selected_text:
            return focused.selected_text
        try:
            return self.screen.get_selected_text()
        except Exception:
            return None

    def copy_to_clipboard(self, text: str, *, label: str = "") -> None:
        """Every copy in the app: OSC 52 wrapped for tmux/screen, a local tool, a file when too large
        (zett_tui/terminal/clipboard.py), instead of Textual's lone OSC 52; a notice says what happened,
        starting with ``label`` when given."""
        from zett_tui.ui.copying import copy_in_background

        remember_copied_text(self, text)  # Textual's own paste buffer
        copy_in_background(self, text, label)

    def action_copy_code(self) -> None:
        """Alt+C: the last answer's last code block, raw, like ``/copy``."""
        if self.screen is self.chat:
            from zett_tui.ui.chat.answer_copy import from_last_answer

            chosen = from_last_answer(self.chat.transcript_blocks())
            if isinstance(chosen, str):
                self.chat.say(chosen, "warning")
            else:
                self.copy_to_clipboard(chosen[0], label=chosen[1])

    def action_open_sessions(self) -> None:
        """Ctrl+O: the session browser, over the chat (not over a dialog)."""
        if self.screen is self.chat:
            self.open_session_browser()

    def open_session_browser(self) -> None:
        """Show the browser over the chat (nothing happens when it is already open)."""
        from zett_tui.ui.browser.screen import SessionBrowser

        if isinstance(self.screen, SessionBrowser):
            return
        launch = self.launch  # every chat of this app has its folder and its data folders
        overrides: dict[str, Any] = launch.host_overrides
        self.push_screen(
            SessionBrowser(
                launch.cwd,
                current_session=self.current_session_id,
                sessions_directory=overrides.get("sessions_dir"),
                history_database=overrides.get("history_db"),
            )
        )

    def current_session_id(self) -> str | None:
        """The session the chat is in: its host's, or (before the model is ready) the one resumed."""
        return self.chat.session_id

    def action_eof(self) -> None:
        """Ctrl+D quits on an empty prompt (like a shell) and deletes forward otherwise; during a
        turn it is Ctrl+C (a reflexive Ctrl+D must not quit zett in the middle of an answer)."""
        if self.chat.turns.busy:
            self.action_interrupt()
            return
        on_prompt = self.screen is self.chat and self.chat.prompt.has_focus(self.focused)
        if on_prompt and not self.chat.prompt.delete_right():
            self.run_worker(self.action_quit(), group="quit")

    async def open_session(self, session_id: str | None, resume_path: Path | None = None) -> None:
        """Leave the current session (a running turn is stopped and recorded) and open another:
        a recorded one to resume, or a new one when ``session_id`` is None."""
        old = self.chat
        await old.shutdown()
        self.chat = self._new_chat(self.choices.next_launch(session_id, resume_path))
        while len(self.screen_stack) > 1 and self.screen is not old:
            self.pop_screen()
        if len(self.screen_stack) > 1:
            await self.switch_screen(self.chat)
        else:  # the first chat is the app's base screen, which Textual cannot switch away from
            old.transcript.clear()  # it stays below, closed and empty
            await self.push_screen(self.chat)

    async def action_quit(self, status: int = 0) -> None:
        """Quit cleanly: a running turn is cancelled and recorded before the app exits with ``status``."""
        if self._quitting:
            return
        self._quitting = True
        await self.chat.shutdown()
        await asyncio.to_thread(self.mcp.stop)
        self.exit(self.chat.session_id, return_code=status)

    # -- crash safety: no traceback (with prompts and keys in its locals) reaches the screen ----

    def _handle_exception(self, error: Exception) -> None:  # textual_compat.HANDLE_EXCEPTION_METHOD
        """The first error names the crash; what fails while zett is closing after it is only logged."""
        log.critical("internal error", exc_info=error)
        if self._crashed:
            return
        self._crashed = True
        keep_exception_for_tests(self, error)  # lets App.run_test re-raise it in tests
        discard_exit_output(self)
        self.exit(
            None,
            return_code=1,
            message=f"zett stopped after an internal error ({type(error).__name__}). "
            f"Your session is saved; details are in {paths.log_file()}.",
        )


def _terminal_fd() -> int | None:
    """The terminal the driver reads keys from (its standard input), if it has one."""
    try:
        return sys.__stdin__.fileno() if sys.__stdin__ is not None else None
    except (OSError, ValueError):
        return None


def _builtin_commands() -> Mapping[str, SlashCommand]:
    from zett_tui.ui.chat.commands.builtin import builtin_commands

    return builtin_commands()
