"""zett's four footprint figures against a bare Textual app, both measured in the same run.

Run: ``python -m benchmarks.bench_startup`` (about 4 minutes; ``--runs 1`` is quicker). It prints
medians of ``--runs`` (default 3) and the machine's load average before and after.

Each program is spawned in a pseudo-terminal (120x36, read through pyte, ``bench_app.Pty``) with its
own XDG folders; zett talks to the fake model server (``tests.fakes.llm_server``) in its own process.
The baseline is ``benchmarks/minimal_app.py`` (one TextArea and a status line).

1. **launch -> prompt ready**: from the spawn until the prompt box (a rounded box at the bottom)
   is on screen.
2. **launch -> first typed key shown**: a key written to the pty right after the spawn, until the
   prompt box shows it.
3. **PSS after the answer**: zett is sent one prompt, answered by the 58 KB Markdown answer
   (``bench_transcript.make_answer``, ~7,300 deltas of 8 characters); once the status line says idle
   and the screen is quiet, ``Pss`` from ``/proc/PID/smaps_rollup``. The bare app's PSS is taken
   with nothing typed.
4. **idle CPU per 10 s**: the program's own CPU time (utime + stime) over 10 s of no input, starting
   once the screen is quiet (``--idle-after`` seconds after the last key, default 1), then over the
   next 10 s (a cursor may stop blinking after a while without input).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_app import (
    MINIMAL,
    START_KEY,
    TICKS_PER_SECOND,
    ZETT,
    Pty,
    ServerProcess,
    isolated_env,
    spawned,
)
from benchmarks.bench_transcript import make_answer

IDLE_WINDOW = 10.0


def pss_kib(pid: int) -> int:
    """Proportional set size of process ``pid`` in KiB (shared pages divided among their users)."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    raise RuntimeError("no Pss line in smaps_rollup")


def launch(
    args: list[str], env: dict[str, str], cwd: Path, samples: dict[str, list[float]], name: str
) -> None:
    """Figures 1 and 2: a key written at spawn; when the prompt box appeared and when it showed the key."""
    with spawned(args, env, cwd) as pty:
        pty.child.send(START_KEY)
        shown = pty.wait(lambda: START_KEY in (pty.composer() or ""), 15)
        if shown is None:
            print(f"  {name}: the key never showed:\n" + "\n".join(pty.screen.display[-6:]), file=sys.stderr)
            return
        samples.setdefault(f"{name}.key", []).append(shown - pty.started)
        assert pty.first_frame is not None
        samples.setdefault(f"{name}.frame", []).append(pty.first_frame - pty.started)


def idle_cpu(pty: Pty, samples: dict[str, list[float]], name: str, after: float) -> None:
    """Figure 4: CPU seconds over two consecutive windows of ``IDLE_WINDOW`` without input."""
    pty.settle()
    pty.idle_for(max(0.0, after - (time.perf_counter() - pty.last_output)))
    for window in ("idle", "idle_later"):
        ticks = pty.cpu_ticks()
        pty.idle_for(IDLE_WINDOW)
        samples.setdefault(f"{name}.{window}", []).append((pty.cpu_ticks() - ticks) / TICKS_PER_SECOND)


def bare_footprint(env: dict[str, str], cwd: Path, samples: dict[str, list[float]], after: float) -> None:
    with spawned(MINIMAL, env, cwd) as pty:
        pty.wait(lambda: pty.first_frame is not None, 15)
        pty.settle()
        samples.setdefault("minimal.pss", []).append(pss_kib(pty.child.pid) / 1024)
        idle_cpu(pty, samples, "minimal", after)


def zett_footprint(env: dict[str, str], cwd: Path, samples: dict[str, list[float]], after: float) -> None:
    """Figure 3 then 4: the long answer, PSS once it is drawn, then the idle windows."""
    with spawned(ZETT, env, cwd) as pty:
        if pty.wait(pty.idle, 30) is None:
            raise RuntimeError("zett never became idle:\n" + "\n".join(pty.screen.display))
        pty.child.send("the long answer, please\r")
        if pty.wait(pty.writing, 30) is None:
            raise RuntimeError("the answer never started:\n" + "\n".join(pty.screen.display))
        sent = time.perf_counter()
        if pty.wait(pty.idle, 120) is None:
            raise RuntimeError("the answer never finished:\n" + "\n".join(pty.screen.display))
        samples.setdefault("zett.answer", []).append(time.perf_counter() - sent)
        pty.settle()
        samples.setdefault("zett.pss", []).append(pss_kib(pty.child.pid) / 1024)
        idle_cpu(pty, samples, "zett", after)


def median(samples: dict[str, list[float]], key: str) -> float | None:
    values = samples.get(key)
    return statistics.median(values) if values else None


def cell(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:.3f} s" if unit == "s" else f"{value:.0f} MB" if unit == "MB" else f"{value:.3f}"


def report(samples: dict[str, list[float]]) -> None:
    rows = [
        ("launch -> prompt ready", "frame", "s"),
        ("launch -> first typed key shown", "key", "s"),
        ("PSS (zett: after the 58 KB answer)", "pss", "MB"),
        (f"CPU s per {IDLE_WINDOW:.0f} s idle, first window", "idle", "cpu"),
        (f"CPU s per {IDLE_WINDOW:.0f} s idle, next window", "idle_later", "cpu"),
    ]
    header = ("figure", "zett", "bare Textual app", "ratio")
    table = [header]
    for label, key, unit in rows:
        zett, bare = median(samples, f"zett.{key}"), median(samples, f"minimal.{key}")
        ratio = f"{zett / bare:.2f}x" if zett is not None and bare else "-"
        table.append((label, cell(zett, unit), cell(bare, unit), ratio))
    table.append(("58 KB answer: Enter -> idle (pty)", cell(median(samples, "zett.answer"), "s"), "", ""))
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    for row in table:
        print("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)).rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="runs of each figure (default 3)")
    parser.add_argument(
        "--idle-after", type=float, default=1.0, help="seconds without input before the first idle window"
    )
    args = parser.parse_args()
    load_before = os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="zett-bench-startup-"))
    samples: dict[str, list[float]] = {}
    started = time.perf_counter()
    short = ServerProcess(work / "server-short", "Hello from the fake model server.")
    long = ServerProcess(work / "server-long", make_answer())
    project = work / "project"
    project.mkdir()
    try:
        for run in range(args.runs):
            for name, program in (("minimal", MINIMAL), ("zett", ZETT)):
                launch(program, isolated_env(work / f"home-{name}-{run}", short), project, samples, name)
            bare_footprint(isolated_env(work / f"home-bare-{run}", short), project, samples, args.idle_after)
            zett_footprint(isolated_env(work / f"home-long-{run}", long), project, samples, args.idle_after)
            print(f"  run {run + 1}/{args.runs} done", file=sys.stderr)
    finally:
        short.close()
        long.close()
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    print(
        f"zett bench_startup: {os.cpu_count()} CPUs, {time.perf_counter() - started:.0f} s, medians of "
        f"{args.runs}; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    report(samples)


if __name__ == "__main__":
    main()
