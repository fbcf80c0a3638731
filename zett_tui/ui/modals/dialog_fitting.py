"""Fitting a ``ChoiceDialog`` to the screen: the body (command, diff, plan) gets what is left once
the title, warning, choices, note field and key line are shown, and a line under a body that
scrolls says how much of it is above and below (a command cannot hide its end below a run of
empty lines). Below ``CRAMPED_BELOW`` rows the dialog drops its border, padding and gaps (class
``-cramped``) and fills the screen, so that the title, the choices and the key line still show,
and the body scrolls in what is left, down to one row."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

__all__ = ["CRAMPED_BELOW", "DialogBody", "body_room", "more_lines"]

#: Below this many rows the dialog is cramped (module docstring).
CRAMPED_BELOW = 20
#: The widgets that take what is left (the body; a plan dialog's editor).
FLEXIBLE = ("body", "editor")


def body_room(dialog: Widget, screen: Size, *, cramped: bool) -> int:
    """The most rows the flexible widgets may take in ``dialog`` on a ``screen`` that size."""
    limit = screen.height if cramped else int(screen.height * 0.9)
    chrome = dialog.styles.gutter.height
    for child in dialog.children:
        if child.id in FLEXIBLE or not child.display:
            continue
        height = child.outer_size.height
        if child.id == "keys" and child.content_region.width:
            # its new text may not be laid out yet: how many rows it wraps to, at this width
            height = child.get_content_height(child.size, screen, child.content_region.width)
        chrome += height + child.styles.margin.top + child.styles.margin.bottom
    least = 1 if cramped else 3
    return max(least, limit - chrome - (0 if cramped else 1))


def more_lines(body: Widget) -> str:
    """Under a body that scrolls: how many of its lines are above and below what is shown."""
    above = max(0, round(body.scroll_y))
    below = max(0, round(body.max_scroll_y - body.scroll_y))
    parts = []
    if above:
        parts.append(f"▲ {above} line{'s' if above != 1 else ''} above (PgUp)")
    if below:
        parts.append(f"▼ {below} more line{'s' if below != 1 else ''} below (PgDn)")
    else:
        parts.append("(end)")
    return "  ·  ".join(parts)


class DialogBody(VerticalScroll):
    """A dialog's scrolling body, which says when its size changed (``Resized``).

    The line under it counts the lines above and below from its height, and that height settles
    only after the line itself is shown (it takes a row) or wraps: a count made before would stay
    one row off ("6 more lines below" with 7) unless every change of the height counts again.
    """

    class Resized(Message):
        """The body's size (or what it holds) changed: count the lines above and below again."""

    def on_resize(self) -> None:
        self.post_message(self.Resized())
