"""What the user changed during this run, owned by the app: the launch settings stay as launched.

``LaunchSettings`` is frozen: the command line decided it once. The model picked with ``/model``,
the effort set with ``/effort``, the theme chosen with ``/theme``, and the settings read again
once a project folder was trusted are kept here instead, each with its own method, and
:meth:`SessionChoices.next_launch` builds the settings of the next session (``/new``,
``/sessions``) from them. No Textual here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from zett_tui.entry.launch import LaunchSettings
from zett_tui.providers.catalog import ModelSelection


class SessionChoices:
    """The app's one record of what changed since launch.

    Args:
        launched: The settings zett started with.
    """

    def __init__(self, launched: LaunchSettings) -> None:
        self._base = launched
        self._model: ModelSelection | None = None
        self._effort: str | None = None
        self._theme: str | None = launched.theme

    @property
    def base(self) -> LaunchSettings:
        """The settings new sessions start from: as launched, or as read again after a trust."""
        return self._base

    @property
    def theme(self) -> str | None:
        """The theme chosen (None: ``auto``, following the terminal)."""
        return self._theme

    def choose_model(self, selection: ModelSelection) -> None:
        self._model = selection
        self._effort = None

    def set_effort(self, effort: str) -> None:
        self._effort = effort

    def set_theme(self, name: str | None) -> None:
        self._theme = name

    def settings_reloaded(self, settings: LaunchSettings) -> None:
        """The project folder was trusted: its settings are read again, and new sessions use them
        (a model chosen since still wins: the user picked it after)."""
        self._base = settings

    def next_launch(self, session_id: str | None, resume_path: Path | None = None) -> LaunchSettings:
        """The settings of the next session: the base, with what the user chose since."""
        settings = replace(
            self._base,
            session_id=session_id,
            resume_path=resume_path,
            notices=[],
            read_only=False,
            theme=self._theme,
        )
        if self._model is not None:
            model = self._model
            settings = replace(
                settings,
                model_label=model.choice.label,
                model_factory=model.factory,
                is_demo=model.choice.is_demo,
                reasoning_effort=model.reasoning_effort.value,
                context_window=model.context_window,
                describe_error=model.describe_error,
            )
        if self._effort is not None:
            settings = replace(settings, reasoning_effort=self._effort)
        return settings
