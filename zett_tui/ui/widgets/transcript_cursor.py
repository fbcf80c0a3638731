"""The transcript's selection cursor: which expandable block (a tool row, reasoning, a turn's
changes) is selected, moved with Alt+Up/Down, expanded or collapsed with Alt+Right/Left, and a
plain click on such a block's body, which selects it and expands or collapses it.

It sees the transcript through `CursorView` (and reads the blocks' `BlockLayout`), never its
private state: the transcript keeps its bindings and mouse handlers, draws the selected block's
background where `covers` says, and decides what a click on its new-output badge does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual import events
    from textual.geometry import Region

    from zett_tui.ui.widgets.transcript_blocks import Block
    from zett_tui.ui.widgets.transcript_layout import BlockLayout


class CursorView(Protocol):
    """What the cursor needs from the transcript it moves in."""

    @property
    def scroll_y(self) -> float: ...

    @property
    def scrollable_content_region(self) -> Region:
        """Where the lines are drawn (its height is the number of rows on screen)."""
        ...

    def scroll_to(self, x: float | None = None, y: float | None = None, *, animate: bool = True) -> None: ...

    def refresh(self) -> object:
        """Repaint the lines on screen (the selected block changed)."""
        ...

    def toggle_block(self, block: Block) -> None:
        """Expand or collapse `block`, keeping its first line where it is on screen."""
        ...


class BlockCursor:
    """The selected expandable block of one transcript (none at first), and the mouse press that a
    click ends."""

    def __init__(self, view: CursorView, layout: BlockLayout) -> None:
        self._view = view
        self._layout = layout
        #: The selected block's index (None: nothing selected).
        self.selected: int | None = None
        self._mouse_down_at: tuple[int, int] | None = None

    @property
    def block(self) -> Block | None:
        """The selected block."""
        return None if self.selected is None else self._layout.blocks[self.selected]

    def covers(self, y: int) -> bool:
        """Is virtual row `y` in the selected block (drawn with the selection background)?"""
        index = self.selected
        return index is not None and self._layout.body_top(index) <= y < self._layout.bottom(index)

    def forget(self) -> None:
        """The transcript was cleared: nothing is selected."""
        self.selected = None

    def _viewport_height(self) -> int:
        return self._view.scrollable_content_region.height

    def select_next(self) -> None:
        """The next expandable block (from the top of the screen when nothing is selected)."""
        layout = self._layout
        start = (
            self.selected if self.selected is not None else layout.block_at(round(self._view.scroll_y)) - 1
        )
        for index in range(start + 1, len(layout)):
            if layout.blocks[index].expandable:
                self._select(index)
                return

    def select_previous(self) -> None:
        """The previous expandable block (from the bottom of the screen when nothing is selected)."""
        layout = self._layout
        if self.selected is not None:
            start = self.selected
        else:
            start = layout.block_at(round(self._view.scroll_y) + self._viewport_height() - 1) + 1
        for index in range(min(start, len(layout)) - 1, -1, -1):
            if layout.blocks[index].expandable:
                self._select(index)
                return

    def _select(self, index: int) -> None:
        view = self._view
        self.selected = index
        view.refresh()
        top, bottom = self._layout.body_top(index), self._layout.bottom(index)
        viewport = self._viewport_height()
        if top < view.scroll_y:
            view.scroll_to(y=top, animate=False)
        elif min(bottom, top + viewport) > view.scroll_y + viewport:
            view.scroll_to(y=min(top, bottom - viewport), animate=False)

    def toggle_selected(self) -> None:
        if self.selected is not None:
            self._view.toggle_block(self._layout.blocks[self.selected])

    def expand_selected(self) -> None:
        block = self.block
        if block is not None and not block.expanded:
            self._view.toggle_block(block)

    def collapse_selected(self) -> None:
        block = self.block
        if block is not None and block.expanded:
            self._view.toggle_block(block)

    def pressed(self, event: events.MouseDown) -> None:
        """A mouse button went down: where (a click ending elsewhere was a drag)."""
        self._mouse_down_at = (event.screen_x, event.screen_y)

    def is_plain_click(self, event: events.Click) -> bool:
        """Is `event` a single click where the button went down (not a double click, which selects
        all, nor the end of a drag, which selects text)?"""
        pressed_at, self._mouse_down_at = self._mouse_down_at, None
        return event.chain <= 1 and pressed_at in (None, (event.screen_x, event.screen_y))

    def click_row(self, y: int) -> None:
        """A plain click on virtual row `y`: on an expandable block's body, select it and expand or
        collapse it."""
        layout = self._layout
        if not layout.blocks or y >= layout.total:
            return
        index = layout.block_at(y)
        if layout.blocks[index].expandable and y >= layout.body_top(index):
            self.selected = index
            self._view.toggle_block(layout.blocks[index])
            self._view.refresh()
