"""Shell sandbox benchmark: ``python -m benchmarks.bench_sandbox [--runs N] [--commands N]``.

Prints medians of N runs, each against a baseline measured in the same run:

- one command, ``true``, through ``ShellSandbox.run`` inside the sandbox and outside it (the same
  code path: output files, previews, the process group stopped); target: at most +30 ms;
- where one sandboxed command's time goes: wrapping it afresh (now off the critical path: the
  next command's wrap is prepared in a thread while the model answers), checking that a prepared
  wrap still holds, and bubblewrap's own start-up against ``/bin/sh``'s; the look for names a
  command left behind, in a project of 50 and of 2,000 folders;
- a turn in which a scripted model runs 20 short commands through the host (auto mode, so no
  dialog), with the sandbox and with ``[sandbox] mode = "off"`` (its "every command asks" lifted,
  as the shell was before); target: at most 10% slower;
- the same turn against the fake OpenAI server (``tests/fakes/llm_server.py``): a real SDK stream
  over HTTP per step, closer to a real model's answer time than the zero-latency script.

Everything happens in a temporary folder: zett's data, the project and the home stay there. After
a warm-up turn its folders are dated a minute back, as a real project's and home's are (a prepared
wrap is not trusted for a folder changed in the last ``RACY_SECONDS``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from zett_agent.sandbox.policy import command_arguments

from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from zett_tui.config.schema import SandboxSettings
from zett_tui.runtime.host import AgentHost, HostOptions
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.shell import wrap_ahead
from zett_tui.runtime.shell.sandbox import ShellSandbox, Where
from zett_tui.runtime.shell.sandbox_policy import sandbox_environment

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


ModelFactory = Callable[[], Any]


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


async def one_command(shell: ShellSandbox, where: Where, runs: int) -> list[float]:
    times = []
    await shell.run("true", 10, where=where)  # warm up (the first bwrap start pays for the page cache)
    for _ in range(runs):
        started = time.perf_counter()
        await shell.run("true", 10, where=where)
        times.append(time.perf_counter() - started)
    return times


def timed(action: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return times


async def spawned(argv: Sequence[str], env: dict[str, str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        process = await asyncio.create_subprocess_exec(
            *argv,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        await process.wait()
        times.append(time.perf_counter() - started)
    return times


async def breakdown(shell: ShellSandbox, runs: int) -> None:
    sandbox = shell._sandbox(network=shell.network)
    env = sandbox_environment(os.environ)
    cwd = os.getcwd()
    fresh = timed(lambda: sandbox.wrap("true", cwd=cwd, env=env), runs)
    prepared = wrap_ahead.prepare(sandbox, network=shell.network, cwd=cwd, env=env, generation=0)
    assert prepared is not None, "the benchmark's folders are too recent for a prepared wrap"
    check = timed(lambda: prepared.unchanged() and prepared.command("true"), runs)
    wrapped = sandbox.wrap("true", cwd=cwd, env=env)
    inside = await spawned(wrapped.argv, dict(wrapped.env), runs)
    outside = await spawned(command_arguments("true"), dict(env), runs)
    print(f"where a sandboxed `true` spends its time, {runs} runs each (median)")
    print(
        f"  wrapping afresh (resolve the policy, render bwrap's argv)  {median_ms(fresh):5.2f} ms  (off the critical path now)"
    )
    print(
        f"  checking and using the prepared wrap ({len(prepared.stamps)} stamps)         {median_ms(check):5.2f} ms"
    )
    print(f"  spawn to exit: bwrap -- /bin/sh -c true                    {median_ms(inside):5.2f} ms")
    print(f"  spawn to exit: /bin/sh -c true                             {median_ms(outside):5.2f} ms")


def left_behind_watch(base: Path, folders: int, runs: int) -> None:
    """What looking for names a command left behind (``left_behind.LeftBehind``) costs after each
    command, in a project of ``folders`` folders: the first walk, then one ``lstat`` per folder."""
    from zett_tui.runtime.shell.left_behind import LeftBehind

    project = base / f"watched-{folders}"
    for index in range(folders):
        folder = project / f"d{index // 50}" / f"e{index % 50}"
        folder.mkdir(parents=True)
        (folder / "module.py").write_text("x = 1\n")
    watch = LeftBehind(project, base / "refused")
    first = timed(lambda: watch.move_made(watch.watch(frozenset())), 1)
    later = timed(lambda: watch.move_made(watch.watch(frozenset())), runs)
    print(
        f"  left-behind watch, {folders:5d} folders: first walk {median_ms(first):6.2f} ms, "
        f"after each command {median_ms(later):5.2f} ms"
    )


async def one_turn(project: Path, data: Path, sandbox: SandboxSettings, model_factory: ModelFactory) -> float:
    host = AgentHost(
        HostOptions(
            model_factory=model_factory,
            model_label="bench",
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


def commands_of(count: int) -> list[str]:
    return [SHORT_COMMANDS[index % len(SHORT_COMMANDS)] for index in range(count)]


def scripted(count: int) -> ModelFactory:
    steps = [
        tool_step(f"c{index}", "bash", {"command": command})
        for index, command in enumerate(commands_of(count))
    ]
    model = ScriptedModel(*steps, text_step("done"))
    return lambda: model


def served(server: FakeLLMServer, count: int) -> ModelFactory:
    from zett_agent.providers.openai import OpenAIProvider

    server.script(
        *[
            Reply.tool_call("bash", {"command": command}, call_id=f"c{index}")
            for index, command in enumerate(commands_of(count))
        ],
        Reply.text("done"),
    )
    return lambda: OpenAIProvider(
        "gpt-bench", api_key="sk-bench-not-a-real-key-0000000000", base_url=server.openai_base_url
    )


async def compare(
    title: str, project: Path, data: Path, runs: int, factory: Callable[[], ModelFactory]
) -> None:
    with_sandbox, without = [], []
    for _ in range(runs):  # interleaved, so a slow moment of the machine hits both alike
        without.append(await one_turn(project, data, SandboxSettings(mode="off"), factory()))
        with_sandbox.append(await one_turn(project, data, SandboxSettings(), factory()))
    a, b = statistics.median(with_sandbox), statistics.median(without)
    print(f"{title}, {runs} runs each (median)")
    print(f"  without the sandbox   {b * 1000:7.1f} ms")
    print(
        f"  with the sandbox      {a * 1000:7.1f} ms   (×{a / b:.3f}, +{(a - b) * 1000:.1f} ms; target ≤ ×1.10)"
    )


def date_back(base: Path, seconds: float) -> None:
    """Date every folder under ``base`` ``seconds`` back, as an old project's and home's are."""
    then = time.time() - seconds
    for folder, _, _ in os.walk(base):
        os.utime(folder, (then, then))


async def main(runs: int, commands: int, repository: bool = True) -> None:
    base = Path(tempfile.mkdtemp(prefix="zett-bench-sandbox-"))
    project, data = base / "project", base / "data"
    project.mkdir()
    (project / "README").write_text("a\nb\nc\n")
    if repository:
        # Most projects are repositories. One without gets an empty `.git` placeholder while a
        # session runs (``left_behind``): made at its start and removed at its end, which dates
        # the project folder anew for each measured turn's new session, so every one of its
        # commands is wrapped afresh (``wrap_ahead.RACY_SECONDS``); `--no-repository` measures that.
        subprocess.run(["git", "init", "-q", str(project)], check=True)
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
        await one_turn(project, data, SandboxSettings(), scripted(1))  # creates zett's folders
        date_back(base, 60)
        inside = await one_command(shell, Where.SANDBOX, runs * 10)
        outside = await one_command(shell, Where.OUTSIDE, runs * 10)
        a, b = statistics.median(inside), statistics.median(outside)
        print(f"`true`, {runs * 10} runs each (median)")
        print(f"  outside the sandbox   {b * 1000:7.1f} ms")
        print(f"  inside the sandbox    {a * 1000:7.1f} ms   (+{(a - b) * 1000:.1f} ms; target ≤ +30 ms)")
        # The first sandboxed command made the project's empty `.git` placeholder (a project with
        # no repository gets one): date it back too, as a session's later commands find it.
        date_back(base, 60)
        await breakdown(shell, runs * 10)
        for folders in (50, 2000):
            left_behind_watch(base, folders, runs * 10)
        await compare(
            f"a turn of {commands} short commands through the host, scripted model",
            project,
            data,
            runs,
            lambda: scripted(commands),
        )
        with FakeLLMServer() as server:
            await compare(
                "the same turn against the fake OpenAI server (a real SDK stream per step)",
                project,
                data,
                runs,
                lambda: served(server, commands),
            )
    finally:
        os.chdir(base.parent)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--commands", type=int, default=20)
    parser.add_argument("--no-repository", action="store_true", help="a project that is no git repository")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.commands, not arguments.no_repository))
