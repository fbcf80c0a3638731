"""The history database's every-turn operations: zett's own statements against zett-agent's storage.

Run: ``python -m benchmarks.bench_history`` (under a minute; ``--rounds N``, ``--messages N``).

Each round writes a session of ``--messages`` messages (a prompt, an assistant answer with usage and
timing, a tool result of 2.5 KB, in turn) through each storage on a file of its own, then reads it
back as a request does: ``load`` whole, and the pieces ``history_since`` reads (the session's
summary, its latest snapshot, the rows since the last read). The two take turns within each round,
so the machine's load falls on both alike. Figures per operation, medians over the rounds:

- CPU: the whole process's (the event loop's thread and the worker threads'), what the operation
  costs the machine;
- loop: the event loop's thread's own CPU, what the operation takes from frames and keys;
- wall.

The baseline is zett-agent's ``SQLiteSessionStorage`` (SQLAlchemy over aiosqlite), which zett used
for all of it before ``runtime/history_sqlite.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from zett_agent.extensions.events import MessageTiming
from zett_agent.messages import AssistantMessage, ToolCall, ToolMessage, UserMessage
from zett_agent.model import ModelUsage
from zett_agent.storage import SQLiteSessionStorage

from zett_tui.runtime.history_sqlite import HistoryDatabase

USAGE = ModelUsage(input_tokens=1200, output_tokens=300)


def process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def message(index: int) -> tuple[Any, ModelUsage | None]:
    kind = index % 3
    if kind == 0:
        return UserMessage(content=f"question {index}: read notes{index}.txt"), None
    if kind == 1:
        call = ToolCall(id=f"c{index}", name="read_file", arguments={"path": f"notes{index}.txt"})
        return AssistantMessage(content="Reading it.\n" * 20, tool_calls=(call,)), USAGE
    return ToolMessage(
        tool_call_id=f"c{index - 1}", name="read_file", content="a line of notes\n" * 160
    ), None


async def timed(operation: Awaitable[object]) -> tuple[float, float, float]:
    """(process CPU, the loop thread's CPU, wall) of one operation (a coroutine not started yet)."""
    cpu, loop, wall = process_cpu(), time.thread_time(), time.perf_counter()
    await operation
    return process_cpu() - cpu, time.thread_time() - loop, time.perf_counter() - wall


async def one_round(
    storage: Any, messages: int, figures: dict[str, list[tuple[float, float, float]]]
) -> None:
    await storage.count_messages("warm")  # the schema, outside the figures
    for index in range(messages):
        item, usage = message(index)
        timing = MessageTiming.instant()
        figures["append"].append(
            await timed(storage.append("s", f"r{index // 3}", item, timing, usage=usage))
        )
    figures["load (whole)"].append(await timed(storage.load("s")))
    figures["get_session"].append(await timed(storage.get_session("s")))
    figures["rows since"].append(await timed(storage.list_raw_messages("s", after_sequence=messages - 3)))


def median_ms(values: list[tuple[float, float, float]], column: int) -> float:
    return 1000 * statistics.median(value[column] for value in values)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--messages", type=int, default=60)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-history-"))
    names = ("zett (history_sqlite)", "zett-agent's storage")
    figures: dict[str, dict[str, list[tuple[float, float, float]]]] = {
        name: {op: [] for op in ("append", "load (whole)", "get_session", "rows since")} for name in names
    }
    for round_ in range(args.rounds):
        for name in names if round_ % 2 == 0 else reversed(names):
            path = folder / f"{name.split()[0]}-{round_}.sqlite3"
            storage: Any = (
                HistoryDatabase(
                    path, busy_timeout_ms=5000, upstream=lambda path=path: SQLiteSessionStorage(path)
                )
                if name == names[0]
                else SQLiteSessionStorage(path)
            )
            try:
                await one_round(storage, args.messages, figures[name])
            finally:
                await storage.close()
    print(f"zett bench_history: {args.rounds} rounds of {args.messages} messages; medians per operation")
    print(f"{'operation':<14}{'':24}{'CPU ms':>9}{'loop ms':>9}{'wall ms':>9}")
    for operation in figures[names[0]]:
        for name in names:
            values = figures[name][operation]
            cells = "".join(f"{median_ms(values, column):9.2f}" for column in range(3))
            print(f"{operation:<14}{name:<24}{cells}")
        ours, theirs = (median_ms(figures[name][operation], 0) for name in names)
        print(f"{'':14}{'CPU ratio':<24}{ours / theirs:9.2f}")


if __name__ == "__main__":
    asyncio.run(main())
