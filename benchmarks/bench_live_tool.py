"""Keystroke echo while a shell command prints 10,000 lines a second into its live tool row.

Run: ``python -m benchmarks.bench_live_tool`` (about 40 s; ``--runs 1`` is quicker). The real
``zett`` in a pty (``bench_app``'s harness: pyte, the fake model server as a process) is asked to
run ``LOUD_COMMAND`` (2,000 lines every 0.2 s for 10 s); the approval is answered, and while the
command runs a key (then a backspace) is typed every 50 ms, each timed until the prompt box shows
it. The baseline is the same zett, idle, typed at the same way just before. It also reports the
live row's redraws the harness saw, zett's CPU while the command ran, and the row's duration.
"""

from __future__ import annotations

import argparse
import re
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.bench_app import ZETT, Pty, Results, ServerProcess, isolated_env, med_p95, spawned

#: 50 bursts of 2,000 lines, 0.2 s apart: 10,000 lines a second for about ten seconds.
LOUD_COMMAND = "for burst in $(seq 1 50); do seq $((burst * 2000 - 1999)) $((burst * 2000)); sleep 0.2; done"
TICKS = 100  # os.sysconf("SC_CLK_TCK") on Linux


def type_for(pty: Pty, results: Results, name: str, seconds: float, live: set[str] | None = None) -> None:
    """A key or a backspace every 50 ms for ``seconds``; each echo delay goes to ``name``."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        key, expected = ("x", "x") if pty.composer() == "" else ("\x7f", "")
        written = time.perf_counter()
        pty.child.send(key)
        shown = pty.wait(lambda expected=expected: pty.composer() == expected, 5)  # type: ignore[misc]
        if shown is None:
            results.flag(f"{name}_arrived", False)
            return
        results.add(name, shown - written)
        if live is not None:
            live.add("\n".join(line for line in pty.screen.display if line.lstrip().startswith("│ ")))
        pty.wait(lambda: False, max(0.0, written + 0.05 - time.perf_counter()))


def one_run(work: Path, run: int, results: Results) -> None:
    replies = [
        {
            "kind": "tool_call",
            "tool_name": "bash",
            "arguments": {"command": LOUD_COMMAND, "timeout_seconds": 120},
        },
        {"kind": "text", "content": "It printed a lot."},
    ]
    server = ServerProcess(work / f"server-{run}", "Nothing more.", replies)
    project = work / f"project-{run}"
    project.mkdir()
    try:
        with spawned(ZETT, isolated_env(work / f"home-{run}", server), project) as pty:
            if pty.wait(pty.idle, 30) is None:
                raise RuntimeError("zett never became idle:\n" + "\n".join(pty.screen.display))
            type_for(pty, results, "idle.echo", 3.0)
            if pty.composer():
                pty.child.send("\x7f")
            pty.child.send("run the loud command\r")
            if pty.wait(lambda: pty.shows("Run once"), 20) is None:
                raise RuntimeError("no approval dialog:\n" + "\n".join(pty.screen.display))
            pty.idle_for(0.8)  # the dialog takes keys 0.5 s after it is drawn
            pty.child.send("\r")
            if (
                pty.wait(lambda: any("bash" in line and "running" in line for line in pty.screen.display), 10)
                is None
            ):
                raise RuntimeError("the command did not start:\n" + "\n".join(pty.screen.display))
            ticks = pty.cpu_ticks()
            started = time.perf_counter()
            live: set[str] = set()
            type_for(pty, results, "live.echo", 8.0, live)
            results.add("live.cpu_share", (pty.cpu_ticks() - ticks) / TICKS / (time.perf_counter() - started))
            results.add("live.redraws_seen", len(live))
            if pty.wait(pty.idle, 60) is None:
                raise RuntimeError("the turn did not end:\n" + "\n".join(pty.screen.display))
            found = next((re.search(r"done (\d+(?:\.\d+)?)s", line) for line in pty.screen.display
                          if "bash" in line and "done" in line), None)  # fmt: skip
            results.add("live.row_duration", float(found.group(1)) if found else None)
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="zett-bench-live-"))
    results = Results()
    try:
        for run in range(args.runs):
            one_run(work, run, results)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    r = results
    print(f"zett bench_live_tool: {args.runs} runs, command: {LOUD_COMMAND}")
    print(f"echo, idle (median / p95):                      {med_p95(r, 'idle.echo')}")
    print(
        f"echo, 10,000 lines/s into a live row (med/p95): {med_p95(r, 'live.echo')}   target: median < 25 ms"
    )
    print(f"  keys (n): idle {len(r.values.get('idle.echo', []))}, live {len(r.values.get('live.echo', []))}")
    print(f"  live row states seen by the harness (median): {r.median('live.redraws_seen')}")
    share = r.median("live.cpu_share")
    print(f"  zett CPU while the command ran: {'n/a' if share is None else f'{share * 100:.0f}% of a core'}")
    print(f"  the row's duration (run only): {r.median('live.row_duration')} s (the command sleeps 10 s)")
    if any(not ok for flags in r.flags.values() for ok in flags):
        print(f"  keys lost: {r.flags}")


if __name__ == "__main__":
    main()
