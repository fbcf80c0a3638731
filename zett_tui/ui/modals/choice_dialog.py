"""The one dialog shape every question uses: what is being decided, then a column of choices.

The first choice is the affirmative one and is focused when the dialog opens; Enter takes the
focused choice, Up/Down/Tab move, number keys pick directly, and Esc declines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Static

T = TypeVar("T")


@dataclass(frozen=True)
class Choice(Generic[T]):
    label: str
    value: T
    variant: str = "default"


class ChoiceDialog(ModalScreen[Any]):
    """A modal question. ``decline_value`` is what Esc returns."""

    DEFAULT_CSS = """
    ChoiceDialog {
        align: center middle;
        background: $background 60%;
    }
    ChoiceDialog > #dialog {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    ChoiceDialog #title {
        text-style: bold;
        color: $primary;
        margin-bottom: 1;
    }
    ChoiceDialog #body {
        height: auto;
        max-height: 30;
        margin-bottom: 1;
    }
    ChoiceDialog #choices {
        height: auto;
    }
    ChoiceDialog #choices Button {
        width: 100%;
        margin: 0;
        height: 1;
        border: none;
        text-align: left;
        content-align: left middle;
        background: $surface;
    }
    ChoiceDialog #choices Button:focus {
        background: $primary;
        color: $text;
        text-style: bold;
    }
    ChoiceDialog #keys {
        color: $text-muted;
        margin-top: 1;
    }
    """

    BINDINGS = [
        Binding("escape", "decline", "Decline", show=False),
        Binding("down,right", "app.focus_next", "Next", show=False),
        Binding("up,left", "app.focus_previous", "Previous", show=False),
    ]

    def __init__(
        self,
        title: str,
        body: Widget | None,
        choices: list[Choice[Any]],
        *,
        decline_value: Any,
        key_help: str = "Enter choose · ↑/↓ move · 1-9 pick · Esc decline",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.choices = choices
        self.decline_value = decline_value
        self.key_help = key_help

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.title_text, id="title", markup=False)
            if self.body is not None:
                with VerticalScroll(id="body"):
                    yield self.body
            with Vertical(id="choices"):
                for index, choice in enumerate(self.choices, start=1):
                    yield Button(f" {index}. {choice.label}", id=f"choice-{index}", compact=True)
            yield Static(self.key_help, id="keys", markup=False)

    def on_mount(self) -> None:
        self.query_one("#choice-1", Button).focus()

    def on_key(self, event: Any) -> None:
        character = getattr(event, "character", None)
        if character and character.isdigit() and isinstance(self.focused, Button):
            index = int(character)
            if 1 <= index <= len(self.choices):
                event.stop()
                self.choose(self.choices[index - 1].value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button_id = event.button.id or ""
        if button_id.startswith("choice-"):
            self.choose(self.choices[int(button_id.removeprefix("choice-")) - 1].value)

    def choose(self, value: Any) -> None:
        self.dismiss(value)

    def action_decline(self) -> None:
        self.dismiss(self.decline_value)
