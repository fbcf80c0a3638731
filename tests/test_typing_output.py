"""A typed key, Backspace or an arrow repaints the prompt's text, not its border
(``Composer.refresh``): the terminal still shows exactly what the app means after every key,
wrapping and unwrapping lines included."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.fakes.scripted_model import ScriptedModel
from tests.terminal_mirror import TerminalMirror
from tests.ui_helpers import make_app, ready_app, wait_for
from zett_tui.ui.widgets.composer import Composer


def rows_written(frame: str) -> set[int]:
    return {int(row) - 1 for row in re.findall(r"\x1b\[(\d+);\d+H", frame)}


async def nothing_waits_in_the_prompt(pilot: Pilot[Any], composer: Composer) -> None:
    """Draw what waits to be drawn in the prompt before its frames are watched.

    A screen-wide repaint (Textual's ``Screen._on_timer_update``) drops the widgets waiting to be
    drawn without taking their regions: on a loaded machine the prompt's border title, set as the
    session starts, can still wait so, and would be drawn (border and all) with the first key."""
    for _ in range(50):
        composer.refresh()
        await pilot.pause(0.05)
        if not composer._repaint_regions:
            return
    raise AssertionError("the prompt never finished drawing")


async def watch_the_prompt(
    pilot: Pilot[Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[TerminalMirror, Callable[[list[str]], bool]]:
    """The prompt's rows mirrored from now on, once nothing waits to be drawn in it; and whether
    frames were written without a row of its border (the border as it is now)."""
    composer = pilot.app.chat.composer
    mirror = TerminalMirror.watch(pilot.app, monkeypatch, rows=lambda app: app.chat.composer.region)
    await nothing_waits_in_the_prompt(pilot, composer)
    top, bottom = composer.region.y, composer.region.bottom - 1

    def no_border_row(frames: list[str]) -> bool:
        return bool(frames) and all(
            top not in rows_written(f) and bottom not in rows_written(f) for f in frames
        )

    return mirror, no_border_row


async def test_typing_draws_the_text_alone_and_the_terminal_shows_what_the_app_means(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(40, 20)) as pilot:
        composer = app.chat.composer
        mirror, no_border_row = await watch_the_prompt(pilot, monkeypatch)
        typed_from = len(mirror.frames)
        await pilot.press(*"hello", "backspace", "left", "left", "right", "end", "ctrl+w", *"well")
        await pilot.pause(0.1)
        assert composer.text == "well"
        assert no_border_row(mirror.frames[typed_from:])
        await pilot.press(*" and more words than the prompt holds on one row", "backspace", "left", "x")
        await pilot.pause(0.1)
        assert composer.region.height > 3  # it wrapped: a taller prompt, drawn whole
        await pilot.press("end")
        for _ in range(len(composer.text)):
            await pilot.press("backspace")
        await pilot.pause(0.2)
        assert composer.text == "" and composer.region.height == 3
        mirror.settled()
    assert mirror.differences == []


async def test_the_cursor_resting_and_waking_draws_no_border_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a while without input the cursor stops blinking; the next key wakes it. Both change the
    cursor's cell alone (a slow start, as on a loaded machine, rests it before the first key)."""
    from zett_tui.ui.widgets import composer as composer_module

    monkeypatch.setattr(composer_module, "BLINK_SECONDS", 0.2)
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(40, 20)) as pilot:
        composer = app.chat.composer
        mirror, no_border_row = await watch_the_prompt(pilot, monkeypatch)
        watched_from = len(mirror.frames)
        await wait_for(pilot, lambda: not composer.cursor_blink)
        await pilot.press("a")
        await pilot.pause(0.05)
        assert composer.cursor_blink and composer.text == "a"
        assert no_border_row(mirror.frames[watched_from:])
        mirror.settled()
    assert mirror.differences == []


async def test_a_repaint_outside_typing_is_still_the_whole_prompt() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        asked: list[object] = []
        monkeypatch = pytest.MonkeyPatch()
        original = Composer._set_dirty
        monkeypatch.setattr(
            Composer,
            "_set_dirty",
            lambda self, *regions: (asked.append(regions), original(self, *regions))[1],
        )
        try:
            composer.refresh()
        finally:
            monkeypatch.undo()
        assert asked == [()]  # the border too (a focus change recolours it)
        await pilot.pause()
