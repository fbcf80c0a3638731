"""Session browser benchmark: ``python -m benchmarks.bench_browser [--sessions N] [--megabytes M]``.

Generates the data set of ``bench_sessions`` (1,000 sessions, about 200 MB, all started in
``/home/dev/project``) and opens the real ``SessionBrowser`` in a headless app, frames encoded
as a terminal driver would (``bench_transcript.FrameClock``). Prints medians of a few runs:

- open → first frame (the screen with "Loading sessions…"), and open → first frame that shows
  the listing: with no index cache (cold), with it (warm, a new process), and opened again in
  the same process;
- typing a rare and a common word: last keystroke → first frame with a result (this includes
  the 150 ms typing pause before a search starts), and search start → that frame;
- while a search runs, and with nothing running: Down key → the frame that shows the cursor moved
  (the preview waits for the cursor to rest, so it is not painted between these key presses).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App

from benchmarks.bench_sessions import COMMON_WORD, RARE_WORD, generate
from benchmarks.bench_transcript import FrameClock
from zett_tui.sessions.index import CACHE_NAME
from zett_tui.sessions.scan import forget_listings
from zett_tui.ui.browser.screen import SessionBrowser

WIDTH, HEIGHT = 160, 45
PROJECT = Path("/home/dev/project")


class BrowserBenchApp(App[None]):
    """Nothing but the browser (no agent), opened by the benchmark."""


def _send_key(app: App[Any], key: str, character: str | None = None) -> None:
    assert app._driver is not None
    app._driver.send_message(events.Key(key, character))


async def open_once(directory: Path) -> tuple[float, float]:
    """(seconds to the first frame, seconds to the first frame with the listing)."""
    app = BrowserBenchApp()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await pilot.pause()
        clock = FrameClock(app)
        browser = SessionBrowser(PROJECT, sessions_directory=directory)
        first = clock.wait(lambda: app.screen is browser)
        listed = clock.wait(lambda: browser.listed_at is not None and bool(browser.session_list.rows))
        started = time.perf_counter()
        app.push_screen(browser)
        first_at = await asyncio.wait_for(first, 30)
        listed_at = await asyncio.wait_for(listed, 30)
        return first_at - started, listed_at - started


async def search_once(directory: Path, word: str) -> tuple[float, float, float, list[float]]:
    """(last key → first result frame, search start → that frame, search start → end,
    Down-key latencies meanwhile)."""
    app = BrowserBenchApp()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        browser = SessionBrowser(PROJECT, sessions_directory=directory)
        app.push_screen(browser)
        await pilot.pause()
        while browser.listed_at is None:
            await asyncio.sleep(0.01)
        await pilot.pause()
        clock = FrameClock(app)
        shown = clock.wait(
            lambda: (
                (browser.first_hit_at is not None and bool(browser.session_list.rows))
                or browser.finished_query == word
            )
        )
        for character in word:
            _send_key(app, character, character)
        typed = time.perf_counter()
        shown_at = await asyncio.wait_for(shown, 60)
        assert browser.search_started_at is not None
        if browser.first_hit_at is None:
            raise LookupError(f"no session contains {word!r} (too small a data set?)")
        from_start = shown_at - browser.search_started_at
        moves = await _down_key_latencies(app, clock, browser, until=lambda: browser.finished_query == word)
        while browser.search_finished_at is None:
            await asyncio.sleep(0.01)
        return shown_at - typed, from_start, browser.search_finished_at - browser.search_started_at, moves


async def idle_moves(directory: Path) -> list[float]:
    """Down key → frame latencies with nothing else running (the baseline for the figures above)."""
    app = BrowserBenchApp()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        browser = SessionBrowser(PROJECT, sessions_directory=directory)
        app.push_screen(browser)
        while browser.listed_at is None:
            await asyncio.sleep(0.01)
        await pilot.pause(0.3)
        return await _down_key_latencies(app, FrameClock(app), browser, until=lambda: False)


async def _down_key_latencies(
    app: App[Any], clock: FrameClock, browser: SessionBrowser, until: Callable[[], bool], most: int = 20
) -> list[float]:
    moves: list[float] = []
    while not until() and len(moves) < most:
        cursor = browser.session_list.cursor
        moved = clock.wait(lambda cursor=cursor: browser.session_list.cursor != cursor)  # type: ignore[misc]
        pressed = time.perf_counter()
        _send_key(app, "down")
        try:
            moves.append(await asyncio.wait_for(moved, 5) - pressed)
        except TimeoutError:
            break  # at the last row
        await asyncio.sleep(0.05)
    return moves


def _ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:7.1f} ms" if samples else "      n/a"


async def main_async(options: argparse.Namespace) -> None:
    directory: Path = options.keep or Path(tempfile.mkdtemp(prefix="zett-bench-")) / "sessions"
    try:
        started = time.perf_counter()
        total, _ = generate(directory, options.sessions, options.megabytes)
        os.sync()  # let the 200 MB reach the disk now rather than while the browser is timed
        took = time.perf_counter() - started
        print(f"generated {options.sessions} sessions, {total / 1e6:.0f} MB in {took:.1f} s")
        kinds = (("cold (no index cache)", "cold"), ("warm (index cache)", "warm"), ("opened again", "again"))
        for label, kind in kinds:
            firsts, lists = [], []
            for _ in range(options.runs):
                if kind == "cold":
                    (directory / CACHE_NAME).unlink(missing_ok=True)
                if kind != "again":
                    forget_listings()  # as in a new process: nothing read yet
                first, listed = await open_once(directory)
                firsts.append(first)
                lists.append(listed)
            print(f"open, {label:22} first frame {_ms(firsts)}, listing on screen {_ms(lists)}")
        for label, word in (("rare", RARE_WORD), ("common", COMMON_WORD)):
            typed, from_start, whole, moves = [], [], [], []
            for _ in range(max(1, options.runs // 2)):
                after_typing, after_start, until_end, latencies = await search_once(directory, word)
                typed.append(after_typing)
                from_start.append(after_start)
                whole.append(until_end)
                moves.extend(latencies)
            line = (
                f"search {label:6} {word!r:18} first result {_ms(typed)} after typing, "
                f"{_ms(from_start)} after the search started; whole search {_ms(whole)}"
            )
            if moves:
                line += f"; Down key → frame while searching {_ms(moves)} (max {max(moves) * 1000:.1f} ms)"
            print(line)
        idle = await idle_moves(directory)
        print(f"Down key → frame with no search running {_ms(idle)} (max {max(idle) * 1000:.1f} ms)")
    finally:
        if options.keep is None:
            shutil.rmtree(directory.parent, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
