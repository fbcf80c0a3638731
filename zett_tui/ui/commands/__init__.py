"""Built-in slash commands; importing this package registers them all."""

from zett_tui.ui.commands import core

__all__ = ["core"]
