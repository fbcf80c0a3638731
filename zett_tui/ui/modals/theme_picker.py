"""Choose a theme from a list; the app takes each highlighted theme at once (a live preview).

Enter keeps the highlighted theme and returns its name, Esc puts the old theme back and returns
None. The first row, ``auto``, previews the theme for the terminal's background. The picker does
not save anything: the caller (``/theme``, the command palette) decides what to do with the name.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.theme import BUILTIN_THEMES
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from zett_tui.ui.speed.shown_rows import draw_only_changes
from zett_tui.ui.themes import AUTO


class ThemePicker(ModalScreen[str | None]):
    """``names`` in the order shown; ``auto_theme`` is what ``auto`` stands for right now."""

    DEFAULT_CSS = """
    ThemePicker {
        align: right middle;
        background: $background 10%;
    }
    ThemePicker > #picker {
        width: 50;
        height: auto;
        max-height: 90%;
        margin: 0 2;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    ThemePicker #picker-title {
        text-style: bold;
        color: $text-primary;
        margin-bottom: 1;
    }
    ThemePicker OptionList {
        height: auto;
        max-height: 20;
    }
    ThemePicker #picker-keys {
        color: $text-muted;
        margin-top: 1;
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Keep the old theme", show=False)]

    def __init__(
        self, names: list[str], *, current: str, auto_theme: str, auto_selected: bool = False
    ) -> None:
        super().__init__()
        draw_only_changes(self)  # drawn whole again as it opens: only what changed (speed/)
        self.names = names
        self.original = current
        self.auto_theme = auto_theme
        self.auto_selected = auto_selected

    def compose(self) -> ComposeResult:
        auto = Option(f"auto: follow the terminal ({self.auto_theme})", id=AUTO)
        own = [Option(name, id=name) for name in self.names if name not in BUILTIN_THEMES]
        textual = [Option(name, id=name) for name in self.names if name in BUILTIN_THEMES]
        themes = OptionList(
            auto, None, *own, *([None] if own and textual else []), *textual, markup=False, compact=True
        )
        ids = [AUTO, *(option.id for option in (*own, *textual))]
        start = AUTO if self.auto_selected else self.original
        themes.highlighted = ids.index(start) if start in ids else 0
        with Vertical(id="picker"):
            yield Static("Theme", id="picker-title")
            yield themes
            yield Static("↑/↓ preview · Enter keep · Esc cancel", id="picker-keys", markup=False)

    def on_mount(self) -> None:
        themes = self.query_one(OptionList)
        themes.focus()
        if themes.highlighted is not None:
            themes.scroll_to_highlight()

    def theme_for(self, option_id: str) -> str:
        return self.auto_theme if option_id == AUTO else option_id

    @on(OptionList.OptionHighlighted)
    def _preview(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index != event.option_list.highlighted:
            return  # queued before the highlight moved on (the list starts on its first row)
        if event.option.id is not None:
            self.app.theme = self.theme_for(event.option.id)

    @on(OptionList.OptionSelected)
    def _keep(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.app.theme = self.theme_for(event.option.id)
            self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.app.theme = self.original
        self.dismiss(None)
