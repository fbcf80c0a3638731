"""A scrollbar that repaints only when the thumb it draws moves or changes size.

Textual's ``ScrollBar`` repaints on every change of the scroll position or of the content's
height. A streaming answer changes both at every update, yet the thumb is drawn in eighths of a
cell: with a long transcript it stays on the same glyphs for many updates. Each repaint renders
the whole bar (a rich render and the line filters for every row), about as much as the text the
update adds (``benchmarks/bench_app.py``). This bar computes where its thumb would be drawn, as
``ScrollBarRender.render_bar`` does, and repaints only when that differs from what is on screen.
Everything else (hover, grab, colours, a new size) repaints as in Textual.
"""

from __future__ import annotations

from math import ceil
from typing import Self, cast

from rich.console import RenderableType
from textual.geometry import Region
from textual.scrollbar import ScrollBar

from zett_tui.ui.textual_compat import shift_rendered_rows

#: (cells, first eighth of the thumb, last eighth) or None when the bar draws no thumb.
Thumb = tuple[int, int, int] | None


def thumb_eighths(
    size: int, virtual_size: int, window_size: int, position: float, steps: int
) -> tuple[int, int] | None:
    """Where ``ScrollBarRender.render_bar`` draws the thumb, in ``steps`` per cell (its glyphs)."""
    if not (window_size and size and virtual_size and size != virtual_size):
        return None
    thumb_size = max(1, window_size / (virtual_size / size))
    ratio = position / (virtual_size - window_size) if virtual_size != window_size else 0
    start = int((size - thumb_size) * ratio * steps)
    return start, start + ceil(thumb_size * steps)


class SteadyScrollBar(ScrollBar):
    """``ScrollBar`` that skips a repaint which would draw the same bar again."""

    _drawn: tuple[object, ...] | None = None
    """What the terminal shows the whole bar drawn from (``_look``); None: nothing yet."""
    _check_pending: bool = False
    _whole_asked: bool = True
    """Every row is to be drawn from the next render; otherwise a render draws only the rows asked
    for (after a terminal scroll), and the others still show ``_drawn``."""

    def _thumb(self) -> Thumb:
        size = self.size.height if self.vertical else self.size.width
        window = self.window_size if self.window_size < self.window_virtual_size else 0
        bars = self.renderer.VERTICAL_BARS if self.vertical else self.renderer.HORIZONTAL_BARS
        found = thumb_eighths(size, ceil(self.window_virtual_size), ceil(window), self.position, len(bars))
        return None if found is None else (size, *found)

    def _look(self) -> tuple[object, ...] | None:
        """Everything ``render`` draws from: the thumb, the size, the state and every colour."""
        parent = self.parent
        if parent is None or not self.is_attached:
            return None
        styles = parent.styles
        return (
            self._thumb(),
            self.size,
            self.grabbed,
            self.mouse_over,
            styles.scrollbar_background,
            styles.scrollbar_color,
            styles.scrollbar_background_hover,
            styles.scrollbar_color_hover,
            styles.scrollbar_background_active,
            styles.scrollbar_color_active,
            parent.background_colors,
            self.screen.styles.scrollbar_color,
            self.styles.background,
            self.styles.color,
        )

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        """A plain repaint is decided once the scroll update is over: Textual sets the content's
        height, then the position, and the thumb in between is not one that gets drawn."""
        if not regions and repaint and not layout and not recompose and self._drawn is not None:
            if not self._check_pending:
                self._check_pending = True
                self.call_later(self._repaint_if_changed)
            return self
        if repaint and (not regions or any(region.contains_region(self.size.region) for region in regions)):
            self._whole_asked = True
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _repaint_if_changed(self) -> None:
        self._check_pending = False
        if self._look() != self._drawn:
            self._whole_asked = True
            super().refresh()

    def moved_by_terminal(self, shift: int) -> None:
        """The terminal moved this (vertical) bar's rows up by ``shift`` (down when negative) with
        the widget it scrolls (``speed/terminal_scroll``), its position already set: repaint the
        rows that do not now show what the bar draws there, the thumb's old and new rows and the
        rows brought in, or all of them when more than the thumb moved (a colour, the size)."""
        drawn, look = self._drawn, self._look()
        if drawn is None or look is None or drawn[1:] != look[1:] or drawn[0] is None or look[0] is None:
            self.refresh(self.size.region)
            return
        height, steps = self.size.height, len(self.renderer.VERTICAL_BARS)
        before, after = cast("tuple[int, int, int]", drawn[0]), cast("tuple[int, int, int]", look[0])
        if not self.vertical or before[0] != after[0] or before[0] != height:
            self.refresh(self.size.region)
            return
        was = range(before[1] // steps - shift, ceil(before[2] / steps) - shift)
        now = range(after[1] // steps, ceil(after[2] / steps))
        # The track above the thumb scrolls up when clicked, below it down (ScrollBarRender): the
        # track between the old thumb and the new one looks the same but clicks the other way.
        between = range(min(was.start, now.start), max(was.stop, now.stop))
        shift_rendered_rows(self, shift, range(height), render_again=between)
        brought_in = range(height - shift, height) if shift > 0 else range(-shift)
        for row in sorted(row for row in {*was, *now, *brought_in} if 0 <= row < height):
            super().refresh(Region(0, row, self.size.width, 1))
        self._drawn = look  # what the terminal will show once those rows are drawn

    def render(self) -> RenderableType:
        # Only a render that draws every row says what the terminal shows: a frame may render the
        # bar for a few rows asked for after a terminal scroll, with a thumb that has moved again
        # since; the other rows still show the old one, and the check must still see it moved.
        if self._whole_asked:
            self._whole_asked = False
            self._drawn = self._look()
        return super().render()
