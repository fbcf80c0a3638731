"""Attacks on the terminal scroll (``ui/speed/terminal_scroll.py``): whatever happens while an answer
streams, or while the reader scrolls, the terminal shows after every frame what the app would draw
from nothing (``tests/terminal_mirror.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.terminal_mirror import TerminalMirror
from tests.test_terminal_scroll import ANSWER, Dialog, scrolls, streamed
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


async def test_a_theme_change_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def themes(pilot: Any, app: Any) -> None:
        for theme in ("textual-light", "nord", "textual-dark"):
            app.theme = theme
            await pilot.pause(0.05)

    mirror = await streamed(monkeypatch, themes)
    assert mirror.differences == []


async def test_the_mouse_selecting_text_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def drag(pilot: Any, app: Any) -> None:
        transcript = app.chat.transcript
        await pilot.mouse_down(transcript, offset=(5, 3))
        for y in range(4, 12):
            await pilot.hover(transcript, offset=(20, y))
            await pilot.pause(0.02)
        await pilot.mouse_up(transcript, offset=(20, 12))

    mirror = await streamed(monkeypatch, drag)
    assert mirror.differences == []


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


async def test_clear_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def clear(pilot: Any, app: Any) -> None:
        await submit(pilot, "/clear")
        await pilot.pause(0.1)

    mirror = await streamed(monkeypatch, clear)
    assert mirror.differences == []


async def test_a_queued_prompt_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def queue(pilot: Any, app: Any) -> None:
        app.chat.composer.focus()
        await pilot.press(*"next please", "tab")
        await pilot.pause(0.1)

    mirror = await streamed(monkeypatch, queue)
    assert mirror.differences == []


WIDE = "\n\n".join(f"第{n}段 漢字とかな 😀🎉 " * (n % 4 + 1) + "x" * (150 + n) + " 終わり" for n in range(40))


async def test_wide_characters_and_long_unbreakable_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(ScriptedModel(text_step(WIDE, chunk=24, delay=0.003)))
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: idle(app))
        await pilot.pause(0.1)
        mirror.settled()
    assert mirror.differences == []
    assert scrolls(mirror) >= 2


TODOS = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]


async def test_the_todo_panel_appearing_between_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """The transcript's height changes while its rows are being scrolled."""
    app = make_app(
        ScriptedModel(
            text_step(ANSWER[:1500], chunk=16, delay=0.002),
            tool_step("t1", "todo_write", {"todos": TODOS}),
            text_step(ANSWER[:1500], chunk=16, delay=0.002),
            tool_step("t2", "todo_write", {"todos": []}),
            text_step(ANSWER[:1500], chunk=16, delay=0.002),
        )
    )
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: idle(app))
        await pilot.pause(0.1)
        mirror.settled()
    assert mirror.differences == []


async def test_a_tool_row_selected_and_toggled_while_the_answer_streams_below(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app(
        ScriptedModel(
            tool_step("c1", "read_file", {"path": "missing.txt"}),
            text_step(ANSWER, chunk=16, delay=0.003),
        )
    )
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "go")
        transcript = app.chat.transcript
        await wait_for(pilot, lambda: "Part 2" in transcript.blocks[-1].plain_text())
        transcript.focus()
        for key in ("alt+up", "enter", "alt+down", "alt+up", "enter", "alt+up", "enter"):
            await pilot.press(key)
            await pilot.pause(0.03)
        await wait_for(pilot, lambda: idle(app))
        await pilot.pause(0.1)
        mirror.settled()
    assert mirror.differences == []


async def test_a_resize_and_a_dialog_while_a_scroll_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(ScriptedModel(text_step(ANSWER, chunk=4000)))
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: idle(app))
        transcript = app.chat.transcript
        transcript.scroll_to(y=transcript.scroll_y - 3, animate=False, immediate=True)
        await pilot.resize_terminal(90, 26)
        await pilot.pause(0.1)
        transcript.scroll_to(y=transcript.scroll_y - 2, animate=False, immediate=True)
        app.push_screen(Dialog())
        await pilot.pause(0.1)
        transcript.scroll_to(y=transcript.scroll_y + 4, animate=False, immediate=True)
        app.pop_screen()
        await pilot.pause(0.1)
        transcript.scroll_to(y=transcript.scroll_y + 1, animate=False, immediate=True)
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.2)
        mirror.settled()
    assert mirror.differences == []
    assert mirror.checked >= 3
