"""zett's own slash commands; importing this module registers them all (after the first frame)."""

from collections.abc import Mapping

from zett_tui.ui.chat.command_context import SlashCommand
from zett_tui.ui.chat.commands import (
    agents,
    copy,
    core,
    extensions,
    mcp,
    models,
    permissions,
    rewind,
    sessions,
    skills,
    theme,
    todo,
)
from zett_tui.ui.chat.commands.registry import REGISTRY

__all__ = [
    "agents",
    "builtin_commands",
    "copy",
    "core",
    "extensions",
    "mcp",
    "models",
    "permissions",
    "rewind",
    "sessions",
    "skills",
    "theme",
    "todo",
]


def builtin_commands() -> Mapping[str, SlashCommand]:
    """Every registered command: zett's own, and any a module registered since."""
    return REGISTRY
