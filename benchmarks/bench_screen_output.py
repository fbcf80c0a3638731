"""What zett writes to the terminal when a dialog opens and closes, and at each Tab in the session
browser: the bytes a remote terminal (SSH, tmux) is sent for moves that change a few widgets.

Run: ``python -m benchmarks.bench_screen_output`` (``--runs 5``, ``--size 100x30``; against another
tree: copy this file into it and run it there with ``PYTHONPATH`` at that tree). ZettApp runs
headless with a scripted model (``tests.fakes``) in a home of its own (XDG folders in a temporary
directory); each frame is encoded as Textual's driver encodes it (``bench_transcript.FrameClock``).

- **dialog**: a scripted ``ask_user`` call opens the question dialog; from the call to 0.3 s after
  the dialog took the focus, then from Enter (its first choice) to 0.3 s after the chat is back.
- **browser Tab**: Ctrl+O with three recorded sessions, then Tab between the search field, the list
  and the preview, 12 times, each until 0.15 s after the key.

Printed as medians over the runs: bytes written, frames, and frames made as whole-screen frames
(Textual's ``LayoutUpdate``; a dialog's writes only the pieces of rows that changed since its last,
``zett_tui/ui/speed/shown_rows.py``, so the bytes say what they cost); the baseline in the same run is
one frame of the whole screen written in full.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_app import keep_zett_files_in
from benchmarks.bench_transcript import FrameClock

QUESTION = {"question": "Which format?", "options": ["Markdown", "HTML", "Plain text"]}
TABS = 12


def _isolated_home() -> Path:
    home = Path(tempfile.mkdtemp(prefix="bench-screen-output-"))
    keep_zett_files_in(home)
    project = home / "project"
    project.mkdir()
    os.chdir(project)
    return project


def _counts(clock: FrameClock) -> tuple[int, int, int]:
    return clock.written, clock.frames, clock.whole


def _since(clock: FrameClock, before: tuple[int, int, int]) -> tuple[int, int, int]:
    after = _counts(clock)
    return after[0] - before[0], after[1] - before[1], after[2] - before[2]


async def _until(pilot: Any, condition: Any, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError(
                f"the app never got there: {pilot.app.screen!r}, focus {pilot.app.screen.focused!r}"
            )
        await pilot.pause(0.02)


async def dialog_once(size: tuple[int, int]) -> tuple[tuple[int, int, int], tuple[int, int, int], int]:
    """(opening, closing, one whole screen's bytes)."""
    from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
    from tests.ui_helpers import make_app
    from zett_tui.ui.modals.ask_user import AskUserDialog

    app = make_app(ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("HTML it is.")))
    async with app.run_test(size=size) as pilot:
        await _until(pilot, lambda: app.chat.host is not None and not app.chat.turns.busy)
        await pilot.pause(0.5)
        clock = FrameClock(app)
        app.screen.refresh()
        await pilot.pause(0.2)
        screen_bytes = clock.last_whole_written
        app.chat.composer.load_text("export it")
        before = _counts(clock)
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, AskUserDialog) and app.screen.focused is not None)
        await pilot.pause(0.3)
        opening = _since(clock, before)
        before = _counts(clock)
        await pilot.press("enter")
        await _until(pilot, lambda: app.screen is app.chat and not app.chat.turns.busy)
        await pilot.pause(0.3)
        closing = _since(clock, before)
    return opening, closing, screen_bytes


async def _record_sessions(project: Path) -> None:
    from tests.fakes.host import Collector, make_host
    from tests.fakes.scripted_model import ScriptedModel, text_step

    for answers, prompts in (
        (
            ["Use a quaternion for rotations.", "Yes, normalise it first."],
            ["how do I rotate", "and keep it?"],
        ),
        (["Paris."], ["capital of France?"]),
        (["Two lines."], ["what is in notes.txt?"]),
    ):
        host = await make_host(ScriptedModel(*(text_step(answer) for answer in answers)), cwd=project)
        for prompt in prompts:
            await host.run_turn(prompt, Collector())
        await host.aclose()


async def browser_tabs(project: Path, size: tuple[int, int]) -> tuple[list[tuple[int, int, int]], int]:
    """Each Tab's counts, and one whole screen's bytes."""
    from tests.fakes.scripted_model import ScriptedModel
    from tests.ui_helpers import make_app
    from zett_tui.ui.browser.screen import SessionBrowser

    await _record_sessions(project)
    app = make_app(ScriptedModel())
    tabs: list[tuple[int, int, int]] = []
    async with app.run_test(size=size) as pilot:
        await _until(pilot, lambda: app.chat.host is not None)
        await pilot.press("ctrl+o")
        await _until(
            pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.summaries is not None
        )
        browser = app.screen
        assert isinstance(browser, SessionBrowser)
        browser.search_input.cursor_blink = False  # its blinks are not what a Tab writes
        await pilot.pause(0.5)
        clock = FrameClock(app)
        browser.refresh()
        await pilot.pause(0.2)
        screen_bytes = clock.last_whole_written
        for _ in range(TABS):
            before = _counts(clock)
            await pilot.press("tab")
            await pilot.pause(0.15)
            tabs.append(_since(clock, before))
    return tabs, screen_bytes


def _line(what: str, samples: list[tuple[int, int, int]], screen_bytes: int) -> str:
    written = statistics.median(sample[0] for sample in samples)
    return (
        f"{what}: {written / 1024:.1f} KiB, {statistics.median(sample[1] for sample in samples):.0f} frames, "
        f"{statistics.median(sample[2] for sample in samples):.0f} made whole "
        f"({written / screen_bytes if screen_bytes else float('nan'):.2f} screens)"
    )


async def run(runs: int, size: tuple[int, int], project: Path) -> None:
    dialogs = [await dialog_once(size) for _ in range(runs)]
    screen_bytes = statistics.median(int(run[2]) for run in dialogs)
    print(
        f"zett bench_screen_output at {size[0]}x{size[1]}, medians of {runs} (one whole screen: {screen_bytes / 1024:.1f} KiB)"
    )
    print(_line("a dialog opening", [run[0] for run in dialogs], int(screen_bytes)))
    print(_line("a dialog closing", [run[1] for run in dialogs], int(screen_bytes)))
    tabs, browser_bytes = await browser_tabs(project, size)
    print(_line(f"a Tab in the session browser (median of {TABS})", tabs, browser_bytes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", default="100x30")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    project = _isolated_home()
    asyncio.run(run(args.runs, (width, height), project))


if __name__ == "__main__":
    main()
