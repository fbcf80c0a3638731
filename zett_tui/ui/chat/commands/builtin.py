"""zett's own slash commands; importing this module registers them all (after the first frame)."""

from zett_tui.ui.chat.commands import copy, core, extensions, models, permissions, sessions, theme

__all__ = ["copy", "core", "extensions", "models", "permissions", "sessions", "theme"]
