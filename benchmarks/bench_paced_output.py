"""What zett writes to the terminal while an answer streams at a model's pace, once the screen is full.

Run: ``python -m benchmarks.bench_paced_output`` (``--runs 2``, ``--seconds 8``, ``--size 120x36``;
against another tree: copy this file into it and run it there with ``PYTHONPATH`` at that tree).
ZettApp runs headless against the fake server process (``bench_app.ServerProcess``) streaming
``bench_transcript.make_answer`` at ``--rate`` deltas of 4 characters a second (a hosted model's
pace). Once the transcript holds more than a screen (it then scrolls at each new line), every frame
is encoded as Textual's driver encodes it for ``--seconds``. Printed per run and as medians: KiB a
second, frames a second, and bytes per frame. Over SSH the first figure is the link's load.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_app import ServerProcess, keep_zett_files_in, running_zett
from benchmarks.bench_transcript import FrameClock, make_answer

CHUNK = 4


async def one_run(
    server: ServerProcess, project: Path, size: tuple[int, int], seconds: float
) -> tuple[float, float]:
    async with running_zett(server, project, size, warm=1.0) as (app, pilot):
        chat = app.chat
        clock = FrameClock(app)
        chat.composer.load_text("go")
        await pilot.press("enter")
        transcript = chat.transcript
        while transcript.max_scroll_y < 2:
            await pilot.pause(0.05)
        frames, written, started = clock.frames, clock.written, time.perf_counter()
        await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - started
        frames, written = clock.frames - frames, clock.written - written
        chat.turns.cancel()
        await pilot.pause(0.2)
    return written / 1024 / elapsed, frames / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rate", type=float, default=100.0, help="deltas a second")
    parser.add_argument("--size", default="120x36")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    work = Path(tempfile.mkdtemp(prefix="zett-bench-paced-"))
    keep_zett_files_in(work)
    server = ServerProcess(work / "server", make_answer(), chunk=CHUNK, delay=1 / args.rate)
    project = work / "project"
    project.mkdir()
    rates: list[tuple[float, float]] = []
    try:
        for run in range(args.runs):
            kib, fps = asyncio.run(one_run(server, project, (width, height), args.seconds))
            rates.append((kib, fps))
            print(
                f"run {run}: {kib:.1f} KiB/s, {fps:.1f} frames/s, {kib * 1024 / max(fps, 1e-9):.0f} bytes a frame"
            )
    finally:
        server.close()
    kib = statistics.median(rate[0] for rate in rates)
    fps = statistics.median(rate[1] for rate in rates)
    print(
        f"zett bench_paced_output ({args.size}, {args.rate:.0f} deltas of {CHUNK} characters a second, "
        f"{args.seconds:.0f} s once the screen is full, median of {args.runs}): {kib:.1f} KiB/s, "
        f"{fps:.1f} frames/s, {kib * 1024 / max(fps, 1e-9):.0f} bytes a frame",
        file=sys.stdout,
    )


if __name__ == "__main__":
    main()
