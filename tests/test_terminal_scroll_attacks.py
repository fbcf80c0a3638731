"""Attacks on the terminal scroll (``ui/speed/terminal_scroll.py``): whatever happens while an answer
streams, or while the reader scrolls, the terminal shows after every frame what the app would draw
from nothing (``tests/terminal_mirror.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual import events

from tests.test_terminal_scroll import after_an_answer, scroll_by, scrolls, streamed
from zett_tui.ui.widgets.steady_scrollbar import SteadyScrollBar
from zett_tui.ui.widgets.transcript import NoticeBlock, Transcript


async def test_a_screenshot_taken_while_a_scroll_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A screenshot renders the whole screen for no terminal: the scroll still waits for the frame
    that draws the rows it brings in, then both reach the terminal."""

    def scroll_and_screenshot(rows: int) -> Callable[[Transcript], object]:
        return lambda transcript: (scroll_by(rows)(transcript), transcript.app.export_screenshot())

    mirror = await after_an_answer(monkeypatch, [scroll_and_screenshot(rows) for rows in (-3, 2, -1, 2)])
    assert mirror.differences == []
    assert scrolls(mirror) >= 4


async def test_the_mouse_wheel_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def wheel(pilot: Any, app: Any) -> None:
        transcript = app.chat.transcript
        for event in (events.MouseScrollUp,) * 4 + (events.MouseScrollDown,) * 2:
            for _ in range(3):
                transcript.post_message(
                    event(transcript, 5, 5, 0, 0, 0, False, False, False, screen_x=5, screen_y=5)
                )
            await pilot.pause(0.03)
        await pilot.pause(0.1)
        await pilot.press("ctrl+end")

    mirror = await streamed(monkeypatch, wheel)
    assert mirror.differences == []


async def test_page_up_animated_and_ctrl_end_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def pages(pilot: Any, app: Any) -> None:
        transcript = app.chat.transcript
        transcript.scroll_to(y=transcript.scroll_y - 20, animate=True, duration=0.2)
        await pilot.pause(0.3)
        await pilot.press("ctrl+end")
        await pilot.pause(0.05)
        transcript.scroll_to(y=transcript.scroll_y - 10, animate=True, duration=0.2)
        await pilot.pause(0.1)
        await pilot.press("ctrl+end")

    mirror = await streamed(monkeypatch, pages)
    assert mirror.differences == []


async def test_a_scroll_refused_after_one_accepted_in_the_same_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row, then a page, before one frame: the page would move every row out of the band, so it is
    refused and the transcript drawn whole, after the first scroll that the frame still writes."""

    def two_scrolls(first: int, second: Callable[[int], int]) -> Callable[[Transcript], object]:
        """``first`` rows, then ``second(page)`` rows, before one frame."""

        def both(transcript: Transcript) -> None:
            scroll_by(first)(transcript)
            scroll_by(second(transcript.scrollable_content_region.height))(transcript)

        return both

    mirror = await after_an_answer(
        monkeypatch,
        [
            two_scrolls(-1, lambda page: -page),
            two_scrolls(2, lambda page: page - 4),
            two_scrolls(-3, lambda page: -page),
        ],
    )
    assert mirror.differences == []
    assert scrolls(mirror) >= 3


async def test_a_page_refused_after_a_row_is_drawn_before_the_scrollbar_looks_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A row (the terminal moves it, and the bar asks for the rows its thumb left and reached),
    then a page before the frame: refused, the transcript is drawn whole, and the bar's own check
    of its new thumb waits for the loop. When the frame comes first (a stream's, a key's), it draws
    the rows the bar asked for with the page's thumb; the rest of the bar must still be drawn again.
    It was not: the bar took what that frame rendered for the whole bar (1 run in ~50 of
    ``test_the_reader_scrolling_up_and_back_while_it_streams`` left scrollbar cells stale)."""

    def row_then_page_then_a_frame(up: bool) -> Callable[[Transcript], object]:
        def steps(transcript: Transcript) -> None:
            page = transcript.scrollable_content_region.height
            scroll_by(-1 if up else 1)(transcript)
            bar = transcript.vertical_scrollbar
            assert isinstance(bar, SteadyScrollBar)
            bar._repaint_if_changed()  # the loop got to the row's check (a stream's row, then a key)
            scroll_by(-page if up else page)(transcript)
            transcript.screen._compositor_refresh()  # the frame, before the loop gets to the bar

        return steps

    def another_frame(transcript: Transcript) -> None:
        transcript.refresh_lines(round(transcript.scroll_y), 1)  # its top row: the bar is left alone

    mirror = await after_an_answer(
        monkeypatch,
        [
            row_then_page_then_a_frame(up=True),
            another_frame,
            row_then_page_then_a_frame(up=False),
            another_frame,
        ],
    )
    assert mirror.differences == []
    assert scrolls(mirror) == 2  # the rows; the pages are drawn whole


async def test_the_new_output_badge_stays_on_the_bottom_row_as_the_reader_scrolls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The badge is drawn over the bottom row: rows the terminal moves there (the reader scrolls up)
    showed none, so that row is drawn again."""
    mirror = await after_an_answer(
        monkeypatch,
        [
            scroll_by(-10),
            lambda transcript: transcript.add(NoticeBlock("More output below")),
            scroll_by(-2),
            scroll_by(-1),
            scroll_by(2),
        ],
    )
    assert mirror.differences == []
    assert scrolls(mirror) >= 3
