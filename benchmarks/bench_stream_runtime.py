"""The stream below the UI: a 58 KB answer in ~7,300 deltas through zett-agent, no screen.

Run: ``python -m benchmarks.bench_stream_runtime [--runs 5]``.

A fake server (``tests.fakes.llm_server``, its own process, on 127.0.0.1) streams one 58 KB
Markdown answer in 8-character deltas, one event per network chunk, in Chat Completions and in
Anthropic Messages shape. Each run builds a real zett-agent ``Agent`` and drains ``agent.stream``:
the time from the request to the last event is what the runtime needs before the UI sees a thing.

Measured in the same run, medians of ``--runs`` (alternating, so load hits all alike):

- ``sdk``: the provider SDK's stream (a pydantic object per chunk, dumped back to a dict), as
  zett-agent reads it (``OpenAICompatibleProvider._stream_chat``, ``AnthropicProvider.stream``);
- ``lean``: zett's reader of the raw body (``providers/chat_stream``, ``providers/messages_stream``)
  and zett's request sent with httpx alone (``chat_request``, ``messages_request``), what zett uses;
- ``lean, SDK request`` (Messages only): zett's reader with the request sent by the anthropic SDK
  (``benchmarks/anthropic_sdk_request.py``), what zett used before ``messages_request``;
- ``bytes``: just reading the same body with httpx, no parse: the floor of the transport.

Wall time and this process's CPU time are both printed (the server runs in another process): on
a loaded machine the CPU time is the steadier figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ANSWER_BYTES = 58_000
DELTA = 8


def answer_text() -> str:
    """~58 KB of Markdown-ish prose, code and lists."""
    parts = []
    i = 0
    while sum(map(len, parts)) < ANSWER_BYTES:
        parts.append(
            f"## Section {i}\n\nThe parser reads item {i} and **keeps** its `state` across calls; "
            f"see the table below.\n\n- first point {i}\n- second point {i}\n\n```python\n"
            f"def step_{i}(x):\n    return x * {i} + 1\n```\n\n"
        )
        i += 1
    return "".join(parts)[:ANSWER_BYTES]


def chat_body(text: str) -> str:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        payload = {
            "id": "chatcmpl-b",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return "data: " + json.dumps(payload) + "\n\n"

    pieces = [chunk({"role": "assistant", "content": ""})]
    pieces += [chunk({"content": text[i : i + DELTA]}) for i in range(0, len(text), DELTA)]
    pieces.append(chunk({}, "stop"))
    usage = {
        "id": "chatcmpl-b",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [],
        "usage": {
            "prompt_tokens": 20,
            "completion_tokens": len(text) // 4,
            "total_tokens": 20 + len(text) // 4,
        },
    }
    pieces.append("data: " + json.dumps(usage) + "\n\n")
    return "".join(pieces) + "data: [DONE]\n\n"


def messages_body(text: str) -> str:
    def event(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps(data)}\n\n"

    start = {
        "id": "msg_b",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "claude-b",
        "stop_reason": None,
        "usage": {"input_tokens": 20, "output_tokens": 1},
    }
    pieces = [
        event("message_start", {"type": "message_start", "message": start}),
        event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
    ]
    pieces += [
        event(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text[i : i + DELTA]},
            },
        )
        for i in range(0, len(text), DELTA)
    ]
    pieces += [
        event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": len(text) // 4},
            },
        ),
        event("message_stop", {"type": "message_stop"}),
    ]
    return "".join(pieces)


def start_server(body: str, folder: Path) -> tuple[subprocess.Popen[str], str]:
    script = folder / "script.json"
    script.write_text(json.dumps({"replies": [], "default": {"kind": "raw", "content": body}}))
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakes.llm_server",
            "--port",
            "0",
            "--script",
            str(script),
            "--exit-on-stdin-eof",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def providers(base: str) -> dict[str, Callable[[], Any]]:
    from zett_agent.model import RetryOptions
    from zett_agent.providers.anthropic import AnthropicProvider
    from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

    from benchmarks.anthropic_sdk_request import through_the_sdk
    from zett_tui.providers.messages_stream import ZettAnthropicProvider
    from zett_tui.providers.plain_messages import PlainMessagesCompatibleProvider

    class SDKChat(PlainMessagesCompatibleProvider):
        """zett's endpoint provider with zett-agent's own request and stream loop (the SDK's chunks)."""

        _open_chat = OpenAICompatibleProvider._open_chat  # type: ignore[assignment]
        _stream_chat = OpenAICompatibleProvider._stream_chat

    retry = RetryOptions(max_retries=0)
    chat = {"model": "m", "api_key": "unused", "base_url": f"{base}/v1", "retry": retry}
    return {
        "chat sdk": lambda: SDKChat(**chat),
        "chat lean": lambda: PlainMessagesCompatibleProvider(**chat),
        "messages sdk": lambda: AnthropicProvider("claude-b", api_key="k", base_url=base, retry=retry),
        "messages lean, SDK request": lambda: through_the_sdk()(
            "claude-b", api_key="k", base_url=base, retry=retry
        ),
        "messages lean": lambda: ZettAnthropicProvider("claude-b", api_key="k", base_url=base, retry=retry),
    }


async def one_turn(make: Callable[[], Any], expected: str) -> tuple[float, float]:
    from zett_agent.agent import Agent
    from zett_agent.extensions.memory import InMemoryMessageAccumulator
    from zett_agent.model import ReasoningEffort

    model = make()
    try:
        agent = await Agent.create(
            model, extensions=[InMemoryMessageAccumulator()], reasoning_effort=ReasoningEffort.OFF
        )
        started, cpu = time.perf_counter(), time.process_time()
        text: list[str] = []
        async for event in agent.stream("Write it."):
            if event.type == "text_delta":
                text.append(event.delta)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        await model.aclose()
    if "".join(text) != expected:
        raise SystemExit("the answer did not arrive whole")
    return elapsed, cpu


async def bytes_only(url: str, body: dict[str, Any]) -> tuple[float, float]:
    import httpx

    async with httpx.AsyncClient() as client:
        started, cpu = time.perf_counter(), time.process_time()
        async with client.stream("POST", url, json=body) as response:
            async for _ in response.aiter_bytes():
                pass
        return time.perf_counter() - started, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    text = answer_text()
    deltas = len(range(0, len(text), DELTA))
    print(f"answer: {len(text):,} bytes in {deltas:,} deltas; medians of {args.runs} runs")
    with tempfile.TemporaryDirectory() as scratch:
        results: dict[str, list[tuple[float, float]]] = {}
        for shape, body in (("chat", chat_body(text)), ("messages", messages_body(text))):
            folder = Path(scratch) / shape
            folder.mkdir()
            server, base = start_server(body, folder)
            try:
                makers = {name: make for name, make in providers(base).items() if name.startswith(shape)}
                path = f"{base}/v1/chat/completions" if shape == "chat" else f"{base}/v1/messages"
                for _ in range(args.runs):
                    results.setdefault(f"{shape} bytes", []).append(
                        asyncio.run(bytes_only(path, {"model": "m", "messages": []}))
                    )
                    for name, make in makers.items():
                        results.setdefault(name, []).append(asyncio.run(one_turn(make, text)))
            finally:
                assert server.stdin is not None
                server.stdin.close()
                server.wait(timeout=10)
    for column, label in ((0, "wall"), (1, "CPU ")):
        medians = {name: statistics.median(run[column] for run in runs) for name, runs in results.items()}
        for shape in ("chat", "messages"):
            sdk, lean, floor = medians[f"{shape} sdk"], medians[f"{shape} lean"], medians[f"{shape} bytes"]
            print(
                f"{label} {shape:9s} sdk {sdk:6.3f} s   lean {lean:6.3f} s   bytes only {floor:6.3f} s   "
                f"lean/sdk {lean / sdk:5.2f}"
            )
        before = medians["messages lean, SDK request"]
        print(
            f"{label} messages  lean with the SDK's request {before:6.3f} s   "
            f"lean {medians['messages lean']:6.3f} s   ratio {medians['messages lean'] / before:5.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
