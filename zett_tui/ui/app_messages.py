"""What a screen asks of the app: Textual messages that bubble up to ``ZettApp``, which handles them.

Screens, commands and dialogs never import the app; they post one of these, the way Toad's widgets
post ``SessionNew``/``SessionSwitch``. So the app stays the one place that switches sessions, quits,
changes the theme or remembers the model a new session starts with.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.providers.catalog import ModelSelection


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
    """The user switched the model (``/model``): a new session (``/new``, ``/sessions``) starts with it."""

    def __init__(self, selection: ModelSelection) -> None:
        super().__init__()
        self.selection = selection


class EffortChosen(Message):
    """The user set the reasoning effort (``/effort``): a new session starts with it."""

    def __init__(self, effort: str) -> None:
        super().__init__()
        self.effort = effort


class SettingsReloaded(Message):
    """The project folder was trusted and the settings read again: new sessions start from them."""

    def __init__(self, settings: LaunchSettings) -> None:
        super().__init__()
        self.settings = settings
