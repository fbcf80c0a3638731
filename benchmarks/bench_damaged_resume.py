"""Resuming a damaged session: ``python -m benchmarks.bench_damaged_resume [--megabytes 200] [--runs 5]``.

Builds, in a temporary folder with its own XDG folders, a session recorded by the runtime (one
turn, scripted model), then rewrites its file four ways, all but the first about ``--megabytes``:

- **floor**: the recorded turn alone (a few KB): what starting the app and resuming costs
  whatever the file;
- **baseline**: good turns only, the full size;
- **damaged**: 40 good turns in the first half with damaged lines of every kind before each, and
  only damaged lines in the second half (``tests.fakes.damaged_session``: invalid JSON, JSON of
  the wrong shape, turns cut in half, binary garbage, invalid UTF-8, NUL bytes, deep nesting),
  about 170-byte lines on average, so well over a million damaged lines; fewer good turns than a
  resume shows, so the whole file is read backwards for the screen, and the last 16 MB again for
  the context figure of the last turn;
- **long-line**: ordinary turns for half the size, then one line of the other half with no
  newline (what a crash while writing a huge line, or a binary file, leaves).

Each resume runs in a fresh subprocess (``--measure ID``): ``find_session_to_resume`` as
``zett --resume ID`` does (the session index: cold at the first run of each file, then cached),
then the real ``ZettApp`` headless (``App.run_test``) with the session resumed, until the agent is
ready and the transcript painted. It prints the wall time from before the session lookup to then
(and how much more than the floor's; the first run's apart, as it fills the index cache), the
CPU time of the process over it (less moved by other processes on a shared machine), the peak RSS of that process (``resource.getrusage``) and
its RSS once zett is imported, the number of transcript lines about damage, and the turns shown.
Medians of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.fakes.damaged_session import DAMAGE, TEMPLATE_PROMPT, numbered_turn, truncated, write_damaged

GOOD_TURNS = 40


def _environment(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        env[name] = str(root / sub)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return env


async def _record() -> str:
    from tests.fakes.host import Collector, make_host
    from tests.fakes.scripted_model import ScriptedModel, text_step

    host = await make_host(ScriptedModel(text_step("An answer the resume paints.")))
    await host.run_turn(TEMPLATE_PROMPT, Collector())
    await host.aclose()
    assert host.recorder is not None
    return f"{host.session_id} {host.recorder.session_path(host.session_id)}"


def _build(path: Path, kind: str, size: int) -> int:
    """Rewrite ``path`` (one recorded turn) as ``kind``; returns the number of damaged lines."""
    template = path.read_bytes()
    if kind == "baseline":
        turns = size // len(template) + 1
        with path.open("wb") as stream:
            for start in range(0, turns, 1000):
                stream.write(
                    b"".join(numbered_turn(template, n) for n in range(start, min(turns, start + 1000)))
                )
        return 0
    if kind == "long-line":
        half = size // 2
        turns = half // len(template) + 1
        with path.open("wb") as stream:
            for start in range(0, turns, 1000):
                stream.write(
                    b"".join(numbered_turn(template, n) for n in range(start, min(turns, start + 1000)))
                )
            chunk = b"x" * (1 << 20)
            for _ in range(half // len(chunk)):
                stream.write(chunk)
        return 1
    if kind == "floor":
        return 0
    good = [numbered_turn(template, n) for n in range(GOOD_TURNS)]
    kinds = [*DAMAGE.values(), truncated(template)]
    average = sum(map(len, kinds)) / len(kinds)
    between = int(size / 2 / GOOD_TURNS / average)
    damaged = write_damaged(path, good, between)
    chunk = b"".join(kinds) * 100  # written a piece at a time: this process stays small, since the
    with path.open("ab") as stream:  # measuring one inherits its peak RSS (ru_maxrss) at fork
        for _ in range(int(size / 2 / len(chunk))):
            stream.write(chunk)
            damaged += 100 * len(kinds)
    return damaged


async def _measure(project: Path, session_id: str) -> dict[str, float | int]:
    from tests.fakes.scripted_model import ScriptedModel
    from tests.ui_helpers import make_app, notices, prompts
    from zett_tui.entry.startup import find_session_to_resume

    usage = resource.getrusage(resource.RUSAGE_SELF)
    started_rss, started_cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    started = time.perf_counter()
    found = find_session_to_resume(project, session_id, continue_last=False)
    app = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.chat.host is None or app.chat.status.activity != "idle":
            await pilot.pause(0.02)  # a coarse poll: little CPU taken from the app measured
        elapsed = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu = usage.ru_utime + usage.ru_stime - started_cpu
        said = notices(app)
        shown = len(prompts(app))
    damage_lines = [text for text in said if "damaged line" in text or "longer than" in text]
    return {
        "seconds": elapsed,
        "cpu": cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "start_mb": started_rss / 1024,
        "damage_lines": len(damage_lines),
        "turns_shown": shown,
    }


def _run_one(root: Path, project: Path, session_id: str) -> dict[str, float | int]:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_damaged_resume", "--measure", session_id],
        cwd=project,
        env=_environment(root),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"the measuring process failed:\n{result.stderr[-3000:]}")
    figures: dict[str, float | int] = json.loads(result.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--measure", metavar="ID", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.measure:
        print(json.dumps(asyncio.run(_measure(Path.cwd(), options.measure))))
        return
    size = options.megabytes * 1024 * 1024
    root = Path(tempfile.mkdtemp(prefix="zett-bench-damaged-"))
    try:
        project = root / "project"
        project.mkdir()
        recorded = subprocess.run(
            [
                sys.executable,
                "-c",
                "import asyncio, benchmarks.bench_damaged_resume as b; print(asyncio.run(b._record()))",
            ],
            cwd=project,
            env=_environment(root),
            capture_output=True,
            text=True,
            check=True,
        )
        session_id, recorded_path = recorded.stdout.strip().splitlines()[-1].split(" ", 1)
        path = Path(recorded_path)
        template = path.read_bytes()
        print(f"{options.megabytes} MB session files, {options.runs} runs each, medians:")
        floor = 0.0
        for kind in ("floor", "baseline", "damaged", "long-line"):
            path.write_bytes(template)
            damaged = _build(path, kind, size)
            runs = [_run_one(root, project, session_id) for _ in range(options.runs)]
            seconds = statistics.median(run["seconds"] for run in runs)
            cpu = statistics.median(run["cpu"] for run in runs)
            peak = statistics.median(run["peak_mb"] for run in runs)
            start = statistics.median(run["start_mb"] for run in runs)
            last = runs[-1]
            floor = floor or seconds
            print(
                f"  {kind:9}  {path.stat().st_size / 2**20:6.1f} MB  {damaged:>9,} damaged lines  "
                f"resume {seconds:5.2f} s (floor +{seconds - floor:4.2f}, first run {runs[0]['seconds']:4.2f} s, "
                f"CPU {cpu:4.2f} s)  peak RSS {peak:5.0f} MB (at start {start:3.0f} MB)  "
                f"{last['damage_lines']} damage line(s) in the transcript, {last['turns_shown']} turns shown"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
