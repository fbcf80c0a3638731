"""The transcript: one Line-API widget that shows a whole session, however long.

Why one widget: a transcript of `Markdown` widgets has one child per Markdown block, and every frame
re-arranges all of them (design.md, "Measured facts"). Here the widget count is constant: blocks
render themselves to cached lines, and `render_line` only looks at the lines on screen.

How it stays cheap:

- Heights and positions live in `BlockLayout` (transcript_layout.py): a prefix sum of block heights,
  searched with `bisect`. A block not yet rendered at the current width has an *estimated* height; it
  gets exact when it comes near the viewport. So a resize, or adding 300 turns at once, renders only
  what is on (or next to) the screen.
- Updates are coalesced: `add` and `refresh_block` only record what changed, and
  `TranscriptUpdates` (transcript_updates.py) schedules one update for all of it, renders the changed
  blocks ahead of it in small steps (a typed key goes first: ``hold_updates``), finds where the view
  goes, and renders the pages around the screen in idle time after it. `_sync` applies an update.
- Memory: far blocks drop their lines past `cache_budget_lines` (heights kept; re-rendered when seen).
- Follow mode: at the bottom, new output keeps the view at the bottom. Any scroll away from the
  bottom (wheel, keys, scrollbar) stops following, and then new output never moves the view: the
  block under the top of the screen is the anchor. Scrolling back to the bottom resumes following.
- Find (Ctrl+F, `find`), run by `TranscriptFinder` (transcript_find.py): the query is counted in
  each block's text, not its render (transcript_search.py); hits are highlighted only on the lines
  drawn, the current one strongly, a hit broken by a soft wrap on both its rows (find_highlight.py).
  While find is open the view does not follow new output; closing it goes back to where it was.
- Copy: mouse selection copies the text as shown (Textual's selection, via `get_selection`);
  select-all (double click) and `plain_text`/`last_code_block` give the raw sources. Lines become
  strips, and the selection is drawn and copied, in transcript_strips.py.
- The selection cursor (Alt+Up/Down, a click on a tool row) is `BlockCursor` (transcript_cursor.py).
- The blocks' look (the `transcript--*` component classes, resolved into the styles they render
  with, kept until the CSS or theme changes) is `TranscriptStyles` (transcript_styles.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.selection import Selection
from textual.strip import Strip

from zett_tui.ui.textual_compat import own_vertical_scrollbar, set_virtual_size_quietly
from zett_tui.ui.widgets.find_highlight import match_styles
from zett_tui.ui.widgets.row_repaint import RowRepaint
from zett_tui.ui.widgets.steady_scrollbar import SteadyScrollBar
from zett_tui.ui.widgets.tool_block import ToolBlock
from zett_tui.ui.widgets.transcript_blocks import (
    AnswerBlock,
    Block,
    NoticeBlock,
    ReasoningBlock,
    UserBlock,
)
from zett_tui.ui.widgets.transcript_cursor import BlockCursor
from zett_tui.ui.widgets.transcript_find import TranscriptFinder
from zett_tui.ui.widgets.transcript_layout import Anchor, BlockLayout, BlockList
from zett_tui.ui.widgets.transcript_render import Line, RenderContext, overlay
from zett_tui.ui.widgets.transcript_strips import highlight_selection, line_text, selected_text
from zett_tui.ui.widgets.transcript_styles import BLOCK_COMPONENT_CLASSES, BLOCK_RULES, TranscriptStyles
from zett_tui.ui.widgets.transcript_updates import TranscriptUpdates

__all__ = [
    "AnswerBlock",
    "Block",
    "NoticeBlock",
    "ReasoningBlock",
    "ToolBlock",
    "Transcript",
    "UserBlock",
]

BlockT = TypeVar("BlockT", bound=Block)

NEW_OUTPUT_BADGE = " ↓ new output (Ctrl+End) "
_FIND_KEY_BUDGET = 0.02
"""Seconds a keystroke (`find`) may spend converting blocks' text; the rest is counted in idle steps after."""


class Transcript(ScrollView, can_focus=True):
    """The conversation: user prompts, streamed answers, reasoning, tool rows and notices."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(BLOCK_COMPONENT_CLASSES)
    DEFAULT_CSS = f"""
    Transcript {{
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        padding: 0 1;
{BLOCK_RULES}
    }}
    """

    #: Keys for reading: the transcript's own when it has the focus, and the chat screen's, so that
    #: they work from the prompt too (typing and Enter always go to the prompt: none is printable).
    READING_KEYS: ClassVar[list[Binding]] = [
        Binding("pageup", "page_up", "Scroll the transcript up a page", show=False),
        Binding("pagedown", "page_down", "Scroll the transcript down a page", show=False),
        Binding("ctrl+home", "scroll_home", "Go to the top of the transcript", show=False),
        Binding("ctrl+end", "scroll_end", "Go to the latest output", show=False),
        Binding("alt+up", "select_previous", "Select the previous tool row or reasoning block", show=False),
        Binding("alt+down", "select_next", "Select the next tool row or reasoning block", show=False),
        Binding("alt+right", "expand_selected", "Expand the selected block", show=False),
        Binding("alt+left", "collapse_selected", "Collapse the selected block", show=False),
    ]
    BINDINGS: ClassVar[list[BindingType]] = [*READING_KEYS]

    cache_budget_lines: int = 4000
    """Rendered lines kept for blocks away from the screen before the farthest are dropped."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._layout = BlockLayout(self._render_context)
        self._updates = TranscriptUpdates(self, self._layout, self._render_context)
        self._styling = TranscriptStyles(self)
        self._following = True
        self._unseen_output = False
        self._cursor = BlockCursor(self, self._layout)
        #: Told of each block the user expands (``ui/chat/changes_lines``: a turn's diff is read then).
        self.on_expand: Callable[[Block], None] | None = None
        self._programmatic_scroll = False
        self._frame_selection: Selection | None = None
        self._row_repaint = RowRepaint(self, self._layout.line_at, lambda: self._unseen_output)
        self._finder = TranscriptFinder(self, self._layout)
        self.sync_count = 0
        """How many times the layout was brought up to date (for tests and benchmarks)."""
        self.hold_updates: Callable[[], bool] = lambda: False  # a typed key goes first (speed/keys_first)

    # ------------------------------------------------------------------ public API

    @property
    def blocks(self) -> Sequence[Block]:
        """The blocks, in order (read-only)."""
        return BlockList(self._layout.blocks)

    @property
    def following(self) -> bool:
        """Is the view kept at the bottom as output arrives?"""
        return self._following

    @following.setter
    def following(self, value: bool) -> None:
        self._set_following(value)
        if value:
            self._scroll_to_y(self.max_scroll_y)

    @property
    def update_pending(self) -> bool:
        """Is a coalesced update waiting to run?"""
        return self._updates.pending

    @property
    def rendering_ahead(self) -> bool:
        """Are blocks near the screen still being rendered in idle time (`TranscriptUpdates`)?"""
        return self._updates.rendering_ahead

    @property
    def selected_block(self) -> Block | None:
        """The block under the selection cursor (expandable blocks only)."""
        return self._cursor.block

    def add(self, block: BlockT) -> BlockT:
        """Append a block; returns it."""
        self._layout.append(block)
        self._updates.soon()
        return block

    def refresh_block(self, block: Block) -> None:
        """The block changed (text appended, finished, expanded): re-measure it at the next update.

        Cheap and coalesced: call it as often as you like; the work happens once per update.
        """
        index = self._layout.index_of(block)
        if index is not None:
            self._updates.block_changed(index)

    def clear(self) -> None:
        """Remove every block."""
        self._layout.clear()
        self._updates.clear()
        self._cursor.forget()
        self._finder.transcript_cleared()
        self._unseen_output = False
        self._following = True
        self._forget_strips()
        if self.is_mounted:
            self._set_virtual_size(Size(self._layout.width, 0))
            self._scroll_to_y(0)
            self.refresh()

    def plain_text(self, block: Block) -> str:
        """The raw source of a block (code blocks raw, not as rendered)."""
        return block.plain_text()

    def last_code_block(self) -> str | None:
        """Raw text of the last fenced code block in the last answer, if it has one."""
        for block in reversed(self._layout.blocks):
            if isinstance(block, AnswerBlock):
                code_blocks = block.code_blocks()
                return code_blocks[-1] if code_blocks else None
        return None

    def line_text(self, y: int) -> str:
        """The plain text of virtual line `y` as rendered (for tests and tools)."""
        return line_text(self._layout, y)

    def update_now(self) -> None:
        """Run any pending update immediately (normally it runs on the next message-loop turn)."""
        self._sync()

    def toggle_block(self, block: Block) -> None:
        """Expand or collapse a block, keeping its first line where it is on screen."""
        layout = self._layout
        index = layout.index_of(block)
        if index is None or not block.toggle():
            return
        top = layout.body_top(index)
        if top >= self.scroll_y:  # its first line stays on that row of the screen
            row = top - round(self.scroll_y) - layout.gaps[index]
            self._updates.keep_on_screen(index, row, block.expanded)
        self._updates.block_toggled(index)
        if block.expanded and self.on_expand is not None:
            self.on_expand(block)

    # ------------------------------------------------------------------ find (transcript_find.py)

    @property
    def finding(self) -> bool:
        """Is a find open (see `open_find`)?"""
        return self._finder.is_open

    @property
    def find_complete(self) -> bool:
        """Is every block counted (see `FindState.pending`)?"""
        return self._finder.complete

    @property
    def find_position(self) -> tuple[int, int]:
        """(the current match's number, how many matches); (0, 0) when nothing matches."""
        return self._finder.position

    @property
    def on_find_changed(self) -> Callable[[], None] | None:
        """Called when new or changed output changes the number of matches while find is open."""
        return self._finder.on_changed

    @on_find_changed.setter
    def on_find_changed(self, callback: Callable[[], None] | None) -> None:
        self._finder.on_changed = callback

    def open_find(self) -> None:
        """Start finding: remember where the reader is (`close_find` goes back there), stop following
        new output, and convert the blocks' text for searching in idle time."""
        self._finder.open()

    def find(self, query: str) -> None:
        """Count `query` in every block and show the match nearest to where the reader was."""
        self._finder.find(query, _FIND_KEY_BUDGET)

    def find_next(self, direction: int = 1) -> None:
        """Show the next match (`direction` 1) or the previous one (-1), wrapping around."""
        self._finder.step(direction)

    def close_find(self) -> None:
        """End finding: collapse what find expanded and go back to where the reader was."""
        self._finder.close()

    # What find asks of the transcript (`transcript_find.FindView`):

    def reading_position(self) -> Anchor:
        """Where the reader is: the bottom while following, else the block under the top of the
        screen and how far into it."""
        layout = self._layout
        if self._following or not layout.blocks:
            return ("bottom", 0, 0)
        scroll_y = round(self.scroll_y)
        index = layout.block_at(scroll_y)
        return ("block", index, (scroll_y - layout.tops[index]) / max(1, layout.heights[index]))

    def blocks_on_screen(self) -> tuple[int, int]:
        """The first and last block on screen ((0, 0) when there is none)."""
        layout = self._layout
        if not layout.blocks:
            return (0, 0)
        top = round(self.scroll_y)
        return (layout.block_at(top), layout.block_at(top + self._viewport_height() - 1))

    def block_toggled(self, index: int) -> None:
        """Block `index` was expanded or collapsed without `toggle_block` (find showing a hit):
        re-measure it at the next update, as a toggle (not new output) that pins nothing."""
        self._updates.block_toggled(index)

    def move_view_to(self, anchor: Anchor) -> None:
        """Put the view at `anchor` at the next update: a ("show", block, row) stays if that row is on
        screen, else puts it a third down; a `reading_position` goes back there (following again if
        it was the bottom)."""
        if anchor[0] == "bottom":
            self._set_following(True)
            self._updates.soon()
        else:
            self._updates.move_view_to(anchor)

    def update_soon(self) -> None:
        """Bring the layout and the view up to date at the next update (coalesced, like `add`)."""
        self._updates.soon()

    def find_match_styles(self) -> tuple[Style, Style]:
        """The styles of every find match and of the current one."""
        return match_styles(self)

    # ------------------------------------------------------------------ styles (transcript_styles.py)

    def _render_context(self) -> RenderContext:
        return self._styling.context()

    def _forget_strips(self) -> None:
        self._styling.strips.forget()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styling.changed()
        self._finder.forget_styles()

    # ------------------------------------------------------------------ rendering

    def _content_width(self) -> int:
        return self.scrollable_content_region.width

    def _viewport_height(self) -> int:
        return self.scrollable_content_region.height

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame_selection = self.text_selection  # looked up once per frame, not once per line
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self._content_width()
        base = self._styling.base()
        virtual_y = self.scroll_offset.y + y
        line = self._line_for_screen(virtual_y) if self._layout.width else None
        self._row_repaint.drawn.drew(virtual_y, line)
        if line is None:
            strip = Strip.blank(width, base)
        else:
            strip = self._styling.strips.strip(line, base, self._layout.width)
            if self._layout.width != width:
                strip = strip.crop_extend(0, width, base)
            if self._cursor.covers(virtual_y):
                strip = overlay(strip, Style(bgcolor=self._render_context().styles.selected.bgcolor))
            selection = self._frame_selection
            if selection is not None and (span := selection.get_span(virtual_y)) is not None:
                strip = highlight_selection(strip, *span, self.screen)
            if self._finder.highlighting:
                strip = self._finder.mark_row(strip, virtual_y)
            strip = strip.apply_offsets(0, virtual_y)
        if self._unseen_output and y == self._viewport_height() - 1 and width > len(NEW_OUTPUT_BADGE):
            self._row_repaint.drawn.drew_badge(virtual_y)
            badge = Segment(NEW_OUTPUT_BADGE, base + self._render_context().styles.new_output)
            strip = Strip.join([strip.crop(0, width - badge.cell_length), Strip([badge])])
        return strip

    def _line_for_screen(self, y: int) -> Line | None:
        layout = self._layout
        if 0 <= y < layout.total and not self._updates.is_placed(layout.block_at(y)):
            # Added since the last update, which has not placed it yet: a frame drawn before that
            # update (a loaded machine) would render the blocks at the top of a resumed session.
            return None
        found = layout.line_at(y)
        if found is None:
            return None
        index, line = found
        if not self._layout.is_settled(index):
            # Scrolled onto a block whose height was estimated: fix the layout on the next turn.
            self._updates.block_changed(index)
        return line

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as shown. Select-all copies every block's source instead (cheap, raw)."""
        return selected_text(self._layout, selection)

    # ------------------------------------------------------------------ updates

    def _sync(self) -> None:
        """Bring heights, virtual size and scroll position up to date (``TranscriptUpdates.measure``);
        refresh what changed."""
        width, viewport = self._content_width(), self._viewport_height()
        update = self._updates.measure(width, viewport)
        if update is None:
            return
        self.sync_count += 1
        layout, target = self._layout, update.target
        if update.resized:
            self._forget_strips()
        self._set_virtual_size(Size(width, layout.total))
        if target != update.scroll_was:
            self._scroll_to_y(target)
        elif update.resized:
            self.refresh()
        elif update.visible_changed:
            self._row_repaint.changed_rows(target, viewport)
        if update.pinned:
            self._set_following(target >= layout.total - viewport)
        if update.new_below and not self._following:
            self._show_unseen(True)
        budget = max(self.cache_budget_lines, 8 * viewport)
        layout.evict(target - 2 * viewport, target + 3 * viewport, budget)
        self._finder.output_changed()
        self._updates.done()

    def _set_virtual_size(self, size: Size) -> None:
        """Update the virtual size without a screen layout pass.

        Assigning `virtual_size` asks the whole screen for a layout, and the layout then repaints the
        scrollbar in a second frame. Nothing outside this widget depends on its virtual size, so we
        only update the scrollbars (what `ScrollView` does after a layout).
        """
        if size == self.virtual_size:
            return
        set_virtual_size_quietly(self, size)

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """A bar that repaints only when its thumb moves (``SteadyScrollBar``): a streaming answer
        changes the scroll position at every update, the drawn thumb far less often."""
        return own_vertical_scrollbar(
            self,
            lambda: SteadyScrollBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical),
        )

    def _scroll_to_y(self, y: int) -> None:
        self._programmatic_scroll = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True)
        finally:
            self._programmatic_scroll = False

    # ------------------------------------------------------------------ follow mode

    def _set_following(self, value: bool) -> None:
        if value == self._following:
            return
        self._following = value
        if value:
            self._show_unseen(False)

    def _show_unseen(self, value: bool) -> None:
        if value != self._unseen_output:
            self._unseen_output = value
            self.refresh_line(round(self.scroll_y) + self._viewport_height() - 1)

    def watch_scroll_target_y(self, old: float, new: float) -> None:
        """Every scroll goes through the scroll target: a user scroll decides follow mode."""
        if self._programmatic_scroll:
            return
        self._set_following(round(new) >= self.max_scroll_y)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        old, new = round(old_value), round(new_value)
        if old == new or not self._row_repaint.scrolled(old, new):
            super().watch_scroll_y(old_value, new_value)
        if not self._programmatic_scroll and old != new:
            self._updates.soon()

    def on_resize(self, event: events.Resize) -> None:
        self._sync()

    def on_mount(self) -> None:
        self._updates.soon()

    def on_focus(self) -> None:
        if self._cursor.selected is not None:
            self.refresh()

    def on_blur(self) -> None:
        if self._cursor.selected is not None:
            self.refresh()

    def action_scroll_end(self) -> None:
        self._show_unseen(False)
        self.following = True

    def action_scroll_home(self) -> None:
        self.scroll_to(y=0, animate=False)

    def action_page_up(self) -> None:
        self.scroll_to(y=self.scroll_y - self._viewport_height(), animate=False)

    def action_page_down(self) -> None:
        self.scroll_to(y=self.scroll_y + self._viewport_height(), animate=False)

    # ------------------------------------------------------------------ the selection cursor (transcript_cursor.py)

    def action_select_next(self) -> None:
        self._cursor.select_next()

    def action_select_previous(self) -> None:
        self._cursor.select_previous()

    def action_toggle_selected(self) -> None:
        self._cursor.toggle_selected()

    def action_expand_selected(self) -> None:
        self._cursor.expand_selected()

    def action_collapse_selected(self) -> None:
        self._cursor.collapse_selected()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self._cursor.pressed(event)

    def on_click(self, event: events.Click) -> None:
        if not self._cursor.is_plain_click(event):
            return  # a double click (select all) or the end of a drag (text selection)
        offset = event.get_content_offset(self)
        if offset is None:
            return
        on_badge = offset.y == self._viewport_height() - 1 and offset.x >= self._content_width() - len(
            NEW_OUTPUT_BADGE
        )
        if self._unseen_output and on_badge:
            self.action_scroll_end()
            return
        self._cursor.click_row(round(self.scroll_y) + offset.y)
