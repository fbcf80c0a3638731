"""Switching the theme: by name, or with the picker's live preview; the choice is saved as
``ui.theme`` in the user config file, so the next start uses it. The app runs this when a
``ThemeRequested`` message reaches it (``/theme``, the palette's theme entry)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from textual.app import App

from zett_tui.config.settings import ConfigSaveError, save_user_setting
from zett_tui.core import paths
from zett_tui.ui.modals.theme_picker import ThemePicker
from zett_tui.ui.session_choices import SessionChoices
from zett_tui.ui.themes import (
    AUTO,
    effective_background,
    ordered_theme_names,
    register_themes,
    resolve_theme_name,
    suggest,
)

#: ``say(text, level)``: a line in the chat transcript.
Say = Callable[[str, str], None]


def choose_theme(app: App[Any], wanted: str, say: Say, choices: SessionChoices) -> None:
    """Switch to the theme ``wanted`` (``auto`` follows the terminal) and save it; with no name,
    open the picker."""
    reload_themes(app, say)
    wanted = wanted.strip()
    if not wanted:
        open_theme_picker(app, say, choices)
        return
    if wanted != AUTO and wanted not in app.available_themes:
        say(f"There is no theme named {wanted!r}. {suggest(app, wanted)}", "warning")
        return
    app.theme = auto_theme(app, choices) if wanted == AUTO else wanted
    save_theme_choice(wanted, say, choices, app.theme)


def reload_themes(app: App[Any], say: Say) -> None:
    """Read the theme files again, so a theme added or edited since start-up shows at once."""
    for problem in register_themes(app):
        say(problem, "warning")
    app.refresh_css(animate=False)  # the current theme's file may have changed


def open_theme_picker(app: App[Any], say: Say, choices: SessionChoices) -> None:
    """Show the picker over the current screen; a kept choice is saved."""
    configured = choices.theme

    def chosen(name: str | None) -> None:
        if name is not None:
            save_theme_choice(name, say, choices, app.theme)

    auto = auto_theme(app, choices)
    picker = ThemePicker(
        ordered_theme_names(app),
        current=app.theme,
        auto_theme=auto,
        auto_selected=configured in (None, AUTO) and app.theme == auto,
    )
    app.push_screen(picker, chosen)


def auto_theme(app: App[Any], choices: SessionChoices) -> str:
    """The theme ``auto`` means now: zett's dark or light one for the terminal's background."""
    queried = choices.base.terminal_background
    return resolve_theme_name(app, None, effective_background(queried))[0]


def save_theme_choice(name: str, say: Say, choices: SessionChoices, shown_theme: str) -> None:
    """Save ``ui.theme`` in the user config and say so (or say why it could not be saved)."""
    choices.set_theme(None if name == AUTO else name)
    config_file = paths.config_file()
    try:
        save_user_setting(config_file, "ui.theme", name)
    except ConfigSaveError as error:
        say(f"Theme {name} is on for this session, but could not be saved: {error}", "warning")
        return
    shown = f"{name} ({shown_theme})" if name == AUTO else name
    message = f"Theme {shown}, saved in {config_file}."
    if os.environ.get("ZETT_THEME", "").strip():
        message += " ZETT_THEME is set in the environment and wins at start-up."
    say(message, "info")
