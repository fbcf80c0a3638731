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
with the vendor fields of tool calls kept to be sent back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, cast

from zett_agent.providers.openai import OpenAIProvider
from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

from zett_tui.providers.chat_stream import replay_tool_call_extras, stream_chat
from zett_tui.runtime.agent_compat import rendered_chat_messages

if TYPE_CHECKING:
    from zett_agent.json_types import JsonValue
    from zett_agent.messages import AssistantMessage
    from zett_agent.model import ModelEvent, ModelRequest
    from zett_agent.providers.wire import JsonObject


class PlainMessagesCompatibleProvider(OpenAICompatibleProvider):
    """An OpenAI-compatible endpoint (vLLM, LM Studio, llama.cpp server, ...), messages untransformed."""

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
    """OpenAI itself, messages untransformed. With ``response=True`` (``[web] search``) it talks
    the Responses API through zett-agent's own reader: the lean Chat Completions path above is
    not used then."""

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
