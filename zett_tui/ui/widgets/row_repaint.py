"""Which of the transcript's rows on screen are drawn again: after an update, only those whose line
changed; after the view moved, only those the terminal could not move there itself
(``speed/terminal_scroll``). What each row shows is kept in ``DrawnRows``."""

from __future__ import annotations

from collections.abc import Callable

from textual.geometry import Region
from textual.scroll_view import ScrollView

from zett_tui.ui.speed.terminal_scroll import request_scroll
from zett_tui.ui.textual_compat import shift_rendered_rows
from zett_tui.ui.widgets.drawn_rows import DrawnRows
from zett_tui.ui.widgets.steady_scrollbar import SteadyScrollBar
from zett_tui.ui.widgets.transcript_render import Line


class RowRepaint:
    """The repaints of ``view``'s rows; ``line_at`` gives the line at a virtual row, ``badge_shown``
    whether the new-output badge is drawn over the bottom row."""

    def __init__(
        self,
        view: ScrollView,
        line_at: Callable[[int], tuple[int, Line | None] | None],
        badge_shown: Callable[[], bool],
    ) -> None:
        self._view = view
        self._line_at = line_at
        self._badge_shown = badge_shown
        #: What each virtual row shows now (the view's ``render_line`` records it).
        self.drawn = DrawnRows()

    def changed_rows(self, top: int, viewport: int, *, whole_rows: bool = False) -> None:
        """Repaint the rows on screen whose line is not the one drawn there (in runs of rows). A stream
        that adds to its last paragraph repaints a few rows, not the screen. ``whole_rows``: their
        padding too (rows the terminal scrolled in are blank)."""
        repaint = self._whole_rows if whole_rows else self._view.refresh_lines
        for start, count in self.drawn.changed_runs(top, viewport, self._line_at):
            repaint(start, count)

    def _whole_rows(self, start: int, count: int) -> None:
        """Repaint virtual rows ``start``.. across the view's whole width, padding included."""
        view = self._view
        view.refresh(
            Region(-view.content_offset.x, start - view.scroll_offset.y, view.outer_size.width, count)
        )

    def scrolled(self, old: int, new: int) -> bool:
        """The view moved from ``old`` to ``new``: have the terminal move the rows on screen itself,
        and repaint only the rows that do not then show their line; False when it cannot (the
        caller repaints them all)."""
        view = self._view
        try:
            region, content = view.region, view.scrollable_content_region
        except Exception:  # not on a screen's map (being mounted or removed)
            return False
        viewport = content.height
        band = Region(region.x, region.y + content.y, region.width, viewport)
        if not request_scroll(view, band, new - old):
            return False
        top = content.y - region.y
        shift_rendered_rows(view, new - old, range(top, top + viewport))
        self.drawn.scrolled(old, new, viewport)
        if self._badge_shown():  # the badge stays on the bottom row: what moved there has none
            self.drawn.forget(new + viewport - 1)
        self.changed_rows(new, viewport, whole_rows=True)
        bar = view.vertical_scrollbar
        bar.position = new
        if isinstance(bar, SteadyScrollBar):  # the terminal moved its column too
            bar.moved_by_terminal(new - old)
        else:
            bar.refresh(bar.size.region)
        return True
