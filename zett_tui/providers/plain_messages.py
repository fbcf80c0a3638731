"""OpenAI-compatible requests whose messages skip the SDK's transform on the event loop.

Before sending, the openai SDK walks every field of a request through a type-directed transform,
in Python, on the event loop: ~0.15 ms a message. Every model call of a turn sends the whole
conversation, so at turn 300 (1,200 messages, no compaction) each call froze the screen for
~200 ms (``benchmarks/bench_long_session.py``, longest event-loop stall), keys typed meanwhile
included. zett-agent already renders the messages as plain JSON, which that transform returns
unchanged (``tests/test_providers_wire.py`` checks it), so here they travel in ``extra_body``,
which the SDK merges into the JSON body as it is. Same bytes on the wire, without the walk.

This overrides zett-agent's ``OpenAICompatibleProvider._messages``, a private method
(``runtime/agent_compat.py`` names it, ``tests/test_upstream_contracts.py`` checks it); if a later
zett-agent drops it, requests are simply built the ordinary way again.

The answer is read by ``chat_stream.stream_chat`` (zett-agent's ``_stream_chat`` is replaced): the
raw stream without a pydantic object per chunk, complete only with the protocol's end signal, and
with the vendor fields of tool calls kept to be sent back. The request is sent by
``chat_request.open_chat`` with httpx (``_open_chat`` is replaced, and ``__init__`` builds no SDK
client): a session never imports the openai SDK, ~35 MB it used for nothing else. The SDK client is
built on first use only where zett-agent's own code still needs it (the Responses API).
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, cast

from zett_agent.model import (
    DEFAULT_RETRY_OPTIONS,
    DEFAULT_TIMEOUT_OPTIONS,
    RetryOptions,
    TimeoutOptions,
    validate_response,
    validate_retry,
    validate_timeout,
)
from zett_agent.providers.base import (
    httpx_timeout,
    validate_extra_body,
    validate_extra_headers,
    validate_extra_query,
)
from zett_agent.providers.openai import OpenAIProvider
from zett_agent.providers.openai_compatible import OpenAICompatibleProvider, chat_server_tools, chat_tools

from zett_tui.providers.chat_request import ChatStatusError, chat_endpoint, open_chat
from zett_tui.providers.chat_stream import replay_tool_call_extras, stream_chat
from zett_tui.providers.streamed_request import OpenedRequest
from zett_tui.runtime.agent_compat import rendered_chat_messages

if TYPE_CHECKING:
    import httpx
    from openai import AsyncOpenAI
    from zett_agent.json_types import JsonValue
    from zett_agent.messages import AssistantMessage
    from zett_agent.model import ModelEvent, ModelRequest
    from zett_agent.providers.wire import JsonObject

OPENAI_URL = "https://api.openai.com/v1"


class PlainMessagesCompatibleProvider(OpenAICompatibleProvider):
    """An OpenAI-compatible endpoint (vLLM, LM Studio, llama.cpp server, ...), messages untransformed.

    ``__init__`` is zett-agent's ``OpenAICompatibleProvider.__init__`` without the SDK client. It
    cannot call that one: after setting the attributes it imports the openai SDK and builds its
    client, unconditionally (1.8 to 2.5 s and 28 MB more than this one, measured on a loaded
    2-core machine), and zett-agent has no hook to skip that. ``tests/test_providers_wire.py`` checks the copy by
    what it does: the same parameters, refusals and request on the wire as zett-agent's own.
    """

    #: Whether ``OPENAI_ORG_ID``/``OPENAI_PROJECT_ID`` go along as headers (the SDK sent them to any
    #: server; they mean something to OpenAI only).
    sends_openai_account: ClassVar[bool] = False

    def __init__(
        self,
        *,
        model: str,
        api_key: str,
        base_url: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        temperature: float | None = None,
        response: bool = False,
        retry: RetryOptions = DEFAULT_RETRY_OPTIONS,
        send_prompt_cache_key: bool | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JsonValue] | None = None,
        timeout: TimeoutOptions = DEFAULT_TIMEOUT_OPTIONS,
    ) -> None:
        import httpx
        import truststore

        validate_retry(retry)
        validate_timeout(timeout)
        validate_response(response)
        self.retry = retry
        self.timeout = timeout
        self.send_prompt_cache_key = (
            self.sends_prompt_cache_key if send_prompt_cache_key is None else send_prompt_cache_key
        )
        self.extra_headers = validate_extra_headers(extra_headers)
        self.extra_query = validate_extra_query(extra_query)
        self.extra_body: dict[str, JsonValue] = validate_extra_body(extra_body)
        if not api_key:
            raise ValueError("api_key is required")
        base_url = base_url or self.default_base_url
        if not base_url:
            raise ValueError("base_url is required")
        self.model = model
        self.temperature = temperature
        self.response = response
        self._http_client = httpx.AsyncClient(
            transport=transport,
            verify=truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT),
            trust_env=True,
        )
        self._api_key, self._base_url = api_key, base_url
        self._sdk_client: AsyncOpenAI | None = None
        self._endpoint = chat_endpoint(
            base_url,
            api_key,
            {**self.vendor_headers(), **self.extra_headers},
            self.extra_query,
            openai_account=self.sends_openai_account,
        )

    @property
    def _client(self) -> AsyncOpenAI:  # type: ignore[override]
        """zett-agent's SDK client, built (and the SDK imported) at the first use: the Responses API."""
        if self._sdk_client is None:
            from openai import AsyncOpenAI

            headers = {**self.vendor_headers(), **self.extra_headers}
            self._sdk_client = AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                http_client=self._http_client,
                max_retries=0,
                timeout=httpx_timeout(self.timeout),
                default_headers=headers or None,
                default_query=self.extra_query or None,
            )
        return self._sdk_client

    async def _open_chat(self, request: ModelRequest) -> OpenedRequest:  # type: ignore[override]
        """zett-agent's ``_open_chat`` (agent_compat.CHAT_OPEN_METHOD), the same fields sent with httpx."""
        tools = [*chat_tools(request.tools), *chat_server_tools(request.server_tools)]
        fields: dict[str, Any] = {"model": self.model, "messages": self._messages(request), "stream": True}
        if self.sends_stream_options:
            fields["stream_options"] = {"include_usage": True}
        if tools:
            fields["tools"] = tools
        if self.temperature is not None:
            fields["temperature"] = self.temperature
        if request.tool_choice:
            fields["tool_choice"] = {"type": "function", "function": {"name": request.tool_choice}}
        if self.send_prompt_cache_key and request.cache_key:
            fields["prompt_cache_key"] = request.cache_key
        fields.update({**self.request_fields(request), **self.extra_body})
        try:
            return await self._first_byte(
                open_chat(self._http_client, self._endpoint, fields, httpx_timeout(self.timeout))
            )
        except ChatStatusError as error:
            raise self.status_error(cast("Any", error)) from error

    async def aclose(self) -> None:
        """Close the connection pool (the SDK client's, which is the same, if one was built)."""
        if self._sdk_client is not None:
            await self._sdk_client.close()
        else:
            await self._http_client.aclose()

    def _messages(self, request: ModelRequest) -> list[JsonObject]:  # agent_compat.CHAT_MESSAGES_METHOD
        """What the SDK transforms: nothing (the messages go in ``request_fields``)."""
        return []

    def request_fields(self, request: ModelRequest) -> JsonObject:
        fields = super().request_fields(request)
        rendered = rendered_chat_messages(self, request, above=PlainMessagesCompatibleProvider)
        if rendered is None:
            return fields
        return {**fields, "messages": cast("JsonValue", rendered)}

    def replay_reasoning(self, message: AssistantMessage, payload: JsonObject) -> None:
        """zett-agent's replay, plus the vendor fields each tool call came with (Gemini's
        ``extra_content``), sent back to the provider and model that wrote them."""
        super().replay_reasoning(message, payload)
        if message.provider == self.provider_name and message.model == self.model:
            replay_tool_call_extras(message, cast("dict[str, Any]", payload))

    def _stream_chat(
        self, request: ModelRequest
    ) -> AsyncIterator[ModelEvent]:  # agent_compat.CHAT_STREAM_METHOD
        """The answer through zett's lean reader (``chat_stream``)."""
        return stream_chat(self, request)


class PlainMessagesOpenAIProvider(PlainMessagesCompatibleProvider, OpenAIProvider):
    """OpenAI itself, messages untransformed; the arguments of zett-agent's ``OpenAIProvider``.
    With ``response=True`` (``[web] search``) it talks the Responses API through zett-agent's own
    reader and the openai SDK (built then, ``_client``): the lean Chat Completions path above is
    not used then."""

    sends_openai_account: ClassVar[bool] = True

    def __init__(
        self,
        model: str,
        api_key: str,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        base_url: str | None = None,
        temperature: float | None = None,
        response: bool = False,
        retry: RetryOptions = DEFAULT_RETRY_OPTIONS,
        send_prompt_cache_key: bool = True,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JsonValue] | None = None,
        timeout: TimeoutOptions = DEFAULT_TIMEOUT_OPTIONS,
    ) -> None:
        super().__init__(
            model=model,
            api_key=api_key,
            base_url=base_url or OPENAI_URL,
            transport=transport,
            temperature=temperature,
            response=response,
            retry=retry,
            send_prompt_cache_key=send_prompt_cache_key,
            extra_headers=extra_headers,
            extra_query=extra_query,
            extra_body=extra_body,
            timeout=timeout,
        )
        self.provider_name = "openai"

    def responses_fields(self, request: ModelRequest) -> JsonObject:
        """A hosted web search's sources are sent only when asked for (``include``); the field
        replaces the provider's own, so its reasoning item stays in it."""
        fields = super().responses_fields(request)
        if not any(tool.type == "web_search" for tool in request.server_tools):
            return fields
        from zett_agent.providers.responses import responses_reasoning

        include: list[JsonValue] = ["web_search_call.action.sources"]
        if responses_reasoning(request.reasoning_effort) is not None:
            include.insert(0, "reasoning.encrypted_content")
        return {**fields, "include": include}
