"""MCP servers' cost: starting five stdio servers, adapting 200 tools for a request, one call.

    python -m benchmarks.bench_mcp

1. ``McpManager.start`` with five stdio servers configured: the time it blocks its caller (what
   the first frame would pay; the app is not involved in this script), and until all are ready.
2. Building the model's tools from 200 ready MCP tools (``build_tools``), the per-request cost.
3. A call's overhead over the server's own time: ``pid`` through the manager (a thread hop and
   the result's conversion) against the same call on a ``ClientSession`` the script opens itself.
4. The first frame of the real ``zett`` in a pseudo-terminal (``bench_app``'s start-up
   measurement: a key written at spawn, timed until the prompt shows it), with five stdio servers
   in its ``config.toml`` against none. ``--no-first-frame`` leaves it out (it spawns zett 13
   times).
5. ``McpManager.stop`` (what quitting zett waits for) with one server idle, and with a tool call
   still running on it; the latter also with the SDK's own 2 s grace before SIGTERM put back
   (``runtime.mcp.transport.EXIT_GRACE``), the baseline in the same run.
The servers are ``tests/fakes/mcp_sdk_server.py``, written with the MCP SDK as most servers are
(the suite's lean fake would make their start look cheaper than a real one's).
Medians of repeated runs; on a shared machine read the ratios.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path
from typing import TextIO

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Tool

from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp.manager import McpManager
from zett_tui.runtime.mcp.oauth import log_sign_in_url
from zett_tui.runtime.mcp.results import to_model_result
from zett_tui.runtime.mcp.server_connection import ServerConnection, ServerState
from zett_tui.runtime.mcp.tools import build_tools

ROOT = Path(__file__).resolve().parent.parent


def fake(name: str) -> McpServerConfig:
    return McpServerConfig(
        name, command=sys.executable, args=("-m", "tests.fakes.mcp_sdk_server"), env={"PYTHONPATH": str(ROOT)}
    )


def wait_ready(manager: McpManager) -> None:
    while any(status.state is not ServerState.READY for status in manager.statuses()):
        time.sleep(0.01)


def start_five() -> tuple[float, float]:
    manager = McpManager([fake(f"s{index}") for index in range(5)], environ={})
    before = time.perf_counter()
    manager.start()
    blocked = time.perf_counter() - before
    wait_ready(manager)
    ready = time.perf_counter() - before
    manager.stop()
    return blocked, ready


def two_hundred_tools() -> float:
    manager = McpManager([fake("big")], environ={})
    server = ServerConnection(fake("big"), {}, lambda: None, log_sign_in_url)
    schema = {
        "type": "object",
        "title": "Arguments",
        "properties": {
            f"p{n}": {"type": "string", "title": f"P{n}", "description": "a value"} for n in range(6)
        },
        "required": ["p0"],
    }
    server.tools = tuple(
        Tool(name=f"tool_{n}", description=f"Tool number {n}, which does a thing.", input_schema=schema)
        for n in range(200)
    )
    server.state = ServerState.READY
    manager._servers["big"] = server
    times = []
    for _ in range(50):
        before = time.perf_counter()
        tools = build_tools(manager)
        times.append(time.perf_counter() - before)
    assert len(tools) == 200
    return statistics.median(times)


async def direct_calls(count: int) -> float:
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "tests.fakes.mcp_sdk_server"], env={"PYTHONPATH": str(ROOT)}
    )
    with open(os.devnull, "w") as quiet:
        return await _timed_direct_calls(parameters, count, quiet)


async def _timed_direct_calls(parameters: StdioServerParameters, count: int, quiet: TextIO) -> float:
    async with stdio_client(parameters, errlog=quiet) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        times = []
        for _ in range(count):
            before = time.perf_counter()
            await session.call_tool("pid", {})
            times.append(time.perf_counter() - before)
    return statistics.median(times)


def managed_calls(count: int) -> float:
    manager = McpManager([fake("one")], environ={})
    manager.start()
    wait_ready(manager)

    async def run() -> float:
        times = []
        for _ in range(count):
            before = time.perf_counter()
            to_model_result(await manager.call_tool("one", "pid", {}), server="one", tool="pid")
            times.append(time.perf_counter() - before)
        return statistics.median(times)

    try:
        return asyncio.run(run())
    finally:
        manager.stop()


FIVE_SERVERS = "".join(
    f"""
[mcp_servers.fake{index}]
command = {sys.executable!r}
args = ["-m", "tests.fakes.mcp_sdk_server"]
env = {{ PYTHONPATH = {str(ROOT)!r} }}
"""
    for index in range(5)
)


def first_frames(runs: int = 6) -> dict[str, tuple[float | None, float | None]]:
    """(first frame, first key shown) medians in seconds, without and with five servers configured."""
    import tempfile

    from benchmarks.bench_app import SHORT_REPLY, ZETT, Results, ServerProcess, first_key

    results = Results()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        server = ServerProcess(work / "server", SHORT_REPLY)
        project = work / "project"
        project.mkdir()
        try:
            first_key(
                ZETT, _home(work / "home-warm-up", server, ""), project, Results(), "warm-up"
            )  # discarded
            for run in range(runs):
                order = (("none", ""), ("five", FIVE_SERVERS))
                for name, config in order if run % 2 == 0 else reversed(order):
                    first_key(
                        ZETT, _home(work / f"home-{name}-{run}", server, config), project, results, name
                    )
        finally:
            server.close()
    return {
        name: (results.median(f"{name}.frame"), results.median(f"{name}.key")) for name in ("none", "five")
    }


def _home(home: Path, server: object, config: str) -> dict[str, str]:
    """``bench_app``'s isolated environment, with ``config`` as zett's config.toml."""
    from benchmarks.bench_app import isolated_env

    env = isolated_env(home, server)  # type: ignore[arg-type]
    (home / "config" / "zett").mkdir(parents=True)
    (home / "config" / "zett" / "config.toml").write_text(config, encoding="utf-8")
    return env


def timed_stop(in_flight: bool) -> float:
    """Seconds ``stop`` takes, with a ``sleep`` call running on the server or not."""
    import threading

    manager = McpManager([fake("s0")], environ={})
    manager.start()
    wait_ready(manager)
    caller = None
    if in_flight:

        def call() -> None:
            with contextlib.suppress(Exception):  # the stop ends the call: that is the point
                asyncio.run(manager.call_tool("s0", "sleep", {"seconds": 30}))

        caller = threading.Thread(target=call)
        caller.start()
        time.sleep(0.5)  # the call reaches the server
    before = time.perf_counter()
    manager.stop()
    took = time.perf_counter() - before
    if caller is not None:
        caller.join(timeout=10)
    return took


def stops(runs: int = 3) -> dict[str, float]:
    from zett_tui.runtime.mcp import transport

    found = {
        "idle": statistics.median(timed_stop(False) for _ in range(runs)),
        "in_flight": statistics.median(timed_stop(True) for _ in range(runs)),
    }
    chosen, transport.EXIT_GRACE = transport.EXIT_GRACE, 2.0  # the SDK's own grace
    try:
        found["in_flight_sdk_grace"] = statistics.median(timed_stop(True) for _ in range(runs))
    finally:
        transport.EXIT_GRACE = chosen
    return found


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.0f} ms"


def main() -> None:
    runs = [start_five() for _ in range(3)]
    blocked = statistics.median(run[0] for run in runs)
    ready = statistics.median(run[1] for run in runs)
    print(f"five stdio servers: start() blocks {blocked * 1000:.2f} ms; all ready after {ready:.2f} s")
    print(f"200 MCP tools adapted for a request: {two_hundred_tools() * 1000:.2f} ms")
    direct = asyncio.run(direct_calls(200))
    managed = managed_calls(200)
    print(
        f"a call: {managed * 1000:.2f} ms through zett, {direct * 1000:.2f} ms on a bare SDK session "
        f"(overhead {(managed - direct) * 1000:.2f} ms)"
    )
    stopped = stops()
    print(
        f"stop(): {_ms(stopped['idle'])} idle, {_ms(stopped['in_flight'])} with a call running "
        f"({_ms(stopped['in_flight_sdk_grace'])} with the SDK's 2 s grace)"
    )
    if "--no-first-frame" not in sys.argv:
        frames = first_frames()
        for name, label in (("none", "no MCP servers"), ("five", "five stdio servers configured")):
            frame, key = frames[name]
            print(f"zett's first frame, {label}: {_ms(frame)} (a key typed at spawn shown after {_ms(key)})")


if __name__ == "__main__":
    main()
