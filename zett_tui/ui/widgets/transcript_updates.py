"""When the transcript brings its layout up to date, and where each update puts the view.

The transcript only records what changed (a block added, changed or toggled, a place to show) and
this schedules one update for all of it with ``call_later``; if an update was expensive (a huge
table still streaming), the next one waits four times as long as it took. Before it, the changed
blocks are rendered in steps of a few milliseconds, one per loop turn (``Block.render_ahead``), and
a key on its way to the prompt goes first (the transcript's ``hold_updates``): a stream's new
paragraphs do not hold a typed key. Nothing is scheduled while nothing changes.

The update (``measure``) re-measures the changed blocks and finds the scroll position that keeps
its anchor in place: the bottom while following, a find match, a block just expanded or collapsed,
else the block under the top of the screen. The transcript applies the ``Update`` to the widget
(virtual size, scroll, repaint, follow mode) and calls ``done``. Then the blocks within two pages
above and three below the screen that hold no lines are rendered one at a time in idle time, so
the next page is drawn without rendering.

It sees the transcript through `UpdatedView` (and reads the blocks' `BlockLayout`), never its
private state.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.geometry import Region

    from zett_tui.ui.widgets.transcript_layout import Anchor, BlockLayout
    from zett_tui.ui.widgets.transcript_render import RenderContext

_MAX_SYNC_DELAY = 0.2
"""Upper bound of the back-off after an expensive update (seconds)."""
_RENDER_AHEAD_STEP = 0.004
"""Seconds of rendering per event-loop turn before an update (a key typed meanwhile waits no longer)."""
_HOLD_RETRY = 0.002  # seconds between two tries of an update while ``hold_updates`` says wait
_PREFETCH_DELAY = 0.01
"""Pause between two blocks rendered ahead (seconds): input and frames go first."""
_PREFETCH_MAX_LINES = 150
"""Taller blocks are not rendered ahead: rendering one would hold up a keystroke."""


class UpdatedView(Protocol):
    """What the updates need from the transcript they keep up to date."""

    #: Should the update wait (a typed key is on its way to the prompt)? Asked before each one.
    hold_updates: Callable[[], bool]

    @property
    def is_attached(self) -> bool: ...

    @property
    def scroll_y(self) -> float: ...

    @property
    def scrollable_content_region(self) -> Region:
        """Where the lines are drawn (its height is the number of rows on screen)."""
        ...

    def set_timer(self, delay: float, callback: Callable[[], None]) -> object:
        """Call `callback` after `delay` seconds, unless the widget is gone by then."""
        ...

    def call_later(self, callback: Callable[[], None]) -> object:
        """Call `callback` on the next turn of the widget's message loop."""
        ...

    def update_now(self) -> None:
        """Run the update now (``measure``, applied to the widget, then ``done``)."""
        ...

    def reading_position(self) -> Anchor:
        """Where the reader is: what an update keeps in place when nothing else is asked."""
        ...


@dataclass(frozen=True, slots=True)
class Update:
    """What one update decided; the transcript applies it to the widget."""

    scroll_was: int
    """The scroll position before the update."""
    target: int
    """The scroll position that keeps the anchor in place with the new heights."""
    resized: bool
    """The width changed (every block is measured again at the new width)."""
    visible_changed: bool
    """A block on screen changed, or blocks were added."""
    new_below: bool
    """Output (not an expand or collapse) grew below the screen."""
    pinned: bool
    """A block expanded or collapsed was kept in place: follow mode is what the view ends at."""


class TranscriptUpdates:
    """The pending changes of one transcript and the scheduling of the update that shows them."""

    def __init__(
        self, view: UpdatedView, layout: BlockLayout, render_context: Callable[[], RenderContext]
    ) -> None:
        self._view = view
        self._layout = layout
        self._render_context = render_context
        self._dirty: set[int] = set()
        self._toggled: set[int] = set()
        """Blocks the user expanded or collapsed since the last update (not "new output")."""
        self._appended_from = 0
        self._keep_on_screen: tuple[int, int, bool] | None = None
        """(block, its row on screen, reveal) for the next update after an expand or collapse."""
        self._pending_anchor: Anchor | None = None
        """Where the next update puts the view (a find match, or back where the reader was)."""
        self._sync_pending = False
        self._prefetch_pending = False
        self._next_sync_at = 0.0
        self._ahead_cost = 0.0
        """Seconds spent rendering ahead of the update being prepared (``_render_ahead``)."""
        self._started = 0.0

    @property
    def pending(self) -> bool:
        """Is an update waiting to run?"""
        return self._sync_pending

    @property
    def rendering_ahead(self) -> bool:
        """Are blocks near the screen still being rendered in idle time (see `_prefetch`)?"""
        return self._prefetch_pending

    # ------------------------------------------------------------------ what changed

    def soon(self) -> None:
        """Run an update soon (coalesced: one for all that changes until it runs)."""
        view = self._view
        if self._sync_pending or not view.is_attached:
            return
        self._sync_pending = True
        delay = self._next_sync_at - time.perf_counter()
        if delay > 0:
            view.set_timer(delay, self._continue_sync)
        else:
            view.call_later(self._continue_sync)

    def block_changed(self, index: int) -> None:
        """Block `index` changed (or its height was estimated): re-measure it at the next update."""
        self._dirty.add(index)
        self.soon()

    def block_toggled(self, index: int) -> None:
        """Block `index` was expanded or collapsed: re-measure it, as a toggle (not new output)."""
        self._toggled.add(index)
        self.block_changed(index)

    def keep_on_screen(self, index: int, screen_offset: int, reveal: bool) -> None:
        """Keep block `index`'s body at row `screen_offset` of the screen through the next update
        (`reveal`: scroll down to show what was expanded, never past the block's top)."""
        self._keep_on_screen = (index, screen_offset, reveal)

    def move_view_to(self, anchor: Anchor) -> None:
        """Put the view at `anchor` at the next update (see `_target_y`)."""
        self._pending_anchor = anchor
        self.soon()

    def is_placed(self, index: int) -> bool:
        """Was block `index` there at the last update (its place on screen is known)?"""
        return index < self._appended_from

    def clear(self) -> None:
        """Every block was removed: forget what changed."""
        self._dirty.clear()
        self._toggled.clear()
        self._appended_from = 0
        self._keep_on_screen = None
        self._pending_anchor = None

    # ------------------------------------------------------------------ the update

    def measure(self, width: int, viewport: int) -> Update | None:
        """Bring the heights up to date and find where the view goes; None when there is nothing to
        apply now (no room on screen, or changed blocks still rendering: it goes on next turn)."""
        self._sync_pending = False
        if width <= 0 or viewport <= 0:
            return None
        ahead_started = time.perf_counter()
        more = self._render_ahead(width)
        self._ahead_cost += time.perf_counter() - ahead_started
        if more:
            self._sync_pending = True
            asyncio.get_running_loop().call_soon(self._continue_sync)
            return None
        self._started = time.perf_counter() - self._ahead_cost  # the back-off counts the steps ahead too
        self._ahead_cost = 0.0
        layout = self._layout
        old_scroll = round(self._view.scroll_y)
        anchor = self._anchor()
        resized = width != layout.width
        if resized:
            layout.set_width(width)
        first_changed = len(layout)
        visible_changed = new_below = self._appended_from < len(layout)
        self._appended_from = len(layout)
        for index in sorted(self._dirty):
            if index >= len(layout):
                continue
            top, bottom = layout.tops[index], layout.bottom(index)
            visible_changed = visible_changed or (top < old_scroll + viewport and bottom > old_scroll)
            new_below = new_below or (bottom > old_scroll + viewport and index not in self._toggled)
            if layout.measure(index):
                first_changed = min(first_changed, index)
        self._dirty.clear()
        self._toggled.clear()
        layout.rebuild_tops(first_changed)
        target = self._target_y(anchor, viewport)
        for _ in range(4):
            if not layout.measure_range(target - viewport // 2, target + viewport + viewport // 2):
                break
            target = self._target_y(anchor, viewport)
        pinned = anchor[0] in ("pin", "reveal")
        return Update(old_scroll, target, resized, visible_changed, new_below, pinned)

    def done(self) -> None:
        """The update was applied: the next waits by what it cost; blocks near are rendered ahead."""
        cost = time.perf_counter() - self._started
        self._next_sync_at = time.perf_counter() + min(_MAX_SYNC_DELAY, 4 * cost)
        self._schedule_prefetch()

    def _anchor(self) -> Anchor:
        """What must stay put on screen through this update."""
        if self._pending_anchor is not None:
            anchor, self._pending_anchor = self._pending_anchor, None
            return anchor
        if self._keep_on_screen is not None:
            index, screen_offset, reveal = self._keep_on_screen
            self._keep_on_screen = None
            return ("reveal" if reveal else "pin", index, screen_offset)
        return self._view.reading_position()

    def _target_y(self, anchor: Anchor, viewport: int) -> int:
        """The scroll position that keeps `anchor` in place with the current heights."""
        kind, index, value = anchor
        layout = self._layout
        bottom = max(0, layout.total - viewport)
        if kind == "bottom":
            return bottom
        if kind == "show":  # a find match: stay if its row is on screen, else put it a third down
            row, top = layout.body_top(index) + round(value), round(self._view.scroll_y)
            if top <= row < top + viewport - 1:
                return max(0, min(bottom, top))
            return max(0, min(bottom, row - viewport // 3))
        if kind in ("pin", "reveal"):
            pinned = layout.tops[index] - round(value)
            if kind == "reveal":  # scroll down to show what was expanded, never past the block's top
                pinned = max(pinned, min(layout.bottom(index) - viewport, layout.body_top(index)))
            return max(0, min(bottom, pinned))
        return max(0, min(bottom, layout.tops[index] + round(value * layout.heights[index])))

    def _render_ahead(self, width: int) -> bool:
        """Render for up to ``_RENDER_AHEAD_STEP`` what the changed blocks will show (a streamed
        answer's new finished paragraphs); True while some is left. Each step is one turn of the event
        loop, so a key typed meanwhile is handled between two steps, not after all of them; the update
        that shows them comes once they are all rendered, so there are no more frames than before."""
        if not self._dirty:
            return False
        deadline = time.perf_counter() + _RENDER_AHEAD_STEP
        layout, ctx = self._layout, self._render_context()
        return any(
            layout.blocks[index].render_ahead(width, ctx, deadline)
            for index in sorted(self._dirty)
            if index < len(layout)
        )

    def _continue_sync(self) -> None:
        if not self._sync_pending:  # run already (the view's `update_now`): its timer has nothing to do
            return
        view = self._view
        if not view.is_attached:
            self._sync_pending = False
        elif view.hold_updates():
            view.set_timer(_HOLD_RETRY, self._continue_sync)
        else:
            view.update_now()

    # ------------------------------------------------------------------ rendering ahead in idle time

    def _schedule_prefetch(self) -> None:
        if not self._prefetch_pending and self._view.is_attached:
            self._prefetch_pending = True
            self._view.set_timer(_PREFETCH_DELAY, self._prefetch)

    def _prefetch(self) -> None:
        """Render one block of the pages around the screen that is not rendered yet, then the next.

        So the next page up or down (whose blocks may have been dropped from memory, or never
        rendered at this width) is drawn without rendering anything. Only lines are rendered here:
        heights are fixed when a block comes near the screen, so the view never moves.
        """
        self._prefetch_pending = False
        view = self._view
        viewport = view.scrollable_content_region.height
        if viewport <= 0 or self._sync_pending:
            return
        top = round(view.scroll_y)
        index = self._layout.unrendered_near(top - 2 * viewport, top + 3 * viewport, _PREFETCH_MAX_LINES)
        if index is not None:
            self._layout.lines(index)
            self._schedule_prefetch()
