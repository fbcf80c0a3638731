"""Find in the transcript (Ctrl+F): one find session from opening to closing, and what it shows.

Counting the query is transcript_search.py's job, placing and drawing the hits find_highlight.py's;
this module runs a find on a live transcript: it remembers where the reader was, converts the
blocks' text in idle time, counts what a keystroke left uncounted in idle steps after it, recounts
when output changes, shows the current match (expanding a collapsed block whose hidden part holds
it) and, on closing, collapses what it expanded and puts the view back.

It sees the transcript through `FindView` (and reads the blocks' `BlockLayout`), never its private
state: the transcript decides when its layout is updated and where its view goes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rich.style import Style
from textual.strip import Strip

from zett_tui.ui.widgets.find_highlight import FindHighlight
from zett_tui.ui.widgets.transcript_layout import Anchor, BlockLayout
from zett_tui.ui.widgets.transcript_search import FindState

_PREPARE_BUDGET = 0.008
"""Seconds of search-text conversion per idle step while find is open (a keystroke waits no longer)."""
_IDLE_STEP_DELAY = 0.01
"""Pause between two idle steps (seconds): input and frames go first."""


class FindView(Protocol):
    """What find needs from the transcript it searches."""

    @property
    def is_attached(self) -> bool: ...

    @property
    def following(self) -> bool:
        """Does the view keep to the bottom as output arrives? (Find stops it while open.)"""
        ...

    @following.setter
    def following(self, value: bool) -> None: ...

    def refresh(self) -> object:
        """Repaint the lines on screen (highlights changed)."""
        ...

    def set_timer(self, delay: float, callback: Callable[[], None]) -> object:
        """Call `callback` after `delay` seconds, unless the widget is gone by then."""
        ...

    def reading_position(self) -> Anchor:
        """Where the reader is now (to go back to)."""
        ...

    def blocks_on_screen(self) -> tuple[int, int]:
        """The first and last block on screen ((0, 0) when there is none)."""
        ...

    def block_toggled(self, index: int) -> None:
        """Block `index` was expanded or collapsed here: re-measure it at the next update."""
        ...

    def move_view_to(self, anchor: Anchor) -> None:
        """Put the view at `anchor` at the next update."""
        ...

    def update_soon(self) -> None:
        """Bring the layout and the view up to date at the next update."""
        ...

    def find_match_styles(self) -> tuple[Style, Style]:
        """The styles of every match and of the current one (see `find_highlight.match_styles`)."""
        ...


class TranscriptFinder:
    """Find in one transcript: open, type queries, step through the matches, close.

    While open, the view does not follow new output; closing goes back to where the reader was.
    """

    def __init__(self, view: FindView, layout: BlockLayout) -> None:
        self._view = view
        self._layout = layout
        self._state: FindState | None = None
        self._styles: tuple[Style, Style] | None = None
        self._highlight = FindHighlight()
        self.on_changed: Callable[[], None] | None = None
        """Called when new or changed output changes the number of matches while find is open."""

    @property
    def is_open(self) -> bool:
        return self._state is not None

    @property
    def complete(self) -> bool:
        """Is every block counted (see `FindState.pending`)?"""
        return self._state is None or not self._state.pending

    @property
    def position(self) -> tuple[int, int]:
        """(the current match's number, how many matches); (0, 0) when nothing matches."""
        state = self._state
        return (state.number(), state.total) if state is not None else (0, 0)

    @property
    def highlighting(self) -> bool:
        """Are matches to be marked on the lines drawn (`mark_row`)?"""
        return self._state is not None and bool(self._state.needle)

    def open(self) -> None:
        """Start finding: remember where the reader is (`close` goes back there), stop following new
        output, and convert the blocks' text for searching in idle time."""
        if self._state is not None:
            return
        view = self._view
        self._state = FindState(view.reading_position(), view.blocks_on_screen())
        self._highlight.forget()
        view.following = False
        if view.is_attached:
            view.set_timer(_IDLE_STEP_DELAY, self._prepare)

    def find(self, query: str, budget_s: float) -> None:
        """Count `query` in every block and show the match nearest to where the reader was. Blocks
        whose text is not converted within `budget_s` seconds are counted in idle steps after."""
        if self._state is None:
            self.open()
        state = self._state
        assert state is not None
        state.set_query(query, self._layout.blocks, budget_s)
        state.current = state.nearest()
        state.jump_wanted = state.current is None and state.pending
        self._show_current()
        self._schedule_count()

    def step(self, direction: int) -> None:
        """Show the next match (`direction` 1) or the previous one (-1), wrapping around."""
        state = self._state
        if state is not None and state.total:
            state.current = state.step(direction)
            self._show_current()

    def close(self) -> None:
        """End finding: collapse what find expanded and go back to where the reader was."""
        state, self._state = self._state, None
        if state is None:
            return
        self._highlight.forget()
        self._collapse_found(state, keep=None)
        self._view.move_view_to(state.origin)
        self._view.refresh()

    def transcript_cleared(self) -> None:
        """Every block was removed: an open find stays open, with its query, on the empty transcript."""
        if self._state is not None:
            query, self._state = self._state.query, FindState(("bottom", 0, 0), (0, 0))
            self._state.set_query(query, [])
            self._highlight.forget()

    def output_changed(self) -> None:
        """New or changed output while find is open: count again (only the blocks that changed)."""
        state = self._state
        if state is None or not state.needle:
            return
        if state.recount(self._layout.blocks, budget_s=_PREPARE_BUDGET):
            self._counts_changed(state)
        self._schedule_count()

    def forget_styles(self) -> None:
        """The widget's styles changed (a theme): resolve the match styles again."""
        self._styles = None

    def mark_row(self, strip: Strip, virtual_y: int) -> Strip:
        """`strip`, drawn at virtual row `virtual_y`, with the matches on it marked (see `highlighting`)."""
        state = self._state
        assert state is not None
        if self._styles is None:
            self._styles = self._view.find_match_styles()
        layout = self._layout
        index = layout.block_at(virtual_y)
        at = (index, virtual_y - layout.body_top(index))
        return self._highlight.mark_row(strip, state, at, layout.lines(index), self._styles)

    def _counts_changed(self, state: FindState) -> None:
        """Matches appeared or went (new output, or blocks counted after a keystroke). A first match
        is shown when the keystroke found none yet; one in new output is only highlighted."""
        if state.current is None and state.total:
            state.current = state.nearest()
            if state.jump_wanted:
                state.jump_wanted = False
                self._show_current()
        self._view.refresh()
        if self.on_changed is not None:
            self.on_changed()

    def _schedule_count(self) -> None:
        state = self._state
        if state is not None and state.pending and not state.counting and self._view.is_attached:
            state.counting = True
            self._view.set_timer(_IDLE_STEP_DELAY, self._count_more)

    def _count_more(self) -> None:
        """Count the blocks a keystroke left uncounted, a few milliseconds at a time."""
        state = self._state
        if state is None:
            return
        state.counting = False
        changed = state.recount(self._layout.blocks, budget_s=_PREPARE_BUDGET)
        if changed or (state.current is None and state.total):  # the nearest match may be known now
            self._counts_changed(state)
        elif self.on_changed is not None:
            self.on_changed()  # "…" goes once the count is complete
        self._schedule_count()

    def _prepare(self) -> None:
        state = self._state
        if state is not None:
            blocks = self._layout.blocks
            order = state.search_order(len(blocks))
            state.prepared = state.index.prepare(blocks, order, state.prepared, _PREPARE_BUDGET)
            if state.prepared < len(blocks):
                self._view.set_timer(_IDLE_STEP_DELAY, self._prepare)

    def _collapse_found(self, state: FindState, keep: int | None) -> None:
        """Collapse the blocks find expanded (but `keep`), if the reader left them expanded."""
        for index in sorted(state.expanded - {keep}):
            block = self._layout.blocks[index] if index < len(self._layout) else None
            if block is not None and block.expanded and block.toggle():
                self._view.block_toggled(index)
        state.expanded &= {keep}

    def _show_current(self) -> None:
        """Scroll the current match into view, expanding its block when the hit is in the hidden part."""
        view, layout, state = self._view, self._layout, self._state
        view.refresh()
        if state is None or not layout.width:
            return
        self._collapse_found(state, keep=state.current[0] if state.current is not None else None)
        if state.current is None:
            view.update_soon()
            return
        index, nth = state.current
        block = layout.blocks[index]
        query = (state.needle, state.case_sensitive, state.counts[index])
        hits = self._highlight.hits(index, layout.lines(index), *query)
        if nth >= len(hits) and block.expandable and not block.expanded and block.toggle():
            state.expanded.add(index)
            view.block_toggled(index)
            hits = self._highlight.hits(index, layout.lines(index), *query)
        first_row = hits[min(nth, len(hits) - 1)][0][0] if hits else 0
        view.move_view_to(("show", index, first_row))
