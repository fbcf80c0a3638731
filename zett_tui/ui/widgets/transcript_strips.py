"""The transcript's packed lines as Textual strips, and the text a mouse selection copies.

Blocks render to packed lines (text and style ids: ``transcript_render.py``); `LineStrips` turns
one into a `Strip` on the widget's background, cached by line identity, `highlight_selection` draws
the screen's mouse selection over it, and `selected_text` is what that selection copies: the text
as shown (select-all: every block's raw source).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.style import Style
from textual.geometry import Offset
from textual.selection import Selection
from textual.strip import Strip

from zett_tui.ui.widgets.transcript_render import line_strip, overlay

if TYPE_CHECKING:
    from textual.screen import Screen

    from zett_tui.ui.widgets.transcript_layout import BlockLayout
    from zett_tui.ui.widgets.transcript_render import Line

_MAX_SELECTED_LINES = 20_000
"""A mouse selection copies at most this many rendered lines."""
_STRIP_CACHE_SIZE = 400
"""Strips kept for lines recently on screen (cleared wholesale when full). A few screens: each
cached strip (and the copy Textual keeps with selection offsets) is some 30 objects the garbage
collector walks on every full pass; 2,000 of them made those passes ~40 ms longer."""


class LineStrips:
    """Strips of the lines recently on screen, and the widget's background added to each style.

    ``style_table`` gives the render context's styles (asked only when a strip is built).
    """

    def __init__(self, style_table: Callable[[], Sequence[Style | None]]) -> None:
        self._style_table = style_table
        self._strips: dict[int, tuple[Line, Strip]] = {}
        self._based_styles: list[Style] = []

    def forget(self) -> None:
        """Drop every strip (the styles, the background or the width changed)."""
        self._strips.clear()
        self._based_styles = []

    def strip(self, line: Line, base: Style, width: int) -> Strip:
        """The `Strip` for a packed line, on the widget background `base`.

        Cached by line identity: lines of finished blocks are the same objects from frame to frame,
        so scrolling and streaming (which shifts every line on screen) rebuild only new lines.
        """
        cached = self._strips.get(id(line))
        if cached is not None and cached[0] is line:
            return cached[1]
        strip = line_strip(line, self._style_table(), self._based_styles, base, width)
        if len(self._strips) >= _STRIP_CACHE_SIZE:
            self._strips.clear()
        self._strips[id(line)] = (line, strip)
        return strip


def highlight_selection(strip: Strip, start: int, end: int, screen: Screen[object]) -> Strip:
    """`strip` with columns [start, end) in the screen's selection style (over code backgrounds too)."""
    end = strip.cell_length if end < 0 else end
    style = screen.get_component_rich_style("screen--selection")
    if screen.get_component_styles("screen--selection").color.a == 0:
        style = Style(bgcolor=style.bgcolor)  # a transparent foreground keeps the text colours
    before, selected, after = strip.divide([start, end, strip.cell_length])
    return Strip.join([before, overlay(selected, style), after])


def line_text(layout: BlockLayout, y: int) -> str:
    """The plain text of virtual line `y` as rendered."""
    found = layout.line_at(y)
    line = found[1] if found is not None else None
    return "".join(text for text, _style in line) if line is not None else ""


def selected_text(layout: BlockLayout, selection: Selection) -> tuple[str, str]:
    """The selected text as shown. Select-all copies every block's source instead (cheap, raw)."""
    start, end = selection.start, selection.end
    if start is None and end is None:
        return "\n\n".join(block.plain_text() for block in layout.blocks), "\n"
    first = start.y if start is not None else 0
    last = min(end.y if end is not None else layout.total - 1, first + _MAX_SELECTED_LINES)
    text = "\n".join(line_text(layout, y).rstrip() for y in range(first, last + 1))
    local = Selection(
        None if start is None else Offset(start.x, 0),
        None if end is None else Offset(end.x, end.y - first),
    )
    return local.extract(text), "\n"
