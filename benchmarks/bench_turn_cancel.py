"""How long Esc/Ctrl-C takes to end a turn, in process (no screen, no network).

Run: ``python -m benchmarks.bench_turn_cancel [--runs 15]``.

A real ``AgentHost`` runs a turn against the scripted model (``tests.fakes``); the calling task is
cancelled as the UI's worker is, and two times are taken from that cancel: until the sink gets the
turn's ``TurnFinished("cancelled")`` (what the user sees), and until ``run_turn`` has ended (the
session can take the next prompt). Three cases:

- ``silent``: the model sent one delta and then waits (a slow model, a long think): the turn is
  stopped where it waits;
- ``streaming``: deltas arrive every millisecond: the turn stops at its next event;
- ``slow teardown``: as ``silent``, with an extension that takes 0.3 s over the cancellation
  notice (a loaded machine, a slow disk): whether the runtime's record of the cancelled turn is
  whole is printed beside the time (``recorded by the runtime``).

Baseline in the same run: ``bare stream``, zett-agent's own ``agent.stream`` consumed inside
``contextlib.aclosing`` and cancelled the same way, no host: the floor for a cancel.
Medians of ``--runs``, cases alternating so load hits all alike.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.extensions.base import AgentExtension
from zett_agent.extensions.events import RunCancelledEvent

from tests.fakes.scripted_model import ScriptedModel, text_step
from zett_tui.runtime.events import TextChunk, TurnFinished, UIEvent
from zett_tui.runtime.host import AgentHost, HostOptions

SLOW_TEARDOWN_SECONDS = 0.3


class SlowTeardown(AgentExtension):
    """Slow over the cancellation notice, before the other extensions hear of it."""

    name = "slow-teardown"
    priority = -1000

    def __init__(self) -> None:
        super().__init__()
        self.finished = 0

    async def on_event(self, context: Any, event: Any) -> None:
        if isinstance(event, RunCancelledEvent):
            await asyncio.sleep(SLOW_TEARDOWN_SECONDS)
            self.finished += 1


class NoticeWitness(AgentExtension):
    """Hears the cancellation notice after every zett extension: the notice went all the way."""

    name = "notice-witness"
    priority = 10**9

    def __init__(self) -> None:
        super().__init__()
        self.heard = 0

    async def on_event(self, context: Any, event: Any) -> None:
        if isinstance(event, RunCancelledEvent):
            self.heard += 1


async def host_case(case: str, root: Path) -> tuple[float, float, bool]:
    gate = asyncio.Event()
    if case == "streaming":
        step = text_step("x" * 40_000, chunk=4, delay=0.001)
    else:
        step = text_step("partial answer", gate=gate)
    model = ScriptedModel(step)
    witness = NoticeWitness()
    extra: list[AgentExtension] = [witness]
    if case == "slow teardown":
        extra.append(SlowTeardown())
    host = AgentHost(
        HostOptions(
            model_factory=lambda: model,
            model_label="scripted",
            sessions_dir=root / "sessions",
            history_db=root / "history.sqlite3",
            checkpoints_dir=root / "checkpoints",
            extra_extensions=extra,
        )
    )
    await host.start()
    seen: dict[str, float] = {}

    def sink(event: UIEvent) -> None:
        if isinstance(event, TurnFinished):
            seen.setdefault("finished", time.perf_counter())
        elif isinstance(event, TextChunk):
            seen.setdefault("text", time.perf_counter())

    task = asyncio.create_task(host.run_turn("go", sink))
    while "text" not in seen:
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.02)
    started = time.perf_counter()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    ended = time.perf_counter()
    await host.aclose()
    return seen["finished"] - started, ended - started, witness.heard == 1


async def bare_case(root: Path) -> tuple[float, float, bool]:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("partial answer", gate=gate))
    agent = await Agent.create(model, config=AgentRunConfig(session_id="bench"))
    first = asyncio.Event()

    async def consume() -> None:
        async with contextlib.aclosing(agent.stream("go")) as events:
            async for _ in events:
                first.set()

    task = asyncio.create_task(consume())
    await first.wait()
    await asyncio.sleep(0.02)
    started = time.perf_counter()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    ended = time.perf_counter()
    return ended - started, ended - started, True


async def main(runs: int) -> None:
    cases = ["bare stream", "silent", "streaming", "slow teardown"]
    figures: dict[str, list[tuple[float, float, bool]]] = {case: [] for case in cases}
    with tempfile.TemporaryDirectory(
        ignore_cleanup_errors=True
    ) as folder:  # checkpoints may still be writing
        for run in range(runs):
            for case in cases:
                root = Path(folder) / f"{run}-{case.replace(' ', '-')}"
                if case == "bare stream":
                    figures[case].append(await bare_case(root))
                else:
                    figures[case].append(await host_case(case, root))
    floor = statistics.median(end for _, end, _ in figures["bare stream"])
    print(f"{'case':<15} {'seen ended':>11} {'run_turn ended':>15} {'x bare':>7}  recorded by the runtime")
    for case in cases:
        seen = statistics.median(item[0] for item in figures[case]) * 1000
        ended = statistics.median(item[1] for item in figures[case]) * 1000
        whole = sum(item[2] for item in figures[case])
        ratio = ended / (floor * 1000)
        print(f"{case:<15} {seen:>9.1f}ms {ended:>13.1f}ms {ratio:>7.1f}  {whole}/{runs}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    asyncio.run(main(parser.parse_args().runs))
