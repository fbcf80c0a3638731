"""A Chat Completions answer read from the raw stream: lean, and complete only when it says so.

zett-agent's own loop (``OpenAICompatibleProvider._stream_chat``) iterates the openai SDK's stream,
which builds a pydantic ``ChatCompletionChunk`` for every chunk and is dumped back to a dict; it
also takes any end of the body for the end of the answer. :func:`stream_chat` opens the request
the same way (the SDK's client, headers, HTTP errors, first-byte limit), then reads the body itself
(:mod:`zett_tui.providers.sse`, ``json.loads``) and feeds the provider's own hooks (``read_delta``,
``read_usage``, ``chat_stop``, ``merge_replay``), so vendor subclasses keep working.

The answer is complete only with a ``finish_reason`` or ``data: [DONE]``; an error chunk
(``{"error": ...}`` from OpenAI, SGLang or a gateway, ``{"object": "error", ...}`` from vLLM) or a
body that just ends raises :class:`~zett_tui.providers.stream_end.IncompleteStream`.

Provider fields that must go back unchanged ride on the message's ``replay_blocks``:
:data:`TOOL_CALL_EXTRAS` holds, per tool call id, the fields of a streamed tool call that are not
part of the protocol (Gemini's ``extra_content.google.thought_signature``: Gemini 3 refuses the
tool result without it), and :func:`replay_tool_call_extras` puts them back on the call.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from zett_agent.messages import AssistantMessage
from zett_agent.model import ModelEvent, ModelResponse, ModelUsage, ToolCallDelta
from zett_agent.providers.base import (
    ProviderRefusalError,
    ProviderResponseError,
    ToolCallAccumulator,
    empty_stream_message,
    parse_tool_calls,
    require_event_stream,
)
from zett_agent.stop import StopInfo, StopReason

from zett_tui.providers.sse import idle_guarded, sse_events
from zett_tui.providers.stream_end import cut_off, failed_midway

if TYPE_CHECKING:
    from zett_agent.json_types import JsonValue
    from zett_agent.model import ModelRequest

__all__ = ["TOOL_CALL_EXTRAS", "replay_tool_call_extras", "stream_chat"]

#: ``replay_blocks`` type of a tool call's extra fields: ``{"type", "tool_call_id", "fields"}``.
TOOL_CALL_EXTRAS = "zett.tool_call_extras"
#: Fields of a streamed tool call the protocol defines; anything else is the vendor's, kept opaque.
_PROTOCOL_CALL_FIELDS = frozenset({"index", "id", "type", "function"})


class _ToolCalls:
    """Tool-call fragments by index, with the index repaired where a server leaves it out.

    Gemini's OpenAI endpoint sends each call whole, with no ``index`` or ``"index": null`` and
    sometimes ``"id": ""``. A fragment without an index continues the call whose id it repeats;
    otherwise it starts a new call if it names a function or an id, and continues the last if not.
    """

    def __init__(self) -> None:
        self.streams: dict[int, ToolCallAccumulator] = {}
        self.extras: dict[int, dict[str, Any]] = {}

    def read(self, raw: object) -> list[ToolCallDelta]:
        deltas: list[ToolCallDelta] = []
        if not isinstance(raw, list):
            return deltas
        for call in raw:
            if not isinstance(call, dict):
                continue
            function = call.get("function")
            function = function if isinstance(function, dict) else {}
            name = _text(function.get("name"))
            index = call.get("index")
            call_id = _text(call.get("id"))
            if not isinstance(index, int) or isinstance(index, bool):
                known = [i for i, stream in self.streams.items() if call_id and stream.call_id == call_id]
                last = max(self.streams) if self.streams else -1
                if known:  # a server that repeats the id on every fragment
                    index = known[0]
                    call_id = ""
                else:
                    index = last + 1 if (name or call_id or last < 0) else last
            delta = ToolCallDelta(
                index=index,
                id_delta=call_id,
                name_delta=name,
                arguments_delta=_text(function.get("arguments")),
            )
            self.streams.setdefault(index, ToolCallAccumulator(index=index)).append(delta)
            extra = {key: value for key, value in call.items() if key not in _PROTOCOL_CALL_FIELDS}
            if extra:
                self.extras.setdefault(index, {}).update(extra)
            deltas.append(delta)
        return deltas


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _error_of(data: Mapping[str, Any]) -> tuple[str, str, object] | None:
    """``(message, type, code)`` of an error chunk, or None for an ordinary chunk."""
    error = data.get("error")
    if isinstance(error, dict):
        return (
            _text(error.get("message")) or json.dumps(error)[:300],
            _text(error.get("type")),
            error.get("code"),
        )
    if isinstance(error, str) and error:
        return error, "", data.get("code")
    if data.get("object") == "error":
        return _text(data.get("message")) or json.dumps(data)[:300], _text(data.get("type")), data.get("code")
    return None


def _filtered(results: object) -> list[str]:
    """The categories an Azure content filter result says it filtered (``violence (medium)``)."""
    found: list[str] = []
    if not isinstance(results, dict):
        return found
    for category, verdict in results.items():
        if isinstance(verdict, dict) and verdict.get("filtered") is True:
            severity = verdict.get("severity")
            shown = category.replace("_", " ")
            found.append(
                f"{shown} ({severity})" if isinstance(severity, str) and severity != "safe" else shown
            )
    return found


def _with_filter_words(stop: StopInfo, filtered: list[str]) -> StopInfo:
    if not filtered or stop.message:
        return stop
    words = "the content filter stopped the answer: " + ", ".join(dict.fromkeys(filtered))
    return StopInfo(stop.reason, raw=stop.raw, category=stop.category, message=words, detail=stop.detail)


async def stream_chat(provider: Any, request: ModelRequest) -> AsyncIterator[ModelEvent]:
    """The events of one Chat Completions request made by ``provider`` (an ``OpenAICompatibleProvider``).

    Raises:
        IncompleteStream: An error chunk, or a body that ended without ``finish_reason``/``[DONE]``.
        ProviderResponseError: A chunk that is not JSON, or a stream with no events at all.
    """
    try:
        response = await provider._open_chat(request)  # agent_compat.CHAT_OPEN_METHOD
    except ProviderRefusalError as refusal:
        yield provider._refused(refusal)  # agent_compat.CHAT_REFUSED_METHOD
        return
    await require_event_stream(response, provider.provider_name)

    text: list[str] = []
    reasoning: list[str] = []
    calls = _ToolCalls()
    replay: list[dict[str, JsonValue]] = []
    finish_reason: str | None = None
    native_finish_reason: str | None = None
    refusal_text = ""
    usage = ModelUsage()
    filtered: list[str] = []
    done = False
    error: tuple[str, str, object] | None = None
    events = 0
    read_delta, read_usage = provider.read_delta, provider.read_usage
    try:
        async for event in sse_events(idle_guarded(response.response.aiter_bytes(), provider.timeout.idle)):
            events += 1
            payload = event.data
            if payload.strip() == "[DONE]":
                done = True
                break
            try:
                data = json.loads(payload)
            except ValueError as bad:
                raise ProviderResponseError(f"a chunk is not JSON: {payload[:120]!r}") from bad
            if not isinstance(data, dict):
                continue
            if (error := _error_of(data)) is not None:
                break
            usage_payload = data.get("usage")
            if isinstance(usage_payload, dict):
                usage = read_usage({key: value for key, value in usage_payload.items() if value is not None})
            filtered += [
                name
                for result in data.get("prompt_filter_results") or ()
                if isinstance(result, dict)
                for name in _filtered(result.get("content_filter_results"))
            ]
            choices = data.get("choices")
            if not choices or not isinstance(choice := choices[0], dict):
                continue
            if isinstance(native := choice.get("native_finish_reason"), str):
                native_finish_reason = native
            if "content_filter_results" in choice:
                filtered += _filtered(choice["content_filter_results"])
            raw_delta = choice.get("delta")
            if isinstance(raw_delta, dict) and raw_delta:
                delta = read_delta(raw_delta)
                if delta.refusal:
                    refusal_text += delta.refusal
                    text.append(delta.refusal)
                    yield ModelEvent.text(delta.refusal)
                if delta.text:
                    text.append(delta.text)
                    yield ModelEvent.text(delta.text)
                if delta.reasoning:
                    reasoning.append(delta.reasoning)
                    yield ModelEvent.reasoning(delta.reasoning)
                if raw_delta.get("tool_calls"):
                    for call in calls.read(raw_delta["tool_calls"]):
                        yield ModelEvent.tool_call(call)
                for fragment in delta.replay:
                    provider.merge_replay(replay, fragment)
            if isinstance(reason := choice.get("finish_reason"), str) and reason:
                finish_reason = reason
    finally:
        await response.close()

    if error is not None:
        said, error_type, code = error
        raise failed_midway(said, error_type, code, answered=bool(text or reasoning or calls.streams))
    if not events:
        raise ProviderResponseError(empty_stream_message(provider.provider_name, response))
    if finish_reason == "error":
        raise failed_midway('the provider reported finish_reason "error"', "error")
    if finish_reason is None and not done:
        raise cut_off("no finish_reason and no [DONE]")

    tool_calls = parse_tool_calls(calls.streams, finish_reason)
    for position, index in enumerate(sorted(calls.streams)):
        if (extra := calls.extras.get(index)) and position < len(tool_calls):
            replay.append(
                {
                    "type": TOOL_CALL_EXTRAS,
                    "tool_call_id": tool_calls[position].id,
                    "fields": cast("JsonValue", extra),
                }
            )
    stop = provider.chat_stop(
        finish_reason,
        has_tool_calls=bool(tool_calls),
        refusal_text=refusal_text,
        stream_error={},
        native_finish_reason=native_finish_reason,
    )
    if stop.reason is StopReason.REFUSAL or filtered:
        stop = _with_filter_words(stop, filtered)
    message = AssistantMessage(
        content="".join(text),
        reasoning="".join(reasoning) or None,
        tool_calls=tool_calls,
        provider=provider.provider_name,
        model=provider.model,
        replay_blocks=tuple(replay),
    )
    yield ModelEvent.completed(
        ModelResponse(message=message, finish_reason=finish_reason, usage=usage, stop=stop)
    )


def replay_tool_call_extras(message: AssistantMessage, payload: dict[str, Any]) -> None:
    """Put each tool call's kept vendor fields back on the call in ``payload`` (a rendered message)."""
    extras = {
        block.get("tool_call_id"): block.get("fields")
        for block in message.replay_blocks
        if block.get("type") == TOOL_CALL_EXTRAS
    }
    if not extras:
        return
    for call in payload.get("tool_calls") or ():
        fields = extras.get(call.get("id")) if isinstance(call, dict) else None
        if isinstance(fields, dict):
            for key, value in fields.items():
                call.setdefault(key, value)
