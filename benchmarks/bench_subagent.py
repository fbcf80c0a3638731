"""A subagent's cost per step against the same step in a plain turn (scripted model, no UI).

    python -m benchmarks.bench_subagent [STEPS] [RUNS]

Three turns, each on a new session and repeated RUNS times (medians):
1. plain: the main agent makes STEPS ``glob`` calls, one per model step, then answers;
2. child: the main agent makes one ``task`` call whose subagent makes the same STEPS calls, then
   both answer;
3. empty child: one ``task`` call whose subagent answers at once (the fixed cost of a child).
The overhead per step is (child - empty child - plain + one plain step) / STEPS: what zett adds to
each of the subagent's steps (its events translated, wrapped and passed to the parent's sink,
its own extensions' hooks) over the same step of the main agent. Target: at most 20 ms.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _isolate() -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-subagent-"))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(root / name.lower())
    project = root / "project"
    project.mkdir()
    (project / "a.py").write_text("x = 1\n")
    os.chdir(project)
    return project


async def _turn(host: object, model: object, steps: list, prompt: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the whole process: the history's thread included)."""
    model.add(*steps)  # type: ignore[attr-defined]
    events: list[object] = []
    started, cpu = time.perf_counter(), time.process_time()
    finished = await host.run_turn(prompt, events.append)  # type: ignore[attr-defined]
    elapsed, cpu_used = time.perf_counter() - started, time.process_time() - cpu
    assert finished.status == "completed", finished
    return elapsed, cpu_used


async def main(count: int, runs: int) -> None:
    from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
    from zett_tui.runtime.host import AgentHost, HostOptions
    from zett_tui.runtime.modes import PermissionMode

    project = _isolate()

    def globs(prefix: str) -> list:
        return [tool_step(f"{prefix}{index}", "glob", {"pattern": "*.py"}) for index in range(count)]

    def task(prefix: str) -> object:
        return tool_step(f"{prefix}t", "task", {"description": "bench", "prompt": "do the steps"})

    async def fresh_turn(steps: list, prompt: str) -> tuple[float, float]:
        """One turn on a new session (a history that grew in earlier runs would slow only the
        main agent's steps), after a warm-up turn of its own."""
        model = ScriptedModel()
        options = HostOptions(
            model_factory=lambda: model,
            model_label="scripted",
            cwd=project,
            permission_mode=PermissionMode.AUTO,
        )
        host = AgentHost(options)
        await host.start()
        try:
            await _turn(host, model, [text_step("warm")], "warm up")
            return await _turn(host, model, steps, prompt)
        finally:
            await host.aclose()

    plain: list[tuple[float, float]] = []
    child: list[tuple[float, float]] = []
    empty: list[tuple[float, float]] = []
    for run in range(runs):
        plain.append(await fresh_turn([*globs(f"p{run}-"), text_step("done")], "plain"))
        steps = [task(f"c{run}"), *globs(f"c{run}-"), text_step("child done"), text_step("done")]
        child.append(await fresh_turn(steps, "child"))
        empty.append(await fresh_turn([task(f"e{run}"), text_step("child done"), text_step("done")], "empty"))
    print(f"steps per turn: {count}, runs: {runs} (medians; wall time, then the process's CPU time)")
    for which, label in ((0, "wall"), (1, "CPU ")):
        plain_ms, child_ms, empty_ms = (
            statistics.median(value[which] for value in values) * 1000 for values in (plain, child, empty)
        )
        per_plain_step = plain_ms / (count + 1)
        overhead = (child_ms - empty_ms - plain_ms + per_plain_step) / count
        print(
            f"{label}: plain turn {plain_ms:7.1f} ms ({per_plain_step:.2f} ms/step) · with a child "
            f"{child_ms:7.1f} ms · empty child {empty_ms:6.1f} ms · child overhead per step {overhead:+.2f} ms"
        )
    print("target: a child's overhead per step <= 20 ms")


if __name__ == "__main__":
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    asyncio.run(main(steps, repeats))
