"""What a long session's memory grows by, turn to turn: tracemalloc snapshots diffed in the real app.

Run: ``python -m benchmarks.trace_growth --from 100 --to 200``. Tracing slows the app several times
(``--from 100 --to 125 --frames 6`` took 20 minutes at load 8 on 2 cores). The app is driven as
``bench_growth`` drives it (``bench_long_session``'s turn: a ``read_file`` row, then a ~1.5 KB
Markdown answer), with the fake server in this process (its recorded requests are dropped after each
turn). tracemalloc starts at ``--trace-from`` (turn 0 by default: an entry a bounded cache drops
must have been traced to count as freed; ``--trace-from -1``: no tracing, the figures below only,
at full speed), and at ``--from`` and ``--to``, after the collection zett runs when the user
pauses, it takes a snapshot. Printed: the process's PSS at both turns (tracemalloc's own memory
included: compare PSS with ``bench_growth``, not this); the entries of the caches a long session
could fill (Textual's and Rich's style caches, the transcript's rendered lines); where the memory
is (``bench_growth.heap_parts``; Python's allocator's figures only without tracing, which hides
them); Python's allocator by block size (pools held, bytes in use and
free: free growing where in-use does not is fragmentation); the objects the collector tracks that
grew in number, by type (frozen ones included); and, traced, the allocations that grew most
between them, grouped by file and by traceback (``--frames`` deep, innermost first), in KB per
100 turns.
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
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from benchmarks.bench_growth import heap_parts, pss_mb, pymalloc_classes, quiet_moment

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


class Moment(NamedTuple):
    """What is measured at a snapshot turn, after the quiet moment's collection."""

    snapshot: tracemalloc.Snapshot | None
    pss: float
    census: Counter[str]
    heap: dict[str, float]
    caches: dict[str, int]
    classes: dict[int, tuple[int, int, int]]


def caches(app: Any) -> dict[str, int]:
    """The entries of the caches a long session could fill: Textual's ANSI codes by style, Rich's
    style caches, the transcript's rendered lines."""
    from rich.style import Style
    from textual.strip import Strip

    found: dict[str, int] = {"transcript_cached_lines": app.chat.transcript._layout.cached_lines}
    for name, function in (
        ("strip_render_ansi", Strip.render_ansi),
        ("style_add", Style._add),
        ("style_combine", Style.combine),
        ("style_chain", Style.chain),
        ("style_parse", Style.parse),
    ):
        info = getattr(function, "cache_info", None)
        if info is not None:
            found[name] = int(info().currsize)
    return found


def census() -> Counter[str]:
    """The objects the collector tracks, counted by type (``module.Name``): what the traced sizes
    above do not say, how many of each kind outlive their turn."""
    import gc

    gc.unfreeze()  # the quiet moment's collection froze the survivors: frozen objects are not listed
    try:
        alive = gc.get_objects()
    finally:
        gc.freeze()
    counts: Counter[str] = Counter()
    for thing in alive:
        kind = type(thing)
        counts[f"{kind.__module__}.{kind.__qualname__}"] += 1
    return counts


def report_census(before: Counter[str], after: Counter[str], turns: int, top: int) -> None:
    scale = 100 / turns
    grown = sorted(((after[name] - before[name], name) for name in after), reverse=True)
    print(f"\nobjects alive by type (gc-tracked), per 100 turns; at the end {sum(after.values()):,}")
    for change, name in grown[:top]:
        if change <= 0:
            break
        print(f"  {change * scale:+9.0f}  {name} (now {after[name]:,})")


def report_classes(
    before: dict[int, tuple[int, int, int]], after: dict[int, tuple[int, int, int]], turns: int
) -> None:
    """Python's allocator by block size, per 100 turns: pools held, and the KB of blocks in use and
    free in them (free growing while in-use does not is fragmentation)."""
    scale = 100 / turns
    if not before or not after:
        print("\npymalloc by block size: not while tracing (tracemalloc hides the allocator's figures)")
        return
    print("\npymalloc by block size, per 100 turns (pools, KB in use, KB free):")
    for size in sorted(set(before) | set(after)):
        pools0, used0, free0 = before.get(size, (0, 0, 0))
        pools1, used1, free1 = after.get(size, (0, 0, 0))
        if pools0 != pools1 or used0 != used1:
            print(
                f"  {size:4d} B: pools {pools0} -> {pools1} ({(pools1 - pools0) * scale:+.0f}), "
                f"in use {(used1 - used0) * size * scale / 1024:+.0f} KB, "
                f"free {(free1 - free0) * size * scale / 1024:+.0f} KB"
            )


def report_heap(before: dict[str, float], after: dict[str, float], turns: int) -> None:
    scale = 100 / turns
    print(
        "\nheap (MB), start -> end (per 100 turns): "
        + ", ".join(
            f"{name} {before.get(name, 0):.1f} -> {after.get(name, 0):.1f} "
            f"({(after.get(name, 0) - before.get(name, 0)) * scale:+.2f})"
            for name in sorted(after)
        )
    )


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


async def session(start: int, end: int, frames: int, trace_from: int) -> tuple[list[Moment], dict[str, Any]]:
    from benchmarks import bench_long_session as driver
    from benchmarks.bench_transcript import make_answer
    from tests.fakes.llm_server import FakeLLMServer
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.providers.build import ModelChoice, build_model
    from zett_tui.ui.app import ZettApp

    moments: dict[int, Moment] = {}
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
                if run.turns == trace_from and not tracemalloc.is_tracing():
                    tracemalloc.start(frames)
                await run.turn(make_answer(1_500, seed=run.turns + 1), 256)
                if run.turns in (start, end):
                    await pilot.pause()
                    quiet_moment(app)
                    if run.turns == trace_from:  # tracing from here: this snapshot is its start
                        tracemalloc.start(frames)
                    snapshot = tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None
                    moments[run.turns] = Moment(
                        snapshot, pss_mb(), census(), heap_parts(), caches(app), pymalloc_classes()
                    )
                    print(
                        f"  turn {run.turns}: {moments[run.turns].pss:.1f} MB PSS, "
                        f"{tracemalloc.get_traced_memory()[0] / 2**20:.1f} MB traced, "
                        f"{time.perf_counter() - started:.0f} s",
                        file=sys.stderr,
                    )
            transcript = app.chat.transcript
            held = {"blocks": len(transcript.blocks), "cached_lines": transcript._layout.cached_lines}
    return [moments[start], moments[end]], held


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
            (first, last), held = asyncio.run(session(args.start, args.end, args.frames, args.trace_from))
    turns = args.end - args.start
    print(
        f"zett trace_growth: turn {args.start} -> {args.end}: PSS {first.pss:.1f} -> {last.pss:.1f} MB "
        f"({(last.pss - first.pss) * 100 / turns:+.1f} MB per 100 turns); transcript at the end: {held}"
    )
    print(f"caches: {first.caches} -> {last.caches}")
    report_heap(first.heap, last.heap, turns)
    report_classes(first.classes, last.classes, turns)
    report_census(first.census, last.census, turns, args.top)
    if first.snapshot is not None and last.snapshot is not None:
        report(first.snapshot, last.snapshot, turns, args.top, args.frames)


if __name__ == "__main__":
    main()
