"""Anthropic's Messages answer read from the raw stream, and what zett sends back to it.

:class:`ZettAnthropicProvider` is zett-agent's ``AnthropicProvider`` with four changes:

- **The request** is sent with httpx by :mod:`zett_tui.providers.messages_request` (``__init__``
  builds no SDK client, ``_open`` is replaced): an Anthropic session never imports the anthropic
  SDK. The retry of refused thinking blocks, the timeouts and the retries stay zett-agent's.
- **The stream** (:func:`stream_messages`): the body is read by :mod:`zett_tui.providers.sse` and
  ``json.loads`` instead of a pydantic event per chunk; each event goes through zett-agent's own
  ``_read_event``. The answer is complete only with ``message_stop``;
  an ``error`` event or a body that ends without it raises
  :class:`~zett_tui.providers.stream_end.IncompleteStream`.
- **Server tools without their partner** (a ``server_tool_use`` no result follows, a result for a
  call that never started): the runtime would fail the whole turn. The answer is kept, the odd
  block is left out of what is sent back (the API refuses an unpaired one), and a line says what
  was odd (:data:`STREAM_NOTES`, shown by ``runtime.events``).
- **What is sent back** (:func:`sendable`): no text block without text (a refusal streams one, and
  the API answers every later request holding it with 400 "text content blocks must be
  non-empty"), and no unpaired server-tool block, whatever the history holds.

Token counts: a ``message_delta`` without ``usage`` keeps the count ``message_start`` gave
instead of setting it to 0.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from zett_agent.messages import AssistantMessage
from zett_agent.model import (
    DEFAULT_RETRY_OPTIONS,
    DEFAULT_TIMEOUT_OPTIONS,
    ModelEvent,
    ModelEventType,
    ModelResponse,
    ModelUsage,
    RetryOptions,
    ServerToolResult,
    TimeoutOptions,
    validate_response,
    validate_retry,
    validate_timeout,
)
from zett_agent.providers.anthropic import AnthropicProvider
from zett_agent.providers.anthropic_compatible import DEFAULT_MAX_TOKENS
from zett_agent.providers.base import (
    ProviderError,
    ProviderResponseError,
    empty_stream_message,
    httpx_timeout,
    parse_tool_calls,
    require_event_stream,
    retry_model_stream,
    validate_extra_body,
    validate_extra_headers,
    validate_extra_query,
)
from zett_agent.providers.stop_reasons import withhold_replay_blocks
from zett_agent.stop import StopReason

from zett_tui.providers.messages_request import MessagesStatusError, messages_endpoint, open_messages
from zett_tui.providers.sse import idle_guarded, sse_events
from zett_tui.providers.stream_end import cut_off, failed_midway
from zett_tui.providers.streamed_request import OpenedRequest, RequestConnectionError
from zett_tui.runtime.agent_compat import messages_tool_input, messages_turn
from zett_tui.runtime.events import STREAM_NOTES

if TYPE_CHECKING:
    import httpx
    from zett_agent.json_types import JsonValue
    from zett_agent.model import ModelRequest
    from zett_agent.providers.wire import JsonObject

__all__ = ["STREAM_NOTES", "ZettAnthropicProvider", "sendable", "stream_messages"]


_SERVER_RESULT_SUFFIX = "_tool_result"


def _blank_text(block: Mapping[str, Any]) -> bool:
    return block.get("type") == "text" and not str(block.get("text") or "").strip()


def _unpaired_server_blocks(blocks: list[Any]) -> set[int]:
    """Positions of ``server_tool_use`` blocks without their result, and of results without a use."""
    uses = {
        block.get("id"): position
        for position, block in enumerate(blocks)
        if isinstance(block, dict) and block.get("type") == "server_tool_use"
    }
    results = {
        block.get("tool_use_id"): position
        for position, block in enumerate(blocks)
        if isinstance(block, dict)
        and str(block.get("type", "")).endswith(_SERVER_RESULT_SUFFIX)
        and block.get("type") != "tool_result"
    }
    return {position for key, position in uses.items() if key not in results} | {
        position for key, position in results.items() if key not in uses
    }


def sendable(messages: list[Any]) -> list[Any]:
    """``messages`` (rendered Messages turns) without the blocks the API refuses; a turn left empty goes."""
    kept: list[Any] = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            kept.append(message)
            continue
        odd = _unpaired_server_blocks(content)
        blocks = [
            block
            for position, block in enumerate(content)
            if position not in odd and not (isinstance(block, dict) and _blank_text(block))
        ]
        if blocks:
            kept.append({**message, "content": blocks})
    return kept


class ZettAnthropicProvider(AnthropicProvider):
    """``AnthropicProvider`` with zett's request, its stream reader and what it sends back cleaned
    (module doc).

    ``__init__`` is zett-agent's (``AnthropicProvider`` and ``AnthropicCompatibleProvider``) without
    the SDK client. It cannot call that one: after setting the attributes it imports the anthropic
    SDK and builds its client, unconditionally (``benchmarks/bench_memory.py --anthropic``: 18 MB
    and 0.47 s of CPU), and zett-agent has no hook to skip that. ``tests/test_providers_wire.py``
    checks the copy by what it does: the same parameters, refusals and request on the wire as
    zett-agent's own.
    """

    def __init__(
        self,
        model: str,
        api_key: str,
        base_url: str = "https://api.anthropic.com",
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        response: bool = False,
        retry: RetryOptions = DEFAULT_RETRY_OPTIONS,
        prompt_cache: bool = True,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JsonValue] | None = None,
        timeout: TimeoutOptions = DEFAULT_TIMEOUT_OPTIONS,
    ) -> None:
        import httpx
        import truststore

        validate_response(response)
        if response:
            raise ValueError("AnthropicProvider does not support the Responses API")
        if not api_key:
            raise ValueError("api_key is required")
        base_url = base_url or self.default_base_url or ""
        if not base_url:
            raise ValueError("base_url is required")
        validate_retry(retry)
        validate_timeout(timeout)
        if not isinstance(prompt_cache, bool):
            raise ValueError("prompt_cache must be a boolean")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError("max_tokens must be a positive integer")
        self.max_tokens = max_tokens
        self.extra_headers = validate_extra_headers(extra_headers)
        self.extra_query = validate_extra_query(extra_query)
        self.extra_body: dict[str, JsonValue] = validate_extra_body(extra_body)
        self.retry = retry
        self.timeout = timeout
        self.prompt_cache = prompt_cache
        self.model = model
        self._stale_thinking: dict[str, None] = {}
        self._http_client = httpx.AsyncClient(
            transport=transport,
            verify=truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT),
            trust_env=True,
        )
        self._endpoint = messages_endpoint(
            base_url,
            api_key,
            {**self.vendor_headers(), **self.extra_headers},
            self.extra_query,
            bearer=self.bearer_auth,
        )

    async def _open(self, request: ModelRequest) -> OpenedRequest:  # type: ignore[override]
        """zett-agent's ``_open`` (agent_compat.MESSAGES_OPEN_METHOD), the same request sent with
        httpx: a request whose signed thinking blocks the service refused is sent once more
        without them (``_forget_thinking``)."""
        body = self._request_body(request)
        try:
            return await self._send(body)
        except (MessagesStatusError, RequestConnectionError) as error:
            if not self._forget_thinking(cast("Any", error), body):
                raise self._failure(error) from error
        # The refused request generated nothing, so sending it again without the blocks is safe.
        try:
            return await self._send(self._request_body(request))
        except (MessagesStatusError, RequestConnectionError) as error:
            raise self._failure(error) from error

    async def _send(self, body: JsonObject) -> OpenedRequest:
        return await self._first_byte(
            open_messages(self._http_client, self._endpoint, body, httpx_timeout(self.timeout))
        )

    def _failure(self, error: MessagesStatusError | RequestConnectionError) -> ProviderError:
        return self.status_error(cast("Any", error))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http_client.aclose()

    def _messages(
        self, request: ModelRequest
    ) -> tuple[list[JsonValue], list[str]]:  # agent_compat.MESSAGES_RENDER_METHOD
        messages, system = super()._messages(request)
        return cast("list[JsonValue]", sendable(list(messages))), system

    def finish_usage(self, usage: ModelUsage, update: Mapping[str, JsonValue]) -> ModelUsage:
        if not isinstance(update.get("output_tokens"), int):
            return usage  # the event said nothing about the count: message_start's stands
        return super().finish_usage(usage, update)

    @retry_model_stream
    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        async for event in stream_messages(self, request):
            yield event


async def stream_messages(provider: Any, request: ModelRequest) -> AsyncIterator[ModelEvent]:
    """The events of one Messages request made by ``provider`` (an ``AnthropicCompatibleProvider``).

    Raises:
        IncompleteStream: An ``error`` event, or a body that ended without ``message_stop``.
        ProviderResponseError: An event that is not JSON, or a stream with no events at all.
    """
    response = await provider._open(request)  # agent_compat.MESSAGES_OPEN_METHOD
    await require_event_stream(response, provider.provider_name)
    turn = messages_turn()
    read_event = provider._read_event  # agent_compat.MESSAGES_READ_EVENT_METHOD
    started: dict[str, str] = {}
    text: list[str] = []
    block_text: dict[int, list[str]] = {}
    left_out: set[int] = set()
    notes: list[str] = []
    done = False
    error: dict[str, Any] | None = None
    events = 0
    try:
        async for event in sse_events(idle_guarded(response.response.aiter_bytes(), provider.timeout.idle)):
            events += 1
            try:
                data = json.loads(event.data)
            except ValueError as bad:
                raise ProviderResponseError(f"an event is not JSON: {event.data[:120]!r}") from bad
            if not isinstance(data, dict):
                continue
            kind = data.get("type")
            if kind == "message_stop":
                done = True
                break
            if kind == "error" or event.name == "error":
                inner = data.get("error")
                error = inner if isinstance(inner, dict) else data
                break
            if kind == "content_block_delta":
                delta = data.get("delta")
                if isinstance(delta, dict) and delta.get("type") == "text_delta":
                    # The hot path, read here: zett-agent's ``_read_event`` grows the answer and
                    # its block with ``+=`` at every delta, copying the whole text each time.
                    chunk = delta.get("text")
                    if isinstance(chunk, str) and chunk:
                        text.append(chunk)
                        block_text.setdefault(int(data.get("index") or 0), []).append(chunk)
                        yield ModelEvent.text(chunk)
                    continue
            for model_event in read_event(turn, data):
                if model_event.type is ModelEventType.SERVER_TOOL_STARTED and model_event.server_tool_call:
                    started[model_event.server_tool_call.id] = model_event.server_tool_call.name
                elif (result := model_event.server_tool_result) is not None and model_event.type in (
                    ModelEventType.SERVER_TOOL_COMPLETED,
                    ModelEventType.SERVER_TOOL_FAILED,
                ):
                    if started.get(result.call_id) != result.name:
                        left_out.add(int(data.get("index") or 0))
                        notes.append(
                            f"The answer held a {result.name} result for a call that never started "
                            f"({result.call_id or 'no id'}); it was left out."
                        )
                        continue
                    del started[result.call_id]
                yield model_event
    finally:
        await response.close()

    turn.text = "".join(text)
    for index, pieces in block_text.items():
        block = turn.replay.setdefault(index, {})
        block["text"] = str(block.get("text") or "") + "".join(pieces)
    if error is not None:
        answered = bool(turn.text or turn.reasoning or turn.streams or turn.server_streams)
        raise failed_midway(str(error.get("message") or ""), str(error.get("type") or ""), answered=answered)
    if not events:
        raise ProviderResponseError(empty_stream_message(provider.provider_name, response))
    if not done:
        raise cut_off("no message_stop")
    for call_id, name in started.items():
        yield ModelEvent.server_tool_failed(ServerToolResult(call_id, name, None, "no_result"))
        notes.append(f"The provider's {name} call ({call_id}) got no result in the answer; it was left out.")
    unanswered = set(started)
    for index, block in turn.replay.items():
        if block.get("type") == "server_tool_use" and block.get("id") in unanswered:
            left_out.add(index)

    tool_calls = parse_tool_calls(turn.streams, turn.finish_reason)
    for index, call in turn.streams.items():
        turn.replay.setdefault(index, {})["input"] = messages_tool_input(call.argument_buffer, index)
    stop = provider.message_stop(turn.finish_reason, turn.stop_details, has_tool_calls=bool(tool_calls))
    blocks: tuple[Mapping[str, JsonValue], ...] = tuple(
        turn.replay[index]
        for index in sorted(turn.replay)
        if index not in left_out and not _blank_text(turn.replay[index])
    )
    if stop.reason in (StopReason.REFUSAL, StopReason.INTERRUPTED):
        # As zett-agent does: a tool call withheld from the message goes from what is sent back.
        blocks = withhold_replay_blocks(blocks, lambda block: block.get("type") == "tool_use")
    message = AssistantMessage(
        content=turn.text,
        reasoning=turn.reasoning or None,
        tool_calls=tool_calls,
        provider=provider.provider_name,
        model=provider.model,
        replay_blocks=blocks,
        attributes={STREAM_NOTES: notes} if notes else {},
    )
    yield ModelEvent.completed(
        ModelResponse(message=message, finish_reason=turn.finish_reason, usage=turn.usage, stop=stop)
    )
