"""Choose a model from a list; Enter returns its spec, Esc returns None.

The picker only chooses: ``/model`` checks the choice and switches. An endpoint row's spec ends in
a colon (``local:``), because its model name has to be typed.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from zett_tui.providers.catalog import ModelOption
from zett_tui.ui.speed.shown_rows import draw_only_changes

CURRENT_MARK = "● "


def option_prompt(option: ModelOption) -> Text:
    """``● anthropic:claude-sonnet-5  in use``: the current model marked, the detail dimmed."""
    text = Text(CURRENT_MARK if option.current else "  ", no_wrap=True, overflow="ellipsis")
    text.append(option.label, style="bold" if option.current else "")
    text.append(f"  {option.detail}", style="dim")
    return text


class ModelPicker(ModalScreen[str | None]):
    """The models in ``rows``, the current one highlighted."""

    DEFAULT_CSS = """
    ModelPicker {
        align: center middle;
        background: $background 10%;
    }
    ModelPicker > #picker {
        width: 90;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    ModelPicker #picker-title {
        text-style: bold;
        color: $text-primary;
        margin-bottom: 1;
    }
    ModelPicker OptionList {
        height: auto;
        max-height: 20;
    }
    ModelPicker #picker-keys {
        color: $text-muted;
        margin-top: 1;
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Keep the current model", show=False)]

    def __init__(self, options: Sequence[ModelOption]) -> None:
        super().__init__()
        draw_only_changes(self)  # drawn whole again as it opens: only what changed (speed/)
        self.rows = list(options)

    def compose(self) -> ComposeResult:
        models = OptionList(
            *(Option(option_prompt(option), id=option.spec) for option in self.rows), compact=True
        )
        current = next((index for index, option in enumerate(self.rows) if option.current), 0)
        models.highlighted = current if self.rows else None
        with Vertical(id="picker"):
            yield Static(
                "Model (the conversation carries on with the new one)", id="picker-title", markup=False
            )
            yield models
            yield Static(
                "↑/↓ choose · Enter switch (an endpoint asks for the model name) · Esc cancel",
                id="picker-keys",
                markup=False,
            )

    def on_mount(self) -> None:
        models = self.query_one(OptionList)
        models.focus()
        if models.highlighted is not None:
            models.scroll_to_highlight()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
