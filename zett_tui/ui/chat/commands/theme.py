"""``/theme [NAME|auto]``: switch the theme, or pick one from a list with a live preview (the app
does it: ``ui/theme_choice.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.ui.app_messages import ThemeRequested
from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command(
    "theme", "Switch the theme; with no name, pick from a list with a live preview", arguments="[NAME]"
)
def theme_command(ctx: CommandContext, arguments: str) -> None:
    ctx.post(ThemeRequested(arguments))
