"""Find counts the blocks nearest to the reader first, and names no current match before it knows
which one is nearest (transcript_search.FindState)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from zett_tui.ui.widgets.transcript_blocks import Block
from zett_tui.ui.widgets.transcript_search import FindState


class TextBlock:
    """A stand-in block: its search text and a version."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.version = 0

    def search_text(self) -> str:
        return self.text


def blocks(*texts: str) -> Sequence[Block]:
    return cast(Sequence[Block], [TextBlock(text) for text in texts])


def test_blocks_are_ordered_on_screen_first_then_upward_then_downward() -> None:
    state = FindState(("bottom", 0, 0), (4, 6))
    assert state.search_order(10) == [4, 5, 6, 3, 2, 1, 0, 7, 8, 9]
    assert state.search_order(11) == [*state.search_order(10), 10]  # new output goes last
    assert state.search_order(5) == [4, 3, 2, 1, 0]  # the screen's last block is gone
    assert FindState(("bottom", 0, 0), (0, 0)).search_order(3) == [0, 1, 2]


def test_no_match_is_named_while_a_nearer_block_is_uncounted() -> None:
    shown = blocks(*["prose"] * 10)
    cast(TextBlock, shown[1]).text = "a zebra"
    cast(TextBlock, shown[5]).text = "a zebra and a zebra"
    state = FindState(("bottom", 0, 0), (7, 9))
    state.index.text(shown[1], False)  # converted ahead: counted however little time there is
    state.set_query("zebra", shown, budget_s=0.0)
    assert state.pending and state.total == 1
    assert state.nearest() is None  # block 1 holds a match, but 7 to 2 are nearer and uncounted
    state.recount(shown)
    assert not state.pending and state.total == 3
    assert state.nearest() == (5, 1)  # above the screen: its last hit, the one nearest the reader


def test_a_match_on_the_screen_is_known_before_the_rest_is_counted() -> None:
    shown = blocks(*["zebra"] * 3, "prose", "zebra", "prose")
    state = FindState(("bottom", 0, 0), (3, 5))
    for block in shown[3:]:
        state.index.text(block, False)
    state.set_query("zebra", shown, budget_s=0.0)
    assert state.pending
    assert state.nearest() == (4, 0)


def test_converting_ahead_follows_the_same_order() -> None:
    shown = blocks(*["prose"] * 6)
    state = FindState(("bottom", 0, 0), (4, 5))
    order = state.search_order(len(shown))
    position = state.index.prepare(shown, order, 0, budget_s=0.0)  # one block at least, each step
    assert position == 1 and state.index.is_current(shown[4])
    assert not state.index.is_current(shown[0])
    assert state.index.prepare(shown, order, position, budget_s=10.0) == len(shown)
    assert all(state.index.is_current(block) for block in shown)
