"""The transcript's record of what the terminal shows (``ui/widgets/drawn_rows.py``)."""

from __future__ import annotations

from zett_tui.ui.widgets.drawn_rows import DrawnRows


def lines(*texts: str) -> dict[int, tuple[tuple[str, int], ...]]:
    return {y: ((text, 0),) for y, text in enumerate(texts)}


def test_rows_whose_line_reads_the_same_are_not_changes_even_when_rendered_again() -> None:
    drawn, shown = DrawnRows(), lines("a", "b", "c", "d")
    for y, line in shown.items():
        drawn.drew(y, line)
    again = {y: ((text, style),) for y, ((text, style),) in shown.items()}  # new objects, same lines
    again[2] = (("C", 0),)
    assert list(drawn.changed_runs(0, 4, lambda y: (0, again[y]))) == [(2, 1)]


def test_a_scroll_keeps_only_the_rows_on_screen_before_and_after() -> None:
    drawn, shown = DrawnRows(), lines(*"abcdefgh")
    for y in range(2, 6):  # rows 2..5 on screen
        drawn.drew(y, shown[y])
    drawn.scrolled(2, 4, 4)  # now rows 4..7: 4 and 5 stayed, 6 and 7 come in blank
    assert list(drawn.changed_runs(4, 4, lambda y: (0, shown[y]))) == [(6, 2)]
    drawn.scrolled(4, 2, 4)  # back: 4 and 5 stay, 2 and 3 came back blank though drawn before
    assert list(drawn.changed_runs(2, 4, lambda y: (0, shown[y]))) == [(2, 2)]


def test_the_badge_s_row_is_drawn_again() -> None:
    drawn, shown = DrawnRows(), lines("a", "b")
    drawn.drew(0, shown[0])
    drawn.drew_badge(1)
    assert list(drawn.changed_runs(0, 2, lambda y: (0, shown[y]))) == [(1, 1)]
