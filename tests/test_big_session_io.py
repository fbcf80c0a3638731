"""A 200 MB session file never stalls the screen: it is read in a thread, never on the event loop.

Reading the last turns of a session reads backwards from the end and then counts the newlines of
every byte before them (for the line numbers of what it reports), so a 200 MB file means 200 MB
read. Done on the event loop, that froze the screen for a few hundred milliseconds when such a
session was resumed. A ticker task on the same loop measures how late it wakes up while the file is
read: no wake-up may come more than 50 ms late (the threshold of issue 11).
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import make_app, ready_app, wait_for
from zett_tui.ui.browser.screen import SessionBrowser
from zett_tui.ui.chat.past_turns import RESUME_TURNS, load_past_session
from zett_tui.ui.widgets.transcript import UserBlock

#: The event loop's wake-ups are timed against ``MAX_LAG``: a serial test (one at a time, at normal
#: priority, beside the niced parallel pass).
pytestmark = pytest.mark.serial

SIZE = 200 * 1024 * 1024
#: A wake-up later than this is a stall.
MAX_LAG = 0.050
TICK = 0.005


class LoopLag:
    """How late a task on the running loop wakes up from ``sleep(TICK)``, at worst."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.ticks = 0

    async def run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            self.worst = max(self.worst, time.perf_counter() - before - TICK)
            self.ticks += 1


@asynccontextmanager
async def measuring() -> AsyncIterator[LoopLag]:
    """Measure the loop's lag; the collector is held meanwhile, since what is measured is file I/O.

    Late in a full test run, one full collection over the objects of every earlier test can take
    longer than the threshold by itself (the app tunes collection for its own process, see
    ``ui/long_lived_objects.py``; a test process is not tuned).
    """
    lag = LoopLag()
    gc.collect()
    gc.disable()
    task = asyncio.create_task(lag.run())
    await asyncio.sleep(0)
    try:
        yield lag
    finally:
        gc.enable()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def record_session(prompt: str) -> Path:
    host = await make_host(ScriptedModel(text_step(f"Answer to {prompt}.")))
    await host.run_turn(prompt, Collector())
    await host.aclose()
    assert host.recorder is not None
    return host.recorder.session_path(host.session_id)


def grow_to_200_mb(path: Path) -> int:
    """Repeat the session's one real turn until the file holds 200 MB; returns the turn count."""
    line = path.read_bytes()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    turns = SIZE // len(line) + 1
    block = line * 1000
    with path.open("wb") as stream:
        for _ in range(turns // 1000):
            stream.write(block)
        stream.write(line * (turns % 1000))
    return turns


async def test_resuming_a_200_mb_session_reads_it_off_the_event_loop(project_dir: Path) -> None:
    path = await record_session("the big one")
    turns = await asyncio.to_thread(grow_to_200_mb, path)
    started = time.perf_counter()
    async with measuring() as lag:
        past = await load_past_session(path)
    elapsed = time.perf_counter() - started
    assert len(past.page.turns) == RESUME_TURNS and past.page.has_earlier
    assert not past.notices and list(past.notices) == []
    assert past.page.start_offset > SIZE - 1024 * 1024  # only the end was parsed ...
    assert lag.ticks > 0
    assert lag.worst <= MAX_LAG, (
        f"the event loop stalled {lag.worst * 1000:.0f} ms while a {turns:,}-turn session was read "
        f"(read took {elapsed * 1000:.0f} ms)"
    )


async def test_previewing_a_200_mb_session_in_the_browser_never_stalls_the_screen(project_dir: Path) -> None:
    big = await record_session("the big one")
    await asyncio.to_thread(grow_to_200_mb, big)
    await record_session("a small one")  # newer: listed first, so the big one is reached with Down
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(140, 40)) as pilot:
        await pilot.press("ctrl+o")
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.summaries is not None
        )
        browser = app.screen
        assert isinstance(browser, SessionBrowser)

        def previewed(prompt: str) -> bool:
            return any(isinstance(b, UserBlock) and b.plain_text() == prompt for b in browser.preview.blocks)

        await wait_for(pilot, lambda: previewed("a small one"), timeout=20)
        await pilot.pause()
        async with measuring() as lag:
            await pilot.press("down")
            await wait_for(pilot, lambda: previewed("the big one"), timeout=20)
        assert lag.ticks > 0
        assert lag.worst <= MAX_LAG, f"the event loop stalled {lag.worst * 1000:.0f} ms during the preview"
