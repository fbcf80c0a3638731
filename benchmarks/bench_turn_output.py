"""What zett writes to the terminal for a whole short turn, from Enter to the turn's end drawn.

Run: ``python -m benchmarks.bench_turn_output`` (``--turns 10``, ``--size 120x36``; against
another tree: copy this file into it and run it there with ``PYTHONPATH`` at that tree).
ZettApp runs headless against the fake server process (``bench_app.ServerProcess``) answering a
two-line answer; each turn's frames are encoded as Textual's driver encodes them
(``bench_transcript.FrameClock``). Printed as medians over the turns: bytes written, frames, and
frames that drew the whole screen. The baseline in the same run: the bytes of one frame of the
whole screen (what a turn costs when every change draws it all), so the ratio reads "screens'
worth a turn".
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path

from benchmarks.bench_app import ServerProcess, keep_zett_files_in, running_zett
from benchmarks.bench_transcript import FrameClock

ANSWER = "Done: the file has two lines.\n\nNothing else to change."


async def measure(server: ServerProcess, project: Path, size: tuple[int, int], turns: int) -> None:
    per_turn: list[tuple[int, int, int]] = []
    async with running_zett(server, project, size, warm=1.0) as (app, pilot):
        chat = app.chat
        clock = FrameClock(app)
        chat.screen.refresh()  # the baseline: one frame of the whole screen as it stands
        await pilot.pause(0.2)
        screen_bytes = clock.last_whole_written
        for number in range(turns):
            before = (clock.written, clock.frames, clock.whole)
            chat.composer.load_text(f"turn {number}")
            await pilot.press("enter")
            await pilot.pause(0.05)
            while chat.turns.busy or not chat.turns.settled or chat.transcript.update_pending:
                await pilot.pause(0.02)
            await pilot.pause(0.3)  # the turn's last frames (the status line's end, the spinner stopped)
            after = (clock.written, clock.frames, clock.whole)
            per_turn.append((after[0] - before[0], after[1] - before[1], after[2] - before[2]))
    written = statistics.median(turn[0] for turn in per_turn)
    print(
        f"a short turn at {size[0]}x{size[1]} (medians of {turns}): {written / 1024:.1f} KiB written, "
        f"{statistics.median(turn[1] for turn in per_turn):.0f} frames, "
        f"{statistics.median(turn[2] for turn in per_turn):.0f} of them the whole screen; "
        f"one frame of the whole screen: {screen_bytes / 1024:.1f} KiB "
        f"(a turn = {written / screen_bytes if screen_bytes else float('nan'):.2f} screens)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--size", default="120x36")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    work = Path(tempfile.mkdtemp(prefix="zett-bench-turn-output-"))
    keep_zett_files_in(work)
    server = ServerProcess(work / "server", ANSWER)
    project = work / "project"
    project.mkdir()
    try:
        asyncio.run(measure(server, project, (width, height), args.turns))
    finally:
        server.close()


if __name__ == "__main__":
    main()
