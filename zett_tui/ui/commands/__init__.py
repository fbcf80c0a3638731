"""Built-in slash commands; importing this package registers them all."""

from zett_tui.ui.commands import core, permissions, sessions, theme

__all__ = ["core", "permissions", "sessions", "theme"]
