"""Scroll the terminal's rows instead of drawing them again, when the transcript scrolls.

Textual draws a scrolled widget again whole: every row of the transcript is written to the terminal
each time its view moves by a line. While an answer streams the view moves at each new line, so a
paced answer (a model's 100 tokens a second) made zett write ~66 KiB a second for ~400 characters
of text, most of it rows that were on screen already, one row higher (``benchmarks/bench_peers.py``:
"the program's output"). Over SSH that is the link's bandwidth; in any terminal it is work.

Every terminal since the VT100 can move a band of rows itself: set the scrolling margins (DECSTBM)
to the band, then a line feed at its bottom margin moves it up a row (a reverse index at its top,
down). So when the transcript's view moves by ``shift`` rows, it asks for that here
(:func:`request_scroll`) and repaints only the rows whose line is not the one now under them
(new rows, and lines that changed); the chat screen's compositor (:class:`ScrollingCompositor`)
writes the scroll at the start of the next frame, in the same write and inside the frame's
synchronized update, before the rows it repaints.

The terminal's rows are moved only when nothing else can be in them: the band spans the screen's
whole width (the margins move whole rows), no other widget overlaps it (a toast or a menu would move
with the text), the screen is the one shown, the app is not inline, and not on Windows (whose
older consoles are not VT100s). Otherwise the transcript is drawn again whole, as Textual does.

A scroll is written with the next frame that reaches the terminal. A frame that draws the whole
screen again (a resize, a screen shown again) drops it: what it draws replaces every row anyway.
A screenshot's render (``render_update(full=True)``) reaches no terminal and leaves it waiting.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import ControlType, Segment

from zett_tui.ui.textual_compat import (
    ChopsUpdate,
    Compositor,
    CompositorUpdate,
    move_waiting_repaints,
    screen_compositor,
)

if TYPE_CHECKING:
    from textual.geometry import Region
    from textual.screen import Screen
    from textual.widget import Widget

#: Terminal sequences: reset the style (lines scrolled in take the current background), set and
#: reset the scrolling margins, index (move the band up a row at its bottom margin) and reverse
#: index (down a row at its top margin).
_PLAIN = "\x1b[0m"
_RESET_MARGINS = "\x1b[r"
_INDEX = "\n"
_REVERSE_INDEX = "\x1bM"


def _written_as_is(text: str) -> Segment:
    """A segment Rich writes as it is and counts as no cells wide (a control segment)."""
    return Segment(text, None, [(ControlType.HOME,)])


def scroll_sequence(top: int, height: int, shift: int) -> str:
    """What moves the terminal's rows ``top`` to ``top + height - 1`` (0-based) up by ``shift``
    rows (down when negative): the rows leaving the band are lost, those coming in are blank."""
    bottom = top + height - 1
    if shift > 0:
        moves = f"\x1b[{bottom + 1};1H" + _INDEX * shift
    else:
        moves = f"\x1b[{top + 1};1H" + _REVERSE_INDEX * -shift
    return f"{_PLAIN}\x1b[{top + 1};{bottom + 1}r{moves}{_RESET_MARGINS}"


class PendingScroll:
    """The scroll of one band of rows that the next frame writes first (shifts add up), and the
    widgets whose repaints must be drawn in that same frame (the rows it brings in are blank)."""

    def __init__(self) -> None:
        self.top = 0
        self.height = 0
        self.shift = 0
        self.widgets: set[Widget] = set()

    def add(self, top: int, height: int, shift: int, widgets: set[Widget] | None = None) -> bool:
        """Scroll rows ``top``..``top + height - 1`` by ``shift`` too; False (nothing changed) when
        another band is waiting or the rows would all leave the band (nothing to keep)."""
        if self.shift and (top, height) != (self.top, self.height):
            return False
        total = self.shift + shift
        if height < 2 or abs(total) >= height:
            return False
        self.top, self.height, self.shift = top, height, total
        self.widgets |= widgets or set()
        return True

    def take(self) -> str:
        """The terminal sequence of what waits ("" when nothing does); nothing waits after."""
        if not self.shift:
            return ""
        sequence = scroll_sequence(self.top, self.height, self.shift)
        self.shift = 0
        self.widgets = set()
        return sequence


class ScrolledChops(ChopsUpdate):
    """A partial update that first scrolls a band of rows (``before``), then draws its chops."""

    def __init__(self, update: ChopsUpdate, before: str) -> None:
        super().__init__(update.chops, update.spans, update.chop_ends)
        self.before = before

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield _written_as_is(self.before)
        yield from super().__rich_console__(console, options)

    def render_segments(self, console: Console) -> str:
        return self.before + super().render_segments(console)


class ScrollOnly(CompositorUpdate):
    """A frame that only scrolls a band of rows (every row it brought in was already drawn)."""

    def __init__(self, before: str) -> None:
        self.before = before

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield _written_as_is(self.before)

    def render_segments(self, console: Console) -> str:
        return self.before


class ScrollingCompositor(Compositor):
    """The chat screen's compositor: the next partial update it renders for the terminal starts
    with the scroll that waits (``pending``); a full one drops it."""

    def __init__(self) -> None:
        super().__init__()
        self.pending = PendingScroll()

    def render_update(
        self, full: bool = False, screen_stack: list[Screen] | None = None, simplify: bool = False
    ) -> RenderableType | None:
        if full:  # a screenshot: no terminal sees it, the scroll still waits for one
            return super().render_update(full, screen_stack, simplify)
        pending = self.pending
        if pending.shift and not pending.widgets <= self.visible_widgets.keys():
            # A frame that draws one widget alone (a key's echo, ``textual_compat.paint_now``):
            # the scroll waits for a frame that draws what it brings in.
            return super().render_update(False, screen_stack, simplify)
        if pending.shift:
            # The repaints asked for with the scroll are drawn in its frame, even those whose
            # widget's message has not reached the screen yet (the screen would add them later).
            self.update_widgets(pending.widgets)
        update = super().render_update(False, screen_stack, simplify)
        before = pending.take()
        if not before or not isinstance(update, ChopsUpdate | None):
            return update  # nothing waits, or the whole screen is drawn again: no row is kept
        return ScrollOnly(before) if update is None else ScrolledChops(update, before)


def request_scroll(widget: Widget, band: Region, shift: int) -> bool:
    """Ask the next frame to move the screen's rows of ``band`` (``widget``'s, in screen
    coordinates) by ``shift``; False when they cannot be (see the module's docstring): the caller
    then draws them all again. On True the caller must repaint (``refresh``, before the next frame)
    every row of the band whose content is not what the rows moved there show (the rows brought in
    among them), and its scrollbar: the scroll's frame draws them."""
    if sys.platform == "win32" or not shift:
        return False
    try:
        screen = widget.screen
        app = widget.app
    except Exception:
        return False
    compositor = screen_compositor(screen)
    if not isinstance(compositor, ScrollingCompositor) or not screen.is_current or app.is_inline:
        return False
    if band.x != 0 or band.width != screen.size.width:
        return False
    scrolled = {widget}
    bar = getattr(widget, "vertical_scrollbar", None)
    if bar is not None:
        scrolled.add(bar)
    allowed = scrolled | set(widget.ancestors)
    for other, (region, clip) in compositor.visible_widgets.items():
        if other not in allowed and region.intersection(clip).overlaps(band):
            return False
    if not compositor.pending.add(band.y, band.height, shift, scrolled):
        return False
    for moved in scrolled:  # repaints asked for before this scroll (an earlier one in this frame)
        move_waiting_repaints(moved, shift)
    return True
