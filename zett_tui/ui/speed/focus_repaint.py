"""A screen's focus moving repaints the widgets it leaves and reaches, not the whole screen.

Textual's ``Screen.focused`` is a reactive that repaints its screen, so every focus move (a
dialog arming, an arrow key between a dialog's choices, the find bar opening and closing) drew
every row again: a whole frame written to the terminal (6 KiB at 120x36; over SSH, the link's).
The widgets that gain and lose the focus repaint themselves already (their ``:focus`` styles
change), and the screen's watcher (its key bindings) still runs. A screen declares
``focused = focus_without_screen_repaint()`` to keep only that.
"""

from __future__ import annotations

from textual.reactive import Reactive
from textual.widget import Widget

__all__ = ["focus_without_screen_repaint"]


def focus_without_screen_repaint() -> Reactive[Widget | None]:
    """``Screen.focused`` as Textual declares it, without its repaint of the whole screen."""
    return Reactive(None, repaint=False)
