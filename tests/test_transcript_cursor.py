"""The transcript's selection cursor on its own (``transcript_cursor.BlockCursor``): it moves among
the expandable blocks and answers a plain click through ``CursorView`` alone, so a stand-in view
is enough to drive it. The keys and clicks through the real transcript are in test_transcript.py
and test_focus_and_keys.py."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from textual.geometry import Region

from zett_tui.ui.widgets.tool_block import ToolBlock
from zett_tui.ui.widgets.transcript_blocks import Block, NoticeBlock, ReasoningBlock, UserBlock
from zett_tui.ui.widgets.transcript_cursor import BlockCursor
from zett_tui.ui.widgets.transcript_layout import BlockLayout
from zett_tui.ui.widgets.transcript_render import BlockStyles, RenderContext


class StandInView:
    """A transcript `height` rows tall, scrolled to `scroll_y`, that records what it is asked."""

    def __init__(self, height: int = 6) -> None:
        self.scroll_y = 0.0
        self.scrollable_content_region = Region(0, 0, 40, height)
        self.toggled: list[Block] = []
        self.refreshes = 0

    def scroll_to(self, x: float | None = None, y: float | None = None, *, animate: bool = True) -> None:
        assert y is not None and not animate
        self.scroll_y = y

    def refresh(self) -> None:
        self.refreshes += 1

    def toggle_block(self, block: Block) -> None:
        block.toggle()
        self.toggled.append(block)


def laid_out(blocks: list[Block]) -> BlockLayout:
    ctx = RenderContext(BlockStyles.plain())
    layout = BlockLayout(lambda: ctx)
    layout.set_width(40)
    for block in blocks:
        layout.append(block)
    layout.measure_range(0, 10_000)
    layout.rebuild_tops(0)
    return layout


def finished_tool(name: str) -> ToolBlock:
    tool = ToolBlock(name, "bash", name)
    tool.finish("done", "\n".join(f"line {number}" for number in range(20)), 0.1)
    return tool


def click(x: int, y: int, chain: int = 1) -> Any:
    return SimpleNamespace(screen_x=x, screen_y=y, chain=chain)


def test_the_cursor_steps_over_what_cannot_expand_and_brings_its_block_on_screen() -> None:
    notices = [NoticeBlock(f"notice {number}") for number in range(8)]
    first, last = finished_tool("first"), ReasoningBlock()
    last.append("thinking")
    blocks: list[Block] = [notices[0], first, *notices[1:], last]
    view, layout = StandInView(), laid_out(blocks)
    cursor = BlockCursor(view, layout)
    assert cursor.block is None and not cursor.covers(0)

    cursor.select_next()
    assert cursor.block is first and view.scroll_y == 0  # on screen already: the view stays
    assert cursor.covers(layout.body_top(1)) and not cursor.covers(layout.body_top(2))
    cursor.select_next()
    assert cursor.block is last
    assert view.scroll_y + 6 >= layout.bottom(len(blocks) - 1)  # scrolled down to show it
    cursor.select_next()
    assert cursor.block is last  # nothing further down: it stays
    cursor.select_previous()
    assert cursor.block is first and view.scroll_y == layout.body_top(1)

    cursor.expand_selected()
    cursor.expand_selected()  # already expanded: not toggled again
    cursor.collapse_selected()
    assert view.toggled == [first, first] and not first.expanded
    cursor.forget()
    assert cursor.block is None


def test_a_plain_click_on_an_expandable_body_selects_and_toggles_it_and_a_drag_does_not() -> None:
    prompt, tool = UserBlock("a prompt"), finished_tool("tool")
    view, layout = StandInView(), laid_out([prompt, tool])
    assert layout.tops[1] < layout.body_top(1)  # a blank row between a prompt and a tool row
    cursor = BlockCursor(view, layout)
    row = layout.body_top(1)

    cursor.pressed(click(5, row))
    assert not cursor.is_plain_click(click(9, row))  # the end of a drag: text is being selected
    cursor.pressed(click(5, row))
    assert not cursor.is_plain_click(click(5, row, chain=2))  # a double click selects all
    cursor.pressed(click(5, row))
    assert cursor.is_plain_click(click(5, row))

    cursor.click_row(layout.body_top(0))  # the prompt: nothing to expand
    cursor.click_row(layout.tops[1])  # the gap before the row
    cursor.click_row(layout.total + 3)  # below the last line
    assert cursor.block is None and view.toggled == []
    cursor.click_row(row)
    assert cursor.block is tool and tool.expanded and view.toggled == [tool]
