"""The find bar under the transcript (Ctrl+F): a query field and "3 of 17".

Typing searches as it goes (`Transcript.find`); Enter and F3 go to the next match, Shift+Enter and
Shift+F3 (and Up/Down) to the previous and next; Esc closes the bar and puts the transcript back where
the reader was. The bar is mounted at its first use, so start-up does not pay for it.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Static

from zett_tui.ui.widgets.transcript import Transcript

NO_MATCHES = "no matches"
KEYS_HINT = "Enter/↓ next · Shift+Enter/↑ previous · Esc close"
HINT_MIN_WIDTH = 90
"""Narrower than this, the bar leaves out the keys hint so the query field keeps its room."""


def find_label(number: int, total: int, query: str, complete: bool = True) -> str:
    """What the bar says about the matches: "3 of 17", "no matches", or nothing before a query;
    "…" while some blocks are still being counted."""
    if not query:
        return ""
    more = "" if complete else "…"
    if not total:
        return "searching…" if more else NO_MATCHES
    return f"{number} of {total}{more}" if number else f"{total}{more} matches"


class FindBar(Horizontal):
    """Finds text in one transcript; hidden until `open`."""

    DEFAULT_CSS = """
    FindBar {
        height: 1;
        display: none;
        background: $panel;
        padding: 0 1;
    }
    FindBar.-open {
        display: block;
    }
    FindBar > .find-title {
        width: auto;
        color: $text-muted;
        padding-right: 1;
    }
    FindBar > Input {
        width: 1fr;
        height: 1;
        border: none;
        padding: 0;
        background: $panel;
    }
    FindBar > Input:focus {
        border: none;
    }
    FindBar > #find-count {
        width: auto;
        min-width: 10;
        padding-left: 1;
        color: $text;
    }
    FindBar > #find-keys {
        width: auto;
        padding-left: 2;
        color: $text-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close find, back to where you were", show=False),
        Binding("shift+enter", "step(-1)", "Previous match", show=False),
        Binding("up", "step(-1)", "Previous match", show=False),
        Binding("down", "step(1)", "Next match", show=False),
    ]

    def __init__(self, transcript: Transcript, *, id: str | None = "find-bar") -> None:
        super().__init__(id=id)
        self.transcript = transcript
        self._return_focus: Widget | None = None
        self.searched: str | None = None
        """The last query the transcript was searched for (for tests and benchmarks)."""

    def compose(self) -> ComposeResult:
        yield Static("Find", classes="find-title")
        yield Input(placeholder="text in the transcript", id="find-input", select_on_focus=True)
        yield Static("", id="find-count")
        yield Static(KEYS_HINT, id="find-keys")

    @property
    def input(self) -> Input:
        return self.query_one("#find-input", Input)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def label(self) -> str:
        """What the bar says about the matches now."""
        return find_label(*self.transcript.find_position, self.input.value, self.transcript.find_complete)

    def open(self) -> None:
        """Show the bar and focus its field (a query left from last time is searched again, selected)."""
        if not self.is_open:
            focused = self.app.focused
            self._return_focus = focused if focused is not None and focused is not self.input else None
            self.add_class("-open")
            self.transcript.open_find()
            self.transcript.on_find_changed = self._show_count
            if self.input.value:
                self.transcript.find(self.input.value)
        self.input.focus()
        self._show_count()

    def step(self, direction: int) -> None:
        """The next (1) or previous (-1) match; opens the bar when it is closed."""
        if not self.is_open:
            self.open()
            return
        self.transcript.find_next(direction)
        self._show_count()

    def action_step(self, direction: int) -> None:
        self.step(direction)

    def action_close(self) -> None:
        if not self.is_open:
            return
        self.transcript.on_find_changed = None
        self.transcript.close_find()
        self.remove_class("-open")
        back = self._return_focus
        self._return_focus = None
        if back is not None and back.is_attached and back.focusable:
            back.focus()
        else:
            self.screen.focus_next()

    def on_resize(self) -> None:
        self.query_one("#find-keys").display = self.size.width >= HINT_MIN_WIDTH

    @on(Input.Changed, "#find-input")
    def _query_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.is_open:
            self.transcript.find(event.value)
            self.searched = event.value
            self._show_count()

    @on(Input.Submitted, "#find-input")
    def _next(self, event: Input.Submitted) -> None:
        event.stop()
        self.step(1)

    def _show_count(self) -> None:
        self.query_one("#find-count", Static).update(self.label)


async def find_bar_of(screen: Widget, transcript: Transcript) -> FindBar:
    """The find bar for `transcript` on `screen`, mounted just below the transcript at the first use."""
    for bar in screen.query(FindBar):
        if bar.transcript is transcript:
            return bar
    bar = FindBar(transcript)
    await screen.mount(bar, after=transcript)
    return bar
