"""What a screen asks of the app: Textual messages that bubble up to ``ZettApp``, which handles them.

Screens, commands and dialogs never import the app; they post one of these, the way Toad's widgets
post ``SessionNew``/``SessionSwitch``. So the app stays the one place that switches sessions, quits,
changes the theme or remembers the model a new session starts with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.message import Message


class QuitRequested(Message):
    """Quit zett (a running turn is stopped and recorded)."""


class OpenSession(Message):
    """Leave this session and open another: a recorded one (``session_id``, ``resume_path``) to
    resume, or a new one when ``session_id`` is None."""

    def __init__(self, session_id: str | None, resume_path: Path | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.resume_path = resume_path


class OpenSessionBrowser(Message):
    """Show the session browser over the chat."""


class ThemeRequested(Message):
    """Switch to the theme ``name`` (``auto`` follows the terminal); an empty name opens the picker."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class CopyRequested(Message):
    """Put ``text`` on the clipboard; the notice that says what happened starts with ``label``."""

    def __init__(self, text: str, label: str = "") -> None:
        super().__init__()
        self.text = text
        self.label = label


class ModelChosen(Message):
    """The user switched the model (``/model``) or its effort (``/effort``): a new session (``/new``,
    ``/sessions``) starts with what is chosen now. Only the settings given change."""

    def __init__(self, **settings: Any) -> None:
        super().__init__()
        unknown = set(settings) - _MODEL_SETTINGS
        if unknown:
            raise TypeError(f"not a model setting: {sorted(unknown)}")
        self.settings: dict[str, Any] = settings


#: The launch settings ``ModelChosen`` may change.
_MODEL_SETTINGS = frozenset(
    {"model_label", "model_factory", "is_demo", "reasoning_effort", "context_window", "describe_error"}
)

__all__ = [
    "CopyRequested",
    "ModelChosen",
    "OpenSession",
    "OpenSessionBrowser",
    "QuitRequested",
    "ThemeRequested",
]
