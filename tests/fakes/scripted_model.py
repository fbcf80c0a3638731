"""A scripted in-process model: each request plays the next step of a script.

Steps are async generators of ``ModelEvent``s ending in exactly one ``ModelEvent.completed``.
The model records every request so tests can assert on what the model was sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from zett_agent.messages import AssistantMessage, ToolCall
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse, ModelUsage, RetryOptions, ToolCallDelta

Step = Callable[[ModelRequest], AsyncIterator[ModelEvent]]


class ScriptedModel:
    retry = RetryOptions(max_retries=0)

    def __init__(self, *steps: Step) -> None:
        self.steps: list[Step] = list(steps)
        self.requests: list[ModelRequest] = []
        self.closed = False

    def add(self, *steps: Step) -> None:
        self.steps.extend(steps)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        step = self.steps.pop(0) if self.steps else text_step("(script ended)")
        async for event in step(request):
            yield event

    async def aclose(self) -> None:
        self.closed = True


def usage(input_tokens: int = 12, output_tokens: int = 5) -> ModelUsage:
    return ModelUsage(input_tokens=input_tokens, output_tokens=output_tokens)


def text_step(
    text: str,
    *,
    chunk: int = 8,
    reasoning: str = "",
    delay: float = 0.0,
    gate: asyncio.Event | None = None,
    tokens: ModelUsage | None = None,
) -> Step:
    """Stream ``text`` in ``chunk``-sized deltas; wait on ``gate`` after the first delta if given;
    the response reports ``tokens`` (default: ``usage()``)."""

    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        for index in range(0, len(reasoning), chunk):
            yield ModelEvent.reasoning(reasoning[index : index + chunk])
        for index in range(0, len(text), chunk):
            yield ModelEvent.text(text[index : index + chunk])
            if gate is not None and index == 0:
                await gate.wait()
            if delay:
                await asyncio.sleep(delay)
        message = AssistantMessage(content=text)
        yield ModelEvent.completed(ModelResponse(message, finish_reason="stop", usage=tokens or usage()))

    return step


def tool_step(call_id: str, name: str, arguments: dict[str, Any], *, text: str = "") -> Step:
    """Ask for one tool call (optionally after some text)."""
    return tools_step([(call_id, name, arguments)], text=text)


def tools_step(calls: list[tuple[str, str, dict[str, Any]]], *, text: str = "") -> Step:
    """Ask for several tool calls in one response (a parallel batch)."""

    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if text:
            yield ModelEvent.text(text)
        for index, (call_id, name, arguments) in enumerate(calls):
            delta = ToolCallDelta(
                index=index, id_delta=call_id, name_delta=name, arguments_delta=json.dumps(arguments)
            )
            yield ModelEvent.tool_call(delta)
        message = AssistantMessage(
            content=text,
            tool_calls=tuple(ToolCall(id=cid, name=name, arguments=args) for cid, name, args in calls),
        )
        yield ModelEvent.completed(ModelResponse(message, finish_reason="tool_calls", usage=usage(20, 7)))

    return step


def failing_step(error: Exception) -> Step:
    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if False:  # pragma: no cover - makes this an async generator
            yield ModelEvent.text("")
        raise error

    return step


def last_tool_result(request: ModelRequest) -> str:
    """The content of the last tool message the model was sent."""
    for message in reversed(request.messages):
        if getattr(message, "role", None) is not None and str(message.role).endswith("tool"):
            content = message.content
            return content if isinstance(content, str) else str(content)
    return ""
