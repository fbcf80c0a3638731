"""Server-sent events read straight from the HTTP body: the lean path of a streamed answer.

The provider SDKs turn every streamed chunk into a pydantic object, and zett-agent then dumps it
back into a dict: for a 58 KB answer in 7,300 deltas that is most of the time spent below the UI
(``benchmarks/bench_stream_runtime.py``). zett keeps the SDKs for what they are good at (the
client, authentication, retries, base URLs, HTTP errors) and reads the body of the response they
opened here: bytes split into events, each event's ``data`` given as text for ``json.loads``.

The format is the WHATWG one: lines ending in LF or CRLF, ``event:`` and ``data:`` fields, a blank
line ending an event, ``:`` comments (OpenRouter's ``: OPENROUTER PROCESSING``) ignored. An event
whose data arrives without the blank line after it (the body just ends) is still passed on, so the
caller, not this reader, decides whether the stream was complete.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

__all__ = ["SSEEvent", "idle_guarded", "sse_events"]


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One event: its ``event:`` name (empty when it had none) and its ``data:`` lines joined."""

    name: str
    data: str


async def sse_events(chunks: AsyncIterable[bytes]) -> AsyncIterator[SSEEvent]:
    """The events in ``chunks`` (the raw body, in whatever pieces the network gave)."""
    pending = b""
    name = b""
    data: list[bytes] = []
    async for chunk in chunks:
        if not chunk:
            continue
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        for line in lines:
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                if data:
                    yield SSEEvent(
                        name.decode("utf-8", "replace"), b"\n".join(data).decode("utf-8", "replace")
                    )
                    data = []
                name = b""
            elif line.startswith(b"data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(b" ") else value)
            elif line.startswith(b"event:"):
                name = line[6:].strip()
            # ``:`` comments, ``id:`` and ``retry:`` say nothing about the answer.
    tail = pending.rstrip(b"\r")
    if tail.startswith(b"data:"):
        value = tail[5:]
        data.append(value[1:] if value.startswith(b" ") else value)
    if data:
        yield SSEEvent(name.decode("utf-8", "replace"), b"\n".join(data).decode("utf-8", "replace"))


async def idle_guarded(chunks: AsyncIterable[bytes], seconds: float | None) -> AsyncIterator[bytes]:
    """``chunks``, giving up when the next one takes longer than ``seconds`` (None: no limit).

    zett-agent's ``guard_idle`` does the same with ``asyncio.wait_for``, which wraps every wait in
    a new task: one per network chunk, a tenth of the runtime's time on a fast stream.
    ``asyncio.timeout`` only moves a timer.

    Raises:
        ProviderTimeoutError: If a wait exceeds ``seconds`` (``phase="idle"``).
    """
    iterator = chunks.__aiter__()
    if seconds is None:
        async for chunk in iterator:
            yield chunk
        return
    from zett_agent.providers.base import timeout_error

    while True:
        try:
            async with asyncio.timeout(seconds):
                chunk = await iterator.__anext__()
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise timeout_error("idle", seconds) from None
        yield chunk
