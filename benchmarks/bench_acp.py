"""``zett acp``: time from start to ``initialize`` answered, and what zett adds between a token
the provider streams and the editor's ``agent_message_chunk``.

The second figure is measured from the gaps between chunks: the fake server sleeps ``DELAY``
before each chunk, so each gap is ``DELAY`` plus what the path provider → runtime → session core
→ ACP adds (the same path as the first token's). Medians of several runs.

    python -m benchmarks.bench_acp
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fakes.llm_server import FakeLLMServer, Reply

RUNS = 5
DELAY = 0.05


class Client:
    def __init__(self) -> None:
        self.arrivals: list[float] = []

    async def request_permission(self, **kwargs: Any) -> Any:
        raise RuntimeError("no questions in this benchmark")

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if update.session_update == "agent_message_chunk":
            self.arrivals.append(time.perf_counter())


async def one_run(
    server: FakeLLMServer, env: dict[str, str], cwd: str
) -> tuple[float, float, float, float, float]:
    """(initialize answered, added per chunk, session/new in the process's folder, session/new in
    another folder, which starts a process of its own, the editor's end closed -> every process gone)."""
    client = Client()
    server.script(Reply.text("token " * 40, chunk=6, delay=DELAY))
    other = Path(cwd).parent / f"other-{time.monotonic_ns()}"
    other.mkdir()
    start = time.perf_counter()
    async with spawn_agent_process(client, sys.executable, "-m", "zett_tui", "acp", env=env, cwd=cwd) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        initialized = time.perf_counter() - start
        before = time.perf_counter()
        session = await conn.new_session(cwd=cwd, mcp_servers=[])
        here = time.perf_counter() - before
        await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
        before = time.perf_counter()
        await conn.new_session(cwd=str(other), mcp_servers=[])
        elsewhere = time.perf_counter() - before
        closing = time.perf_counter()
    ended = time.perf_counter() - closing
    gaps = [later - earlier for earlier, later in zip(client.arrivals, client.arrivals[1:], strict=False)]
    return initialized, statistics.median(gaps) - DELAY, here, elsewhere, ended


BARE = "import sys; sys.stdin.readline(); print('{}', flush=True)"


async def bare_python(env: dict[str, str]) -> tuple[float, float]:
    """The baseline in the same run: a bare interpreter that answers one line (and how long it takes
    to end once its input is closed)."""
    start = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", BARE, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"{}\n")
    await process.stdin.drain()
    await process.stdout.readline()
    took = time.perf_counter() - start
    closing = time.perf_counter()
    process.stdin.close()
    await process.wait()
    return took, time.perf_counter() - closing


async def main() -> None:
    with tempfile.TemporaryDirectory() as home, FakeLLMServer() as server:
        project = Path(home) / "project"
        project.mkdir()
        env = {
            **os.environ,
            "HOME": home,
            "XDG_CONFIG_HOME": f"{home}/config",
            "XDG_DATA_HOME": f"{home}/data",
            "XDG_STATE_HOME": f"{home}/state",
            "XDG_CACHE_HOME": f"{home}/cache",
            "OPENAI_API_KEY": "sk-bench-000000000000000000000000",
            "OPENAI_BASE_URL": server.openai_base_url,
            "ZETT_MODEL": "openai:gpt-bench",
        }
        results = [await one_run(server, env, str(project)) for _ in range(RUNS)]
        bare = [await bare_python(env) for _ in range(RUNS)]
    inits = [result[0] for result in results]
    overheads = [result[1] for result in results]
    here = statistics.median(result[2] for result in results)
    elsewhere = statistics.median(result[3] for result in results)
    ended = statistics.median(result[4] for result in results)
    bare_answered = statistics.median(run[0] for run in bare)
    bare_ended = statistics.median(run[1] for run in bare)
    print(
        f"initialize answered after start: median {statistics.median(inits) * 1000:.0f} ms (target 150 ms); "
        f"a bare interpreter answering one line: {bare_answered * 1000:.0f} ms "
        f"(ratio {statistics.median(inits) / bare_answered:.1f})"
    )
    print(
        f"provider token -> agent_message_chunk: median {statistics.median(overheads) * 1000:.1f} ms "
        "added per chunk (target 30 ms)"
    )
    print(
        f"session/new in the process's folder: median {here * 1000:.0f} ms; in another folder "
        f"(a zett acp process of its own starts): {elsewhere * 1000:.0f} ms (ratio {elsewhere / here:.1f})"
    )
    print(
        f"the editor closes its end -> zett acp and its folder's process gone: median {ended * 1000:.0f} ms; "
        f"a bare interpreter: {bare_ended * 1000:.0f} ms (ACP's SDK terminates an agent still there after 2 s)"
    )


if __name__ == "__main__":
    asyncio.run(main())
