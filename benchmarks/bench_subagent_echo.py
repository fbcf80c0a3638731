"""Keystroke echo while four subagents run in parallel, each with its block of live tool rows
and the last line of the text it streams.

Run: ``python -m benchmarks.bench_subagent_echo`` (``--runs 1`` is quicker). The real ``zett``
in a pty (``bench_app``'s harness, the fake model server as a process) is asked something; the
model answers with four ``task`` calls in one response, and the four subagents then share the
server's script: ``STEPS`` replies that stream a sentence (``SAID``) and then call ``glob``, each
chunk slowed (``DELAY`` per three chunks) so the children run for several seconds, then a report
each. While they run a key (then a backspace) is typed every 50 ms, each timed until the prompt
shows it. Baselines in the same run: the same zett idle, and the main agent streaming the same
replies and making the same calls itself. Target: median echo <= 25 ms with four children running.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.bench_app import ZETT, Results, ServerProcess, isolated_env, med_p95, spawned
from benchmarks.bench_live_tool import type_for

CHILDREN = 4
STEPS = 40  # glob calls shared by the four children: about 10 each
#: Seconds before each chunk of a reply: a glob call's reply has three chunks, so a model step
#: takes about 0.45 s (a fast hosted model's; ``--delay 0.02`` makes it 60 ms).
DELAY = 0.15
#: What each model step says before its call (streamed in 8-character chunks).
SAID = "Looking at the Python files in this folder, one at a time. "


def script(delay: float = DELAY) -> list[dict[str, object]]:
    tasks = [
        {"call_id": f"call_task_{index}", "tool_name": "task",
         "arguments": {"description": f"job {index}", "prompt": f"Look around, part {index}."}}
        for index in range(1, CHILDREN)
    ]  # fmt: skip
    first = {
        "kind": "tool_call",
        "tool_name": "task",
        "call_id": "call_task_0",
        "arguments": {"description": "job 0", "prompt": "Look around, part 0."},
        "more_calls": tasks,
    }
    report = {"kind": "text", "content": "Nothing unusual here.", "delay": delay}
    return [
        first,
        *([_step(delay)] * STEPS),
        *([report] * CHILDREN),
        {"kind": "text", "content": "All four looked."},
    ]


def _step(delay: float) -> dict[str, object]:
    """One model step: ``SAID`` streamed, then a ``glob`` call (about 3 * ``delay`` seconds)."""
    chunks = len(SAID) // 8 + 3
    return {
        "kind": "tool_call",
        "tool_name": "glob",
        "arguments": {"pattern": "*.py"},
        "content": SAID,
        "delay": round(delay * 3 / chunks, 4),
    }


def plain_script(delay: float = DELAY) -> list[dict[str, object]]:
    """The baseline: the main agent streams the same replies and makes the same calls itself."""
    return [*([_step(delay)] * STEPS), {"kind": "text", "content": "Looked."}]


def one_run(work: Path, run: int, results: Results, *, plain: bool = False, delay: float = DELAY) -> None:
    name = "plain" if plain else "children"
    replies = plain_script(delay) if plain else script(delay)
    server = ServerProcess(work / f"server-{name}-{run}", "Nothing more.", replies)
    project = work / f"project-{name}-{run}"
    project.mkdir()
    (project / "a.py").write_text("x = 1\n")
    try:
        with spawned(ZETT, isolated_env(work / f"home-{name}-{run}", server), project) as pty:
            if pty.wait(pty.idle, 30) is None:
                raise RuntimeError("zett never became idle:\n" + "\n".join(pty.screen.display))
            if not plain:
                type_for(pty, results, "idle.echo", 3.0)
            if pty.composer():
                pty.child.send("\x7f")
            pty.child.send("look around\r")
            rows = 1 if plain else CHILDREN
            word = "glob" if plain else "task"
            started = pty.wait(lambda: sum(word in line for line in pty.screen.display) >= rows, 20)
            if started is None:
                raise RuntimeError("the tools did not start:\n" + "\n".join(pty.screen.display))
            begun = time.perf_counter()
            type_for(pty, results, f"{name}.echo", 6.0)
            results.flag(f"{name}_still_running_after_typing", not pty.idle())
            if pty.wait(pty.idle, 90) is None:
                raise RuntimeError("the turn did not end:\n" + "\n".join(pty.screen.display))
            results.add(f"{name}.turn_seconds", time.perf_counter() - begun)
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--delay", type=float, default=DELAY, help="seconds before each reply chunk")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="zett-bench-subagents-"))
    results = Results()
    try:
        for run in range(args.runs):
            one_run(work, run, results, delay=args.delay)
            one_run(work, run, results, plain=True, delay=args.delay)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    r = results
    print(
        f"zett bench_subagent_echo: {args.runs} runs, {CHILDREN} children, {STEPS} glob steps among them, "
        f"{args.delay * 3:.2f} s per model step"
    )
    print(f"echo, idle (median / p95):                 {med_p95(r, 'idle.echo')}")
    print(
        f"echo, four subagents running (median/p95): {med_p95(r, 'children.echo')}   target: median <= 25 ms"
    )
    print(f"echo, the main agent making the calls itself: {med_p95(r, 'plain.echo')}   (baseline)")
    print(
        f"  keys (n): idle {len(r.values.get('idle.echo', []))}, children {len(r.values.get('children.echo', []))}"
    )
    print(f"  typing ended before the turn did: {r.flags.get('children_still_running_after_typing')}, "
          f"baseline {r.flags.get('plain_still_running_after_typing')}")  # fmt: skip
    print(
        f"  the turn from its first row to its end (median): children {r.median('children.turn_seconds')} s, "
        f"baseline {r.median('plain.turn_seconds')} s"
    )


if __name__ == "__main__":
    main()
