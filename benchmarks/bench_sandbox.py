"""Shell sandbox benchmark: ``python -m benchmarks.bench_sandbox [--runs N] [--commands N]``.

Prints medians of N runs, each against a baseline measured in the same run:

- one command, ``true``, through ``ShellSandbox.run`` inside the sandbox and outside it (the same
  code path: output files, previews, the process group stopped); target: at most +30 ms;
- a turn in which a scripted model runs 20 short commands through the host (auto mode, so no
  dialog), with the sandbox and with ``[sandbox] mode = "off"`` (its "every command asks" lifted,
  as the shell was before); target: at most 10% slower.

Everything happens in a temporary folder: zett's data, the project and the home stay there.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from zett_tui.config.schema import SandboxSettings
from zett_tui.runtime.host import AgentHost, HostOptions
from zett_tui.runtime.shell.policy import PermissionMode
from zett_tui.runtime.shell.sandbox import ShellSandbox, Where

SHORT_COMMANDS = [
    "true",
    "echo hi",
    "ls",
    "pwd",
    "date +%s",
    "cat README",
    "wc -l README",
    "printf 'a\\nb\\n'",
]


async def one_command(shell: ShellSandbox, where: Where, runs: int) -> list[float]:
    times = []
    await shell.run("true", 10, where=where)  # warm up (the first bwrap start pays for the page cache)
    for _ in range(runs):
        started = time.perf_counter()
        await shell.run("true", 10, where=where)
        times.append(time.perf_counter() - started)
    return times


async def one_turn(project: Path, data: Path, sandbox: SandboxSettings, commands: int) -> float:
    steps = [
        tool_step(f"c{index}", "bash", {"command": SHORT_COMMANDS[index % len(SHORT_COMMANDS)]})
        for index in range(commands)
    ]
    model = ScriptedModel(*steps, text_step("done"))
    host = AgentHost(
        HostOptions(
            model_factory=lambda: model,
            model_label="scripted",
            cwd=project,
            permission_mode=PermissionMode.AUTO,
            sandbox=sandbox,
            sessions_dir=data / "sessions",
            history_db=data / f"history-{time.monotonic_ns()}.sqlite3",
            tool_output_dir=data / "tool-output",
        )
    )
    await host.start()
    if sandbox.mode == "off":
        # The baseline is the shell as it was: auto mode runs commands unasked (without a sandbox
        # zett now asks before every command, which a benchmark cannot answer fairly).
        host.shell_policy.sandbox_missing = None
    try:
        started = time.perf_counter()
        finished = await host.run_turn("run them", lambda _event: None)
        elapsed = time.perf_counter() - started
    finally:
        await host.aclose()
    assert finished.status == "completed", finished
    return elapsed


async def main(runs: int, commands: int) -> None:
    base = Path(tempfile.mkdtemp(prefix="zett-bench-sandbox-"))
    project, data = base / "project", base / "data"
    project.mkdir()
    (project / "README").write_text("a\nb\nc\n")
    for name, sub in (
        ("XDG_DATA_HOME", "xdg-data"),
        ("XDG_STATE_HOME", "xdg-state"),
        ("XDG_CONFIG_HOME", "xdg-config"),
    ):
        os.environ[name] = str(base / sub)
    os.chdir(project)
    try:
        shell = ShellSandbox(project, output_dir=data / "tool-output")
        shell.start()
        if not shell.available:
            print(f"no sandbox here: {shell.unavailable_reason}")
            return
        inside = await one_command(shell, Where.SANDBOX, runs * 10)
        outside = await one_command(shell, Where.OUTSIDE, runs * 10)
        a, b = statistics.median(inside), statistics.median(outside)
        print(f"`true`, {runs * 10} runs each (median)")
        print(f"  outside the sandbox   {b * 1000:7.1f} ms")
        print(f"  inside the sandbox    {a * 1000:7.1f} ms   (+{(a - b) * 1000:.1f} ms; target ≤ +30 ms)")

        with_sandbox, without = [], []
        for _ in range(runs):  # interleaved, so a slow moment of the machine hits both alike
            without.append(await one_turn(project, data, SandboxSettings(mode="off"), commands))
            with_sandbox.append(await one_turn(project, data, SandboxSettings(), commands))
        a, b = statistics.median(with_sandbox), statistics.median(without)
        print(f"a turn of {commands} short commands through the host, {runs} runs each (median)")
        print(f"  without the sandbox   {b * 1000:7.1f} ms")
        print(f"  with the sandbox      {a * 1000:7.1f} ms   (×{a / b:.3f}; target ≤ ×1.10)")
    finally:
        os.chdir(base.parent)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--commands", type=int, default=20)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.commands))
