"""Attacks on the terminal scroll (``ui/speed/terminal_scroll.py``): whatever happens while an answer
streams, or while the reader scrolls, the terminal shows after every frame what the app would draw
from nothing (``tests/terminal_mirror.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.terminal_mirror import TerminalMirror
from tests.test_terminal_scroll import ANSWER, scrolls, streamed
from tests.ui_helpers import idle, make_app, ready_app, submit, wait_for


async def test_a_screenshot_taken_while_a_scroll_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A screenshot renders the whole screen for no terminal: the scroll still waits for the frame
    that draws the rows it brings in, then both reach the terminal."""
    app = make_app(ScriptedModel(text_step(ANSWER, chunk=4000)))
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: idle(app))
        transcript = app.chat.transcript
        for rows in (-3, 2, -1, 2):
            drawn = len(mirror.frames)
            transcript.scroll_to(y=transcript.scroll_y + rows, animate=False, immediate=True)
            app.export_screenshot()
            await wait_for(pilot, lambda drawn=drawn: len(mirror.frames) > drawn)  # type: ignore[misc]
        mirror.settled()
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
    app = make_app(ScriptedModel(text_step(ANSWER, chunk=4000)))
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: idle(app))
        transcript = app.chat.transcript
        page = transcript.scrollable_content_region.height
        for first, second in ((-1, -page), (2, page - 4), (-3, -page)):
            drawn = len(mirror.frames)
            transcript.scroll_to(y=transcript.scroll_y + first, animate=False, immediate=True)
            transcript.scroll_to(y=transcript.scroll_y + second, animate=False, immediate=True)
            await wait_for(pilot, lambda drawn=drawn: len(mirror.frames) > drawn)  # type: ignore[misc]
        mirror.settled()
    assert mirror.differences == []
    assert scrolls(mirror) >= 3
