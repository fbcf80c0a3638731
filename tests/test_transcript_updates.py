"""The transcript's updates without a screen: `TranscriptUpdates` on a layout, through its `UpdatedView`.

The widget-level story (streaming, follow mode, keys first) is in test_transcript.py and
test_keys_first.py; here is where an update puts the view, and what it says changed.
"""

from __future__ import annotations

from collections.abc import Callable

from zett_tui.ui.widgets.transcript_blocks import AnswerBlock, Block
from zett_tui.ui.widgets.transcript_layout import Anchor, BlockLayout
from zett_tui.ui.widgets.transcript_render import BlockStyles, RenderContext
from zett_tui.ui.widgets.transcript_updates import TranscriptUpdates, Update

VIEWPORT = 10
WIDTH = 40


class DetachedView:
    """An `UpdatedView` off screen: nothing is scheduled, the test runs each update itself."""

    is_attached = False

    def __init__(self, scroll_y: float, reading: Anchor) -> None:
        self.scroll_y = scroll_y
        self.reading = reading
        self.hold_updates: Callable[[], bool] = lambda: False

    def set_timer(self, delay: float, callback: Callable[[], None]) -> None:
        raise AssertionError("a detached view gets no timers")

    def call_later(self, callback: Callable[[], None]) -> None:
        raise AssertionError("a detached view gets no calls")

    def update_now(self) -> None:
        raise AssertionError("the test runs the updates")

    def reading_position(self) -> Anchor:
        return self.reading


def answers(count: int, lines: int = 5) -> list[Block]:
    blocks: list[Block] = []
    for number in range(count):
        answer = AnswerBlock()
        answer.append("\n\n".join(f"answer {number} paragraph {line}" for line in range(lines)))
        answer.finish()
        blocks.append(answer)
    return blocks


def measured(view: DetachedView, count: int) -> tuple[TranscriptUpdates, BlockLayout]:
    ctx = RenderContext(BlockStyles.plain())
    layout = BlockLayout(lambda: ctx)
    updates = TranscriptUpdates(view, layout, lambda: ctx)
    for block in answers(count):
        layout.append(block)
    update = updates.measure(WIDTH, VIEWPORT)
    assert update is not None and update.resized
    return updates, layout


def run(updates: TranscriptUpdates) -> Update:
    update = updates.measure(WIDTH, VIEWPORT)
    assert update is not None
    return update


def test_new_output_keeps_the_reader_where_they_are_and_says_it_grew_below() -> None:
    view = DetachedView(scroll_y=0, reading=("block", 0, 0.0))
    updates, layout = measured(view, 6)
    first_top = layout.tops[0]
    layout.append(answers(1)[0])
    assert not updates.is_placed(6)  # a frame drawn now must not guess where it goes
    update = run(updates)
    assert updates.is_placed(6)
    assert update.target == first_top and update.new_below and not update.pinned


def test_following_goes_to_the_new_bottom() -> None:
    view = DetachedView(scroll_y=0, reading=("bottom", 0, 0))
    updates, layout = measured(view, 6)
    layout.append(answers(1)[0])
    assert run(updates).target == layout.total - VIEWPORT


def test_a_match_on_screen_does_not_move_the_view_and_one_off_screen_comes_a_third_down() -> None:
    view = DetachedView(scroll_y=0, reading=("block", 0, 0.0))
    updates, layout = measured(view, 8)
    updates.move_view_to(("show", 0, 2))
    assert run(updates).target == 0
    updates.move_view_to(("show", 6, 1))
    assert run(updates).target == layout.body_top(6) + 1 - VIEWPORT // 3


def test_an_expanded_block_keeps_its_row_and_is_not_new_output() -> None:
    view = DetachedView(scroll_y=12, reading=("block", 0, 0.0))
    updates, layout = measured(view, 8)
    updates.keep_on_screen(3, 2, False)
    updates.block_toggled(3)
    update = run(updates)
    assert update.pinned and not update.new_below
    assert update.target == layout.tops[3] - 2
