"""The model's question to the user: its options (one to pick, or several to tick) and a field for
an answer in the user's own words. Esc declines to answer.

Typing is an answer only when it was meant for the dialog. Like every ``ChoiceDialog`` it takes no
key before it arms; and when the user was typing into the prompt as it opened (keys went there
while it waited), typing goes on going to the prompt after it arms, and re-arms its wait, until a
deliberate key of the dialog's own (Enter, Tab, an arrow, Esc, a click): the rest of a message typed
after a pause, and its Enter, land in the prompt, never in the answer field as an answer sent.
"""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Key, Paste
from textual.widgets import Button, Input, Static

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceButton, ChoiceDialog, Picked
from zett_tui.ui.modals.shown_text import shown
from zett_tui.ui.textual_compat import default_prevented
from zett_tui.ui.widgets.markdown_view import MarkdownView


class Action(Enum):
    """Values that cannot be mistaken for an option's text (an option may well be "send")."""

    DECLINED = "declined"
    SEND = "send"


DECLINED = Action.DECLINED
SEND = Action.SEND

_KEYS_SINGLE = "Enter choose · ↑/↓ move · 1-9 pick · or type your own answer below · Esc decline"
_KEYS_MULTIPLE = "Space or 1-9 tick · Enter send · ↑/↓ move · Esc decline"
_KEYS_FREE = "Enter send · Esc decline"


class OptionBox(Button):
    """A tickable option: Space (or a click, or its number) ticks it, Enter sends the answer."""

    inherit_bindings = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "tick", "Tick", show=False),
        Binding("enter", "screen.send", "Send", show=False),
    ]

    def __init__(self, index: int, option: str) -> None:
        super().__init__("", id=f"option-{index}", compact=True)
        self.index = index
        self.option = option
        self.value = False
        self._show()

    def action_tick(self) -> None:
        self.toggle()

    def toggle(self) -> None:
        self.value = not self.value
        self._show()

    def _show(self) -> None:
        self.label = shown(f" [{'x' if self.value else ' '}] {self.index}. {self.option}")
        self.set_class(self.value, "-ticked")


class AskUserDialog(ChoiceDialog):
    """The value is the chosen option (a string), the ticked options (a list), or None when only
    text was given; the note is the typed answer. Esc answers ``Picked(DECLINED)``."""

    DEFAULT_CSS = """
    AskUserDialog #choices OptionBox.-ticked {
        color: $text-success;
    }
    AskUserDialog #choices OptionBox.-ticked:focus {
        color: $text;
    }
    AskUserDialog #choices #send {
        margin-top: 1;
    }
    AskUserDialog #answer-label {
        margin-top: 1;
        color: $text-muted;
    }
    AskUserDialog #answer-input {
        width: 100%;
        background: $panel;
    }
    AskUserDialog #answer-error {
        display: none;
        color: $text-error;
    }
    AskUserDialog #answer-error.-shown {
        display: block;
    }
    """

    def __init__(self, question: str, options: list[str], *, allow_multiple: bool = False) -> None:
        self.question = question
        self.options = options
        self.multiple = allow_multiple and bool(options)
        if self.multiple:
            choices: list[Choice] = []
            keys = _KEYS_MULTIPLE
        else:
            choices = [
                Choice(option, option, "affirm" if i == 0 else "default") for i, option in enumerate(options)
            ]
            keys = _KEYS_SINGLE if options else _KEYS_FREE
        question_view = MarkdownView(question, show_controls=True)
        super().__init__("zett asks", question_view, choices, decline_value=DECLINED, key_help=keys)
        #: Keys went to the prompt while this dialog waited, and no deliberate key came since.
        self.typing_for_prompt = False

    def compose_choices(self) -> ComposeResult:
        if self.multiple:
            for index, option in enumerate(self.options, 1):
                yield OptionBox(index, option)
            yield ChoiceButton(Choice("Send", SEND, "affirm"), " ➤ Send", "send")
        else:
            yield from super().compose_choices()
        if self.multiple:
            label = "Add a comment or your own answer (optional):"
        elif self.options:
            label = "Or type your own answer:"
        else:
            label = "Your answer:"
        yield Static(label, id="answer-label", markup=False)
        yield Input(
            id="answer-input", compact=True, placeholder="type here, Enter sends", select_on_focus=False
        )
        yield Static("", id="answer-error", markup=False)

    def types_through(self, event: Key | Paste) -> bool:
        """Typing here is an answer in the user's own words (it goes to the answer field), unless
        it is the rest of what the user was typing into the prompt when the dialog opened: that
        goes on to the prompt until a deliberate key (anything but typing) reaches the dialog."""
        if not self.typing_for_prompt:
            return False
        if isinstance(event, Paste) or event.key in ("backspace", "delete") or event.is_printable:
            return True
        self.typing_for_prompt = False
        return False

    def _early(self, event: Key | Paste) -> None:
        self.typing_for_prompt = True
        super()._early(event)

    def focus_first(self) -> None:
        if self.multiple:
            self.query_one("#option-1", OptionBox).focus()
        elif not self.options:
            if (
                not self.typing_for_prompt
            ):  # else Enter or Tab first (``on_key``): the field takes keys at once
                self.query_one("#answer-input", Input).focus()
        else:
            super().focus_first()

    # -- answering ------------------------------------------------------------------------------

    @property
    def ticked(self) -> list[str]:
        return [
            option
            for index, option in enumerate(self.options, 1)
            if self.query_one(f"#option-{index}", OptionBox).value
        ]

    @property
    def typed(self) -> str:
        return self.query_one("#answer-input", Input).value.strip()

    def result_for(self, choice: Choice, note: str) -> Picked:
        if choice.value is SEND:
            return Picked(self.ticked, self.typed)
        return Picked(choice.value, note)

    def action_send(self) -> None:
        """Send the ticked options and the typed text (multiple choice), or the typed answer."""
        if self.multiple and (self.ticked or self.typed):
            self.dismiss(Picked(self.ticked, self.typed))
        elif not self.multiple and self.typed:
            self.dismiss(Picked(None, self.typed))
        else:
            what = "Tick an option or type an answer" if self.options else "Type an answer"
            error = self.query_one("#answer-error", Static)
            error.update(f"{what}, or press Esc to decline.")
            error.add_class("-shown")
            self.call_after_refresh(self.fit)

    @on(Button.Pressed, "OptionBox")
    def _clicked(self, event: Button.Pressed) -> None:
        event.stop()
        if isinstance(event.button, OptionBox):
            event.button.toggle()

    @on(Input.Submitted, "#answer-input")
    def _answer_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_send()

    def on_key(self, event: Key) -> None:
        if self.focused is None and self.armed and event.key in ("enter", "tab", "down", "up"):
            event.stop()  # the deliberate key that starts an answer typed across the opening
            event.prevent_default()
            self.focus_first()
            return
        character = event.character
        if self.multiple and character and character.isdigit() and isinstance(self.focused, Button):
            index = int(character)
            if 1 <= index <= len(self.options):
                event.stop()
                event.prevent_default()
                self.query_one(f"#option-{index}", OptionBox).toggle()
            return
        super().on_key(event)
        if not event.is_printable or default_prevented(event) or self._noting:
            return
        if character == " " and isinstance(self.focused, Button):
            return  # Space on a choice is not the start of an answer
        # A letter typed on the options (or one queued for them before the focus moved): the
        # start of the user's own answer, not a key lost.
        event.stop()
        event.prevent_default()
        answer = self.query_one("#answer-input", Input)
        if self.focused is not answer:
            self.set_focus(answer)
        answer.insert_text_at_cursor(event.character or "")

    def action_decline(self) -> None:
        self.dismiss(Picked(DECLINED))
