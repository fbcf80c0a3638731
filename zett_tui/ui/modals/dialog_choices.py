"""What a ``ChoiceDialog`` offers and answers: its choices, the answer it gives, the button that
stands for a choice, and a column of choices on screen (the first one, or a ``then`` step)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual.widgets import Button, Static

from zett_tui.ui.modals.shown_text import shown

__all__ = ["Choice", "ChoiceButton", "Picked", "Stage"]


@dataclass(frozen=True)
class Choice:
    """One answer. ``tone`` colours it: "affirm", "deny", "warning" or "default"."""

    label: str
    value: Any
    tone: str = "default"
    #: When set, choosing this asks for a line of text first, with this as the field's label.
    note: str | None = None
    #: The text the field starts with (editable), e.g. a rule to save.
    note_value: str = ""
    #: Checks the text before it is accepted; an error message keeps the field open.
    check: Callable[[str], str | None] | None = None
    #: When set, choosing this shows these choices instead (a second step); Esc comes back.
    then: tuple[Choice, ...] = ()
    #: What the second step asks, shown above its choices.
    then_title: str = ""


@dataclass(frozen=True)
class Picked:
    """The user's answer: the chosen value, the note typed with it, and any text they edited."""

    value: Any
    note: str = ""
    edited: str | None = None


class ChoiceButton(Button):
    """A button that stands for one ``Choice``."""

    def __init__(self, choice: Choice, label: str, button_id: str) -> None:
        super().__init__(shown(label), id=button_id, compact=True, classes=f"-{choice.tone}")
        self.choice = choice


@dataclass
class Stage:
    """A column of choices on screen; the root one or a ``then`` step."""

    choices: tuple[Choice, ...]
    buttons: list[ChoiceButton] = field(default_factory=list)
    title: Static | None = None
    #: The choice that opened this step (None for the first one).
    parent: Choice | None = None
