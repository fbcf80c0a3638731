"""Find's session logic without a screen: `TranscriptFinder` on a layout, through its `FindView`.

The widget-level story (keys, the bar, what is highlighted) is in test_find.py; here is what find
asks of the transcript it searches, and when.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style

from zett_tui.ui.widgets.tool_block import ToolBlock
from zett_tui.ui.widgets.transcript_blocks import AnswerBlock, UserBlock
from zett_tui.ui.widgets.transcript_find import TranscriptFinder
from zett_tui.ui.widgets.transcript_layout import Anchor, BlockLayout
from zett_tui.ui.widgets.transcript_render import BlockStyles, RenderContext

NOTES = "\n".join(f"line {number} of the notes" for number in range(8)) + "\nthe zebra is in the notes"


class RecordingView:
    """A `FindView` that records what find asks of it (detached: no idle steps are scheduled)."""

    is_attached = False

    def __init__(self, reading: Anchor, on_screen: tuple[int, int]) -> None:
        self.following = True
        self.reading = reading
        self.on_screen = on_screen
        self.asked: list[tuple[str, object]] = []

    def refresh(self) -> None:
        pass

    def set_timer(self, delay: float, callback: Callable[[], None]) -> None:
        raise AssertionError("a detached view gets no timers")

    def reading_position(self) -> Anchor:
        return self.reading

    def blocks_on_screen(self) -> tuple[int, int]:
        return self.on_screen

    def block_toggled(self, index: int) -> None:
        self.asked.append(("toggled", index))

    def move_view_to(self, anchor: Anchor) -> None:
        self.asked.append(("move", anchor))

    def update_soon(self) -> None:
        self.asked.append(("update", None))

    def find_match_styles(self) -> tuple[Style, Style]:
        return Style(bgcolor="yellow"), Style(reverse=True)


def session() -> tuple[BlockLayout, ToolBlock, AnswerBlock]:
    """A prompt, a collapsed tool row whose output says "zebra", an answer that does not."""
    ctx = RenderContext(BlockStyles.plain())
    layout = BlockLayout(lambda: ctx)
    layout.set_width(60)
    tool = ToolBlock("call_1", "read_file", "notes.md")
    tool.finish("done", NOTES, 0.1)
    answer = AnswerBlock()
    answer.append("The notes say nothing about horses.\n")
    answer.finish()
    for block in (UserBlock("where is the zoo animal?"), tool, answer):
        layout.append(block)
    return layout, tool, answer


def test_a_match_in_a_collapsed_row_is_shown_expanded_and_closing_puts_everything_back() -> None:
    layout, tool, _answer = session()
    view = RecordingView(("block", 2, 0.5), (2, 2))
    finder = TranscriptFinder(view, layout)
    finder.open()
    assert finder.is_open and not view.following  # new output no longer moves the view

    finder.find("zebra", budget_s=1.0)
    assert finder.position == (1, 1) and finder.complete
    assert tool.expanded
    row = next(
        number for number, line in enumerate(layout.lines(1)) if "zebra" in "".join(t for t, _ in line)
    )
    assert view.asked == [("toggled", 1), ("move", ("show", 1, row))]

    view.asked.clear()
    finder.close()
    assert not finder.is_open and not tool.expanded
    assert view.asked == [("toggled", 1), ("move", ("block", 2, 0.5))]  # back where the reader was


def test_new_output_with_a_match_is_counted_not_jumped_to() -> None:
    layout, _tool, _answer = session()
    view = RecordingView(("bottom", 0, 0), (0, 2))
    finder = TranscriptFinder(view, layout)
    changes: list[tuple[int, int]] = []
    finder.on_changed = lambda: changes.append(finder.position)
    finder.find("zebra", budget_s=1.0)  # opens find first
    view.asked.clear()

    later = AnswerBlock()
    later.append("Another zebra, in new output.\n")
    layout.append(later)
    finder.output_changed()
    assert changes == [(1, 2)]
    assert view.asked == []  # the view stays on the current match


def test_a_query_that_matches_nothing_moves_nothing_and_clearing_keeps_the_query() -> None:
    layout, tool, _answer = session()
    view = RecordingView(("bottom", 0, 0), (0, 2))
    finder = TranscriptFinder(view, layout)
    finder.find("xyzzy", budget_s=1.0)
    assert finder.position == (0, 0) and not tool.expanded
    assert view.asked == [("update", None)]

    layout.clear()
    finder.transcript_cleared()
    assert finder.is_open and finder.highlighting
    later = AnswerBlock()
    later.append("xyzzy at last\n")
    layout.append(later)
    finder.output_changed()
    assert finder.position == (1, 1)
