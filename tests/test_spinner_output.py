"""The busy spinner repaints its own cell, not the status line's whole row, 8 times a second
(``ActivitySpinner(cell=...)``): over SSH that row was ~0.25 KiB a turn of the spinner."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.terminal_mirror import TerminalMirror
from tests.ui_helpers import dialog_armed, make_app, ready_app, submit, wait_for
from zett_tui.runtime.activity import Activity
from zett_tui.ui.widgets.activity import SPINNER_FRAMES


def status_row_writes(frames: list[str], row: int) -> list[tuple[int, str]]:
    """(column, what was written from there) for each part of ``frames`` on the 1-based ``row``."""
    return [
        (int(column_drawn), text)
        for frame in frames
        for row_drawn, column_drawn, text in re.findall(
            r"\x1b\[(\d+);(\d+)H([^\x1b]*(?:\x1b\[[0-9;]*m[^\x1b]*)*)", frame
        )
        if int(row_drawn) == row
    ]


def glyphs_in(writes: list[tuple[int, str]]) -> set[str]:
    return {glyph for _, text in writes for glyph in text if glyph in SPINNER_FRAMES}


async def test_the_spinner_turns_and_writes_only_its_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = asyncio.Event()
    app = make_app(ScriptedModel(text_step("Thinking about it", gate=gate)))
    async with ready_app(app) as pilot:
        status = app.chat.status
        await submit(pilot, "go")
        await wait_for(pilot, lambda: status.spinner.running)
        # the first delta came (the model then waits at the gate): the status says "writing" from
        # here on; CI's slow machine once took longer than a fixed 0.3 s to get there
        await wait_for(pilot, lambda: status.activity is Activity.WRITING)
        await pilot.pause(0.3)  # the turn's start is drawn; from here only the spinner moves
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.chat.status.region)
        await pilot.pause(0.2)  # the full frame the mirror asks for
        watched_from = len(mirror.frames)
        row, column = status.region.y + 1, status.region.x + 1  # 1-based: the padding cell, then the glyph

        def turned() -> bool:
            writes = status_row_writes(mirror.frames[watched_from:], row)
            return len(writes) >= 3 and len(glyphs_in(writes)) >= 2

        # 8 turns a second; counted as they come, not in a fixed time a loaded machine may not give
        await wait_for(pilot, turned, timeout=10)
        ticks = mirror.frames[watched_from:]
        gate.set()
    on_status_row = status_row_writes(ticks, row)
    assert len(on_status_row) >= 3 and len(glyphs_in(on_status_row)) >= 2  # it turns
    for column_drawn, text in on_status_row:
        assert column_drawn == column and len(text) < 80, text  # its cell, not the row


async def test_a_dialog_waiting_for_the_user_stops_the_spinner_and_the_frames(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Waiting for the user is not work: the spinner stands still under a dialog. Each of its turns
    there made Textual draw the whole screen again (the screen below a dialog shows through), 8 full
    frames a second over SSH for as long as the question waited. Quitting with the dialog open
    ends the turn after the status line is gone: nothing fails then."""
    app = make_app(
        ScriptedModel(tool_step("c1", "bash", {"command": "echo hi > out.txt"}), text_step("Done."))
    )
    async with ready_app(app) as pilot:
        await submit(pilot, "run it")
        await dialog_armed(pilot)
        status = app.chat.status
        await wait_for(pilot, lambda: status.activity is Activity.WAITING)
        assert not status.spinner.running
        await pilot.pause(0.3)  # the dialog's arrival is drawn
        frames: list[float] = []
        display = app._display

        def counted(screen: Any, update: Any) -> None:
            if update is not None:
                frames.append(time.monotonic())
            display(screen, update)

        app._display = counted  # type: ignore[method-assign]
        await pilot.pause(2.0)
        app._display = display  # type: ignore[method-assign]
    assert len(frames) <= 3, f"{len(frames)} frames in 2 s while a dialog waited (the spinner: 16)"
    assert "listener failed" not in caplog.text
