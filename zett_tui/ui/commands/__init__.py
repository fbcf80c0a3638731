"""Built-in slash commands; importing this package registers them all."""

from zett_tui.ui.commands import copy, core, extensions, models, permissions, sessions, theme

__all__ = ["copy", "core", "extensions", "models", "permissions", "sessions", "theme"]
