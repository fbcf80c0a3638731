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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from zett_agent.providers.openai import OpenAIProvider
from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

from zett_tui.runtime.agent_compat import rendered_chat_messages

if TYPE_CHECKING:
    from zett_agent.json_types import JsonValue
    from zett_agent.model import ModelRequest
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


class PlainMessagesOpenAIProvider(PlainMessagesCompatibleProvider, OpenAIProvider):
    """OpenAI itself, messages untransformed."""
