"""Find in the transcript: counting a query in every block, and stepping from match to match.

Kept off the render path: a keystroke counts the query in each block's `search_text()` (what the block
shows when expanded, without Markdown syntax), which is converted once per block version and kept
here, so typing costs one `str.count` per block, not a render. The converting is done ahead, in idle
time, as soon as the find bar opens (`FindIndex.prepare`); a key typed before that is done converts
for at most a fixed budget and leaves the rest `pending`, counted in idle steps after it. Placing the
hits on rendered lines, for highlighting, is find_highlight.py's job.

Smart case: a query with a capital letter matches case exactly; an all-lowercase one ignores case.
Matches do not overlap.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from zett_tui.ui.widgets.transcript_blocks import Block

_UNCOUNTED = -1
"""The version recorded for a block not counted yet (no block has it, so it is counted next time)."""


def is_case_sensitive(query: str) -> bool:
    """Smart case: only a query with a capital letter in it matches case exactly."""
    return query != query.lower()


def fold(text: str, case_sensitive: bool) -> str:
    """`text` as compared with a query: lowered unless case-sensitive, always of the same length
    (the few characters whose lower case is longer, like "İ", are kept as they are)."""
    if case_sensitive:
        return text
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(low if len(low := char.lower()) == 1 else char for char in text)


class FindIndex:
    """Each block's search text, exact and lowered, converted once per block version."""

    def __init__(self) -> None:
        self._texts: dict[int, tuple[Block, int, str, str]] = {}

    def text(self, block: Block, case_sensitive: bool) -> str:
        entry = self._texts.get(id(block))
        if entry is None or entry[0] is not block or entry[1] != block.version:
            exact = block.search_text()
            entry = self._texts[id(block)] = (block, block.version, exact, fold(exact, False))
        return entry[2] if case_sensitive else entry[3]

    def is_current(self, block: Block) -> bool:
        entry = self._texts.get(id(block))
        return entry is not None and entry[0] is block and entry[1] == block.version

    def prepare(self, blocks: Sequence[Block], order: Sequence[int], start: int, budget_s: float) -> int:
        """Convert the blocks `order` lists, from its `start`th on, for about `budget_s` seconds;
        returns where in `order` to go on (`len(order)` once every block is converted)."""
        deadline = time.perf_counter() + budget_s
        position = start
        while position < len(order):
            block = blocks[order[position]]
            position += 1
            if not self.is_current(block):
                self.text(block, False)
                if time.perf_counter() > deadline:
                    break
        return position


@dataclass
class FindState:
    """One find session: the query, the hits per block, the current hit, and where the reader was."""

    origin: tuple[str, int, float]
    """The scroll anchor to go back to when find closes."""
    origin_blocks: tuple[int, int]
    """The first and last block on screen when find opened: the nearest match to these comes first."""
    query: str = ""
    needle: str = ""
    case_sensitive: bool = False
    counts: list[int] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    total: int = 0
    current: tuple[int, int] | None = None
    """(block index, which hit in that block) of the current match."""
    expanded: set[int] = field(default_factory=set)
    """Blocks find expanded to show a hit (collapsed again when it closes)."""
    index: FindIndex = field(default_factory=FindIndex)
    prepared: int = 0
    """The blocks before this position in `search_order` have their search text converted."""
    pending: bool = False
    """Some blocks are not counted yet (their text was not converted within a keystroke's budget)."""
    counting: bool = False
    """An idle step to count them is scheduled."""
    jump_wanted: bool = False
    """The query found nothing yet while blocks were still uncounted: show the first match found."""

    def set_query(self, query: str, blocks: Sequence[Block], budget_s: float | None = None) -> None:
        """Count `query` in every block. When it only grew (more letters typed), blocks that did not
        hold the shorter query cannot hold the longer one and are not searched again."""
        case_sensitive = is_case_sensitive(query)
        needle = query if case_sensitive else query.lower()
        narrowing = (
            bool(self.needle) and needle.startswith(self.needle) and case_sensitive == self.case_sensitive
        )
        self.query, self.needle, self.case_sensitive = query, needle, case_sensitive
        self.current = None
        if not narrowing:
            self.counts, self.versions = [], []
        self.recount(blocks, narrowing=narrowing, budget_s=budget_s)

    def recount(
        self, blocks: Sequence[Block], *, narrowing: bool = False, budget_s: float | None = None
    ) -> bool:
        """Bring the counts up to date with the blocks (new ones, changed ones); True if any changed.

        With `budget_s`, blocks whose text is not converted yet are left uncounted once that much time
        has passed (`pending`); the next call goes on with them.
        """
        counts, versions, needle, index_ = self.counts, self.versions, self.needle, self.index
        del counts[len(blocks) :], versions[len(blocks) :]
        new = len(blocks) - len(counts)
        counts.extend([0] * new)
        versions.extend([_UNCOUNTED] * new)
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        changed = pending = False
        for index in self.search_order(len(blocks)):
            block = blocks[index]
            if versions[index] == block.version and not (narrowing and counts[index]):
                continue
            version = block.version
            if deadline is not None and not index_.is_current(block) and time.perf_counter() > deadline:
                count, version, pending = 0, _UNCOUNTED, True
            else:
                count = index_.text(block, self.case_sensitive).count(needle) if needle else 0
            changed = changed or counts[index] != count
            counts[index], versions[index] = count, version
        self.pending = pending
        self.total = sum(counts)
        if self.current is not None:
            block_index, nth = self.current
            if block_index >= len(counts) or not counts[block_index]:
                self.current = None
            elif nth >= counts[block_index]:
                self.current = (block_index, counts[block_index] - 1)
        return changed

    def number(self) -> int:
        """The current match's position among all matches (1-based; 0 when there is none)."""
        if self.current is None:
            return 0
        block_index, nth = self.current
        return sum(self.counts[:block_index]) + nth + 1

    def search_order(self, size: int) -> list[int]:
        """The indexes of `size` blocks, nearest to where the reader was first: the blocks on that
        screen top to bottom, then those above it upward, then those below it downward.

        Blocks are counted in this order, so the nearest match is known as soon as the blocks before
        it are counted; blocks added later come last, so the order only grows at its end."""
        first, last = self.origin_blocks
        first, last = min(first, size), min(last, size - 1)
        return [*range(first, last + 1), *range(first - 1, -1, -1), *range(last + 1, size)]

    def nearest(self) -> tuple[int, int] | None:
        """The match nearest to where the reader was: the first one on that screen, else the last one
        above it, else the first one below. None while a block nearer than every match found is
        still uncounted: the nearest match is not known yet."""
        counts, versions = self.counts, self.versions
        above = self.origin_blocks[0]
        for index in self.search_order(len(counts)):
            if versions[index] == _UNCOUNTED:
                return None
            if counts[index]:
                return (index, counts[index] - 1 if index < above else 0)
        return None

    def step(self, direction: int) -> tuple[int, int] | None:
        """The next (`direction` 1) or previous (-1) match from the current one, wrapping around."""
        counts = self.counts
        if not self.total:
            return None
        if self.current is None:
            return self.nearest()
        block_index, nth = self.current
        nth += direction
        if 0 <= nth < counts[block_index]:
            return (block_index, nth)
        size = len(counts)
        for step in range(1, size + 1):
            index = (block_index + direction * step) % size
            if counts[index]:
                return (index, 0 if direction > 0 else counts[index] - 1)
        return None
