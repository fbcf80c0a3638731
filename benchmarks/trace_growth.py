"""What a long session's memory grows by, turn to turn: tracemalloc snapshots diffed in the real app.

Run: ``python -m benchmarks.trace_growth --from 100 --to 200``. Tracing slows the app several times
(``--from 100 --to 125 --frames 6`` took 20 minutes at load 8 on 2 cores). The app is driven as
``bench_growth`` drives it (``bench_long_session``'s turn: a ``read_file`` row, then a ~1.5 KB
Markdown answer), with the fake server in this process (its recorded requests are dropped after each
turn). tracemalloc starts at ``--trace-from`` (turn 0 by default: an entry a bounded cache drops
must have been traced to count as freed), and at ``--from`` and ``--to``, after the collection zett
runs when the user pauses, it takes a snapshot. Printed: the allocations that grew most between
them, grouped by file and by traceback (``--frames`` deep, innermost first), in KB per 100 turns,
and the process's PSS at both turns (tracemalloc's own memory included: compare PSS with
``bench_growth``, not this).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from benchmarks.bench_growth import pss_mb, quiet_moment

OWN_CODE = ("zett_tui", "zett_agent", "textual", "rich", "markdown_it", "benchmarks", "tests")


def _where(trace: tracemalloc.Traceback, frames: int) -> str:
    """The traceback's innermost frames, shortened to package-relative paths."""
    shown = []
    for frame in reversed(trace):  # tracemalloc keeps the innermost frame last
        name = frame.filename
        for marker in ("site-packages/", "/zett_tui/", "/benchmarks/", "/tests/", "/lib/python3.11/"):
            if marker in name:
                name = name.split(marker, 1)[1]
                break
        shown.append(f"{name}:{frame.lineno}")
        if len(shown) == frames:
            break
    return " <- ".join(shown)


def report(
    before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, turns: int, top: int, frames: int
) -> None:
    scale = 100 / turns
    filters = [tracemalloc.Filter(False, tracemalloc.__file__)]
    before, after = before.filter_traces(filters), after.filter_traces(filters)
    for key, depth in (("filename", 1), ("traceback", frames)):
        stats = after.compare_to(before, key)
        stats.sort(key=lambda stat: stat.size_diff, reverse=True)
        total = sum(stat.size_diff for stat in stats)
        print(f"\nby {key}: traced growth {total * scale / 1024:+.0f} KB per 100 turns")
        for stat in stats[:top]:
            if stat.size_diff <= 0:
                break
            print(
                f"  {stat.size_diff * scale / 1024:+8.1f} KB {stat.count_diff * scale:+8.0f} blocks  "
                f"{_where(stat.traceback, depth)}"
            )


async def session(
    start: int, end: int, frames: int, trace_from: int
) -> tuple[Any, Any, float, float, dict[str, Any]]:
    from benchmarks import bench_long_session as driver
    from benchmarks.bench_transcript import make_answer
    from tests.fakes.llm_server import FakeLLMServer
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.providers.build import ModelChoice, build_model
    from zett_tui.ui.app import ZettApp

    snapshots: dict[int, tuple[tracemalloc.Snapshot, float]] = {}
    with FakeLLMServer() as server:
        env = {"OPENAI_API_KEY": "sk-bench-dummy", "OPENAI_BASE_URL": server.openai_base_url}
        launch = LaunchSettings(
            model_label="openai:gpt-test",
            model_factory=lambda: build_model(ModelChoice("openai", "gpt-test"), {}, env),
            bell=False,
            cwd=Path.cwd(),
            context_window=1_000_000_000,
        )
        await driver.warm_up(launch, server)
        app = ZettApp(launch)
        async with app.run_test(size=driver.SIZE) as pilot:
            run = driver.Session(app, pilot, server)
            await run.wait(lambda: app.chat.host is not None)
            started = time.perf_counter()
            while run.turns < end:
                if run.turns == trace_from:
                    tracemalloc.start(frames)
                await run.turn(make_answer(1_500, seed=run.turns + 1), 256)
                if run.turns in (start, end):
                    await pilot.pause()
                    quiet_moment(app)
                    snapshots[run.turns] = (tracemalloc.take_snapshot(), pss_mb())
                    print(
                        f"  turn {run.turns}: {snapshots[run.turns][1]:.1f} MB PSS, "
                        f"{tracemalloc.get_traced_memory()[0] / 2**20:.1f} MB traced, "
                        f"{time.perf_counter() - started:.0f} s",
                        file=sys.stderr,
                    )
            transcript = app.chat.transcript
            held = {"blocks": len(transcript.blocks), "cached_lines": transcript._layout.cached_lines}
    (first, first_pss), (last, last_pss) = snapshots[start], snapshots[end]
    return first, last, first_pss, last_pss, held


def main() -> None:
    from benchmarks.bench_long_session import NOTES
    from zett_tui.core import long_lived_objects

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--from", dest="start", type=int, default=100)
    parser.add_argument("--to", dest="end", type=int, default=200)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument(
        "--trace-from",
        type=int,
        default=0,
        help="the turn tracing starts at (later is faster, but a bounded cache that replaces entries "
        "allocated before it then shows as growth)",
    )
    args = parser.parse_args()
    long_lived_objects.pause_collection()
    with tempfile.TemporaryDirectory(prefix="zett-trace-") as folder:
        home = Path(folder)
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            os.environ[name] = str(home / name.lower())
        project = home / "project"
        project.mkdir()
        (project / "notes.md").write_text(NOTES)
        with contextlib.chdir(project):
            first, last, first_pss, last_pss, held = asyncio.run(
                session(args.start, args.end, args.frames, args.trace_from)
            )
    turns = args.end - args.start
    print(
        f"zett trace_growth: turn {args.start} -> {args.end}: PSS {first_pss:.1f} -> {last_pss:.1f} MB "
        f"({(last_pss - first_pss) * 100 / turns:+.1f} MB per 100 turns); transcript at the end: {held}"
    )
    report(first, last, turns, args.top, args.frames)


if __name__ == "__main__":
    main()
