"""One line at the bottom: model, session, last turn's tokens, and what the agent is doing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.geometry import Region
from textual.reactive import reactive
from textual.widget import Widget

from zett_tui.providers.context_window import describe_context
from zett_tui.runtime.activity import Activity, describe_activity
from zett_tui.ui.widgets.activity import BUSY_STILL, ActivitySpinner

if TYPE_CHECKING:
    from textual.timer import Timer

#: How long the line says what a new permission mode means (``show_mode_note``).
MODE_NOTE_SECONDS = 4.0


def format_tokens(count: int) -> str:
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


class StatusLine(Widget):
    """Shows state only; every field is a reactive set by the chat screen (the mode note goes by
    itself: ``show_mode_note``)."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        padding: 0 1;
        background: $status-line-background;
        color: $status-line-foreground;
    }
    StatusLine > .status-line--busy { color: $status-line-busy; text-style: bold; }
    StatusLine > .status-line--demo { color: $status-line-warning; }
    StatusLine > .status-line--warning { color: $status-line-warning; text-style: bold; }
    """
    # The $status-line-* variables come from the theme (ZettApp supplies them for Textual's themes).

    #: Activities that are waiting, not working: shown without the spinner. Waiting for the user
    #: too: a dialog's question is not work, and each turn of the spinner under a dialog made
    #: Textual draw the whole screen again (8 full frames a second for as long as it waited).
    STILL_ACTIVITIES = frozenset({Activity.IDLE, Activity.NOT_READY, Activity.READ_ONLY, Activity.WAITING})

    COMPONENT_CLASSES = {"status-line--busy", "status-line--demo", "status-line--warning"}

    model_label: reactive[str] = reactive("")
    is_demo: reactive[bool] = reactive(False)
    #: The session's id as the user may type it back (a unique prefix: ``sessions.ids.short_id_for``).
    session_id: reactive[str] = reactive("")
    #: What the session is doing (the chat binds it to its session core's).
    activity: reactive[Activity] = reactive(Activity.STARTING)
    #: The tools running, by name, while ``activity`` is WORKING (``running bash, grep``).
    tools: reactive[str] = reactive("")
    input_tokens: reactive[int] = reactive(0)
    output_tokens: reactive[int] = reactive(0)
    queued: reactive[int] = reactive(0)
    plan_mode: reactive[bool] = reactive(False)
    #: The permission mode's value ("ask", "accept_edits", "plan", "auto"); Shift+Tab cycles it.
    permission_mode: reactive[str] = reactive("ask")
    hint: reactive[str] = reactive("")
    #: What the permission mode just switched to means, beside it for a few seconds (not a toast).
    mode_note: reactive[str] = reactive("")
    #: What the MCP servers are doing when not all are ready ("MCP: 1 starting"); empty otherwise.
    mcp: reactive[str] = reactive("")
    #: Tokens in the context (the last model call's input and output), and the model's window.
    context_tokens: reactive[int] = reactive(0)
    context_window: reactive[int] = reactive(0)
    #: True until a model call has reported usage (and after a compaction or a model switch).
    context_estimated: reactive[bool] = reactive(True)
    #: True while the window is a guess (a local server that did not say): ``of ~128k``.
    context_window_guessed: reactive[bool] = reactive(False)
    #: From this share of the window on, the meter is shown as a warning (compaction is near).
    CONTEXT_WARNING_SHARE = 0.8

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        # The glyph is the line's first character (``render``), and nothing else on it moves.
        self.spinner = ActivitySpinner(self, cell=Region(0, 0, 1, 1))
        self._mode_note_timer: Timer | None = None

    def watch_activity(self, activity: Activity) -> None:
        self.spinner.set_busy(activity not in self.STILL_ACTIVITIES)

    def show_mode_note(self, note: str) -> None:
        """Show ``note`` beside the permission mode for ``MODE_NOTE_SECONDS``: each note replaces the
        last, none stacks."""
        self.mode_note = note
        if self._mode_note_timer is not None:
            self._mode_note_timer.stop()
        self._mode_note_timer = self.set_timer(MODE_NOTE_SECONDS, self._clear_mode_note)

    def _clear_mode_note(self) -> None:
        self.mode_note = ""
        self._mode_note_timer = None

    def show_context(
        self, tokens: int, window: int, *, estimated: bool, window_guessed: bool | None = None
    ) -> None:
        """Set the context meter (``ctx 23% of 200k``; ``≈`` while it is an estimate, ``~128k``
        while the window is a guess). ``window_guessed`` None keeps what the last call said."""
        self.context_tokens, self.context_window, self.context_estimated = tokens, window, estimated
        if window_guessed is not None:
            self.context_window_guessed = window_guessed

    def render(self) -> Text:
        busy = self.get_component_rich_style("status-line--busy", partial=True)
        demo = self.get_component_rich_style("status-line--demo", partial=True)
        warning = self.get_component_rich_style("status-line--warning", partial=True)
        line = Text(no_wrap=True, overflow="ellipsis")
        if self.hint:
            line.append(self.hint, style=warning)
            return line
        if self.activity is not Activity.IDLE:
            glyph = self.spinner.glyph() if self.spinner.busy else BUSY_STILL
            line.append(f"{glyph} {describe_activity(self.activity, self.tools)}", style=busy)
        else:
            line.append(f"{self.spinner.glyph()} idle")
        if self.queued:
            line.append(f"  ({self.queued} queued)")
        line.append("  │  ")
        if self.plan_mode or self.permission_mode == "plan":
            line.append("⏸ plan mode", style=warning)
        elif self.permission_mode == "auto":
            line.append("⚠ auto", style=warning)
        elif self.permission_mode == "accept_edits":
            line.append("✎ accept edits")
        else:
            line.append("ask")
        line.append("  │  ")
        if self.mode_note:
            line.append(self.mode_note, style=busy)
            line.append("  │  ")
        if self.mcp:
            line.append(self.mcp, style=warning if "failed" in self.mcp else "")
            line.append("  │  ")
        if self.is_demo:
            line.append("demo model (offline)", style=demo)
        else:
            line.append(self.model_label)
        if self.context_window:
            tokens, window = self.context_tokens, self.context_window
            line.append("  │  ")
            line.append(
                describe_context(
                    tokens,
                    window,
                    estimated=self.context_estimated,
                    window_guessed=self.context_window_guessed,
                ),
                style=warning if tokens >= window * self.CONTEXT_WARNING_SHARE else "",
            )
        if self.session_id:
            line.append(f"  │  session {self.session_id}")
        if self.input_tokens or self.output_tokens:
            sent, received = format_tokens(self.input_tokens), format_tokens(self.output_tokens)
            line.append(f"  │  last turn ↑{sent} ↓{received} tokens")
        line.truncate(max(1, self.content_size.width), overflow="ellipsis")
        return line
