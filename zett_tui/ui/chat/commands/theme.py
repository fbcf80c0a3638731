"""``/theme [NAME|auto]``: switch the theme, or pick one from a list with a live preview.

The choice is saved as ``ui.theme`` in the user config file, so the next start uses it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from textual.app import App

from zett_tui.config.settings import ConfigSaveError, save_user_setting
from zett_tui.core import paths
from zett_tui.ui.chat.commands.registry import slash_command
from zett_tui.ui.modals.theme_picker import ThemePicker
from zett_tui.ui.themes import (
    AUTO,
    effective_background,
    ordered_theme_names,
    register_themes,
    resolve_theme_name,
    suggest,
)
from zett_tui.ui.widgets.transcript_blocks import NoticeLevel

if TYPE_CHECKING:
    from zett_tui.ui.chat.screen import ChatScreen


@slash_command(
    "theme", "Switch the theme; with no name, pick from a list with a live preview", arguments="[NAME]"
)
def theme_command(chat: ChatScreen, arguments: str) -> None:
    app = chat.app
    reload_themes(app)
    wanted = arguments.strip()
    if not wanted:
        open_theme_picker(app)
        return
    if wanted != AUTO and wanted not in app.available_themes:
        tell(app, f"There is no theme named {wanted!r}. {suggest(app, wanted)}", "warning")
        return
    app.theme = auto_theme(app) if wanted == AUTO else wanted
    save_theme_choice(app, wanted)


def reload_themes(app: App[Any]) -> None:
    """Read the theme files again, so a theme added or edited since start-up shows at once."""
    for problem in register_themes(app):
        tell(app, problem, "warning")
    app.refresh_css(animate=False)  # the current theme's file may have changed


def open_theme_picker(app: App[Any]) -> None:
    """Show the picker over the current screen; a kept choice is saved."""
    configured = getattr(getattr(app, "launch", None), "theme", None)

    def chosen(name: str | None) -> None:
        if name is not None:
            save_theme_choice(app, name)

    picker = ThemePicker(
        ordered_theme_names(app),
        current=app.theme,
        auto_theme=auto_theme(app),
        auto_selected=configured in (None, AUTO) and app.theme == auto_theme(app),
    )
    app.push_screen(picker, chosen)


def auto_theme(app: App[Any]) -> str:
    """The theme ``auto`` means now: zett's dark or light one for the terminal's background."""
    queried = getattr(getattr(app, "launch", None), "terminal_background", None)
    return resolve_theme_name(app, None, effective_background(queried))[0]


def save_theme_choice(app: App[Any], name: str) -> None:
    """Save ``ui.theme`` in the user config and say so (or say why it could not be saved)."""
    launch = getattr(app, "launch", None)
    if launch is not None:
        launch.theme = None if name == AUTO else name
    config_file = paths.config_file()
    try:
        save_user_setting(config_file, "ui.theme", name)
    except ConfigSaveError as error:
        tell(app, f"Theme {name} is on for this session, but could not be saved: {error}", "warning")
        return
    shown = f"{name} ({app.theme})" if name == AUTO else name
    message = f"Theme {shown}, saved in {config_file}."
    if os.environ.get("ZETT_THEME", "").strip():
        message += " ZETT_THEME is set in the environment and wins at start-up."
    tell(app, message, "info")


def tell(app: App[Any], text: str, level: NoticeLevel) -> None:
    """A notice in the chat transcript (or a toast when there is no chat)."""
    from zett_tui.ui.app import ZettApp

    if isinstance(app, ZettApp):
        app.chat.say(text, level)
    else:
        app.notify(text, severity="warning" if level == "warning" else "information")
