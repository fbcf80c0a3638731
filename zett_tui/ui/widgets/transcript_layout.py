"""Where each block of the transcript sits: heights, tops, and which blocks hold rendered lines.

Pure bookkeeping, no Textual: the widget asks it which block is under a line, what changes when a
block is re-measured, and which blocks to drop from memory.

- `heights[i]` is block i's height plus the blank line before it (`gaps[i]`); `tops` is the prefix
  sum, so the block under a line is found with `bisect`.
- A height is *exact* once the block was rendered at the current width, else an *estimate*. Blocks
  get exact when they come near the screen, so a resize or adding 300 turns at once renders only
  what can be seen.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from typing import overload

from zett_tui.ui.widgets.transcript_blocks import Block
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

Anchor = tuple[str, int, float]
"""What stays put on screen through an update: ("bottom", 0, 0), ("block", index, fraction of it
above the view), or ("pin", "reveal" or "show", index, row of it)."""


class BlockList(Sequence[Block]):
    """A read-only view of the transcript's blocks."""

    def __init__(self, blocks: list[Block]) -> None:
        self._blocks = blocks

    @overload
    def __getitem__(self, index: int) -> Block: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Block]: ...
    def __getitem__(self, index: int | slice) -> Block | Sequence[Block]:
        if isinstance(index, slice):
            return tuple(self._blocks[index])
        return self._blocks[index]

    def __len__(self) -> int:
        return len(self._blocks)

    def __iter__(self) -> Iterator[Block]:
        return iter(self._blocks)


class BlockLayout:
    """The virtual geometry of a list of blocks at one width."""

    def __init__(self, context: Callable[[], RenderContext]) -> None:
        self._context = context
        self.blocks: list[Block] = []
        self._positions: dict[int, int] = {}
        self.gaps: list[int] = []
        self.heights: list[int] = []
        self.exact: list[bool] = []
        self.tops: list[int] = []
        self.total = 0
        self.width = 0
        self._cached: dict[int, int] = {}
        self.cached_lines = 0
        """Rendered lines held by the blocks (what eviction keeps under its budget)."""

    def __len__(self) -> int:
        return len(self.blocks)

    def index_of(self, block: Block) -> int | None:
        return self._positions.get(id(block))

    def append(self, block: Block) -> int:
        """Add a block at the end with an estimated height; returns its index."""
        if id(block) in self._positions:
            raise ValueError("block is already in the transcript")
        index = len(self.blocks)
        previous = self.blocks[-1] if self.blocks else None
        gap = 0 if previous is None or (previous.compact and block.compact) else 1
        height = gap + (block.estimate_height(self.width) if self.width else 1)
        self.blocks.append(block)
        self._positions[id(block)] = index
        self.gaps.append(gap)
        self.heights.append(height)
        self.exact.append(False)
        self.tops.append(self.total)
        self.total += height
        return index

    def clear(self) -> None:
        for items in (self.blocks, self.gaps, self.heights, self.exact, self.tops):
            items.clear()
        self._positions.clear()
        self._cached.clear()
        self.total = 0
        self.cached_lines = 0

    def block_at(self, y: int) -> int:
        """Index of the block covering virtual line `y` (clamped to the existing blocks)."""
        return max(0, min(bisect_right(self.tops, y) - 1, len(self.blocks) - 1))

    def body_top(self, index: int) -> int:
        """First line of the block itself (after its gap)."""
        return self.tops[index] + self.gaps[index]

    def bottom(self, index: int) -> int:
        """The line after the block."""
        return self.tops[index] + self.heights[index]

    def lines(self, index: int) -> list[Line]:
        """The block's rendered lines at the current width (rendered now if needed)."""
        lines = self.blocks[index].render(self.width, self._context())
        cached = self._cached.get(index)
        if cached != len(lines):
            self.cached_lines += len(lines) - (cached or 0)
            self._cached[index] = len(lines)
        return lines

    def line_at(self, y: int) -> tuple[int, Line | None] | None:
        """(block index, line) at virtual line `y`; the line is `None` in the gap before a block."""
        if y < 0 or y >= self.total or not self.blocks:
            return None
        index = self.block_at(y)
        offset = y - self.body_top(index)
        if offset < 0:
            return index, None
        lines = self.lines(index)
        return index, (lines[offset] if offset < len(lines) else None)

    def is_settled(self, index: int) -> bool:
        """Is the block's height exact and equal to what it renders to now?"""
        if not self.exact[index]:
            return False
        return self.blocks[index].measured_height(self.width) == self.heights[index] - self.gaps[index]

    def measure(self, index: int) -> bool:
        """Render block `index` at the current width; returns whether its height changed.

        Call `rebuild_tops` from the first changed index afterwards.
        """
        height = self.gaps[index] + len(self.lines(index))
        self.exact[index] = True
        if height == self.heights[index]:
            return False
        self.heights[index] = height
        return True

    def rebuild_tops(self, start: int) -> None:
        """Recompute the tops from block `start` on (after heights changed)."""
        if start < len(self.heights):
            base = self.tops[start] if start else 0
            self.tops[start:] = accumulate(self.heights[start:-1], initial=base)
        self.total = self.tops[-1] + self.heights[-1] if self.heights else 0

    def set_width(self, width: int) -> None:
        """The width changed: heights become estimates until each block is rendered again."""
        self.width = width
        for index, block in enumerate(self.blocks):
            exact = block.measured_height(width)
            self.exact[index] = exact is not None
            self.heights[index] = self.gaps[index] + (
                exact if exact is not None else block.estimate_height(width)
            )
        self.rebuild_tops(0)

    def measure_range(self, first_line: int, last_line: int) -> bool:
        """Make the heights of the blocks covering [first_line, last_line) exact; True if any changed."""
        if not self.blocks:
            return False
        first = self.block_at(first_line)
        last = bisect_right(self.tops, last_line)
        changed_from = None
        for index in range(first, min(last, len(self.blocks))):
            if not self.exact[index] and self.measure(index) and changed_from is None:
                changed_from = index
        if changed_from is None:
            return False
        self.rebuild_tops(changed_from)
        return True

    def unrendered_near(self, first_line: int, last_line: int, max_height: int) -> int | None:
        """The block covering [first_line, last_line) nearest its middle that is not rendered at the
        current width and is at most `max_height` lines (estimated); None when there is none."""
        if not self.blocks or not self.width:
            return None
        epoch = self._context().epoch
        centre = (first_line + last_line) // 2
        first, last = self.block_at(first_line), min(bisect_right(self.tops, last_line), len(self.blocks))
        candidates = [
            index
            for index in range(first, last)
            if self.heights[index] - self.gaps[index] <= max_height
            and not self.blocks[index].is_rendered(self.width, epoch)
        ]
        return min(candidates, key=lambda index: abs(self.tops[index] - centre), default=None)

    def evict(self, keep_from: int, keep_to: int, budget: int) -> None:
        """Drop the rendered lines of the blocks farthest from [keep_from, keep_to) while over budget.

        Blocks inside the range, and blocks still streaming, keep theirs.
        """
        if self.cached_lines <= budget:
            return
        centre = (keep_from + keep_to) // 2

        def distance(index: int) -> int:
            return max(self.tops[index] - centre, centre - self.bottom(index), 0)

        for index in sorted(self._cached, key=distance, reverse=True):
            if self.cached_lines <= budget * 3 // 4:
                break
            block = self.blocks[index]
            if block.streaming or (self.tops[index] < keep_to and self.bottom(index) > keep_from):
                continue
            block.drop_render_cache()
            self.cached_lines -= self._cached.pop(index)
