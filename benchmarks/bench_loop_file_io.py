"""The session core's own transcript lines (rewind and checklist marks) written from the event loop.

Run: ``python -m benchmarks.bench_loop_file_io`` (about 20 seconds).

Three ways to append the same 1 KB line to a session file, each run ``--lines`` times in a row,
measured in the same run:

- ``aiofiles``: ``TurnRecorder.append_record`` as zett does it now (each file step awaited in the
  loop's executor, under the recorder's lock taken off the loop);
- ``one thread hop``: the blocking ``append_whole`` in ``asyncio.to_thread``, as zett did before;
- ``on the loop``: the blocking ``append_whole`` called on the loop (the baseline a blocking call
  on the loop would give).

For each: the median time per line on this disk, and the longest event-loop stall while the
lines were written (a 5 ms timer, how late it fired) on this disk and on a slow one (each write
sleeps ``--slow-ms`` in the thread that does it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from zett_tui.core import line_append
from zett_tui.runtime.recorder import TurnRecorder

TICK = 0.005


class Stalls:
    def __init__(self) -> None:
        self.worst = 0.0

    async def run(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(TICK)
            self.worst = max(self.worst, time.perf_counter() - started - TICK)


@contextlib.asynccontextmanager
async def watching() -> AsyncIterator[Stalls]:
    stalls = Stalls()
    task = asyncio.create_task(stalls.run())
    await asyncio.sleep(0)
    try:
        yield stalls
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def line(number: int) -> dict[str, object]:
    return {"mark": number, "padding": "x" * 1000}


async def measure(write: Callable[[int], Awaitable[None]], lines: int) -> tuple[float, float]:
    """Median seconds per line, and the worst loop stall in seconds."""
    times: list[float] = []
    async with watching() as stalls:
        for number in range(lines):
            started = time.perf_counter()
            await write(number)
            times.append(time.perf_counter() - started)
            await asyncio.sleep(0)  # the timer runs between lines, so a blocked loop shows
    return statistics.median(times), stalls.worst


def ways(folder: Path) -> dict[str, Callable[[int], Awaitable[None]]]:
    recorder = TurnRecorder(folder / "a", lambda text: text)
    blocking_file = folder / "b" / "s.jsonl"
    loop_file = folder / "c" / "s.jsonl"

    async def with_aiofiles(number: int) -> None:
        await recorder.append_record("s", line(number))

    def encoded(number: int) -> bytes:
        return (json.dumps(line(number)) + "\n").encode()

    async def one_thread_hop(number: int) -> None:
        await asyncio.to_thread(line_append.append_whole, blocking_file, encoded(number))

    async def on_the_loop(number: int) -> None:
        line_append.append_whole(loop_file, encoded(number))

    return {"aiofiles": with_aiofiles, "one thread hop": one_thread_hop, "on the loop": on_the_loop}


async def main(lines: int, slow_ms: float) -> None:
    write_all = line_append.write_all

    def slow_write(fd: int, data: bytes) -> None:
        time.sleep(slow_ms / 1000)
        write_all(fd, data)

    print(f"{lines} lines of 1 KB each; slow disk: {slow_ms:.0f} ms a write")
    print(f"{'way':<16}{'per line':>12}{'worst stall':>14}{'slow: per line':>18}{'slow: worst stall':>20}")
    with tempfile.TemporaryDirectory() as quick, tempfile.TemporaryDirectory() as slow:
        quick_ways, slow_ways = ways(Path(quick)), ways(Path(slow))
        for name in quick_ways:
            per_line, stall = await measure(quick_ways[name], lines)
            line_append.write_all = slow_write
            try:
                slow_per_line, slow_stall = await measure(slow_ways[name], max(lines // 10, 5))
            finally:
                line_append.write_all = write_all
            print(
                f"{name:<16}{per_line * 1e3:>10.2f}ms{stall * 1e3:>12.1f}ms"
                f"{slow_per_line * 1e3:>16.1f}ms{slow_stall * 1e3:>18.1f}ms"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--slow-ms", type=float, default=100.0)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.lines, arguments.slow_ms))
