"""OpenAI-compatible requests whose messages skip the SDK's transform on the event loop.

Before sending, the openai SDK walks every field of a request through a type-directed transform,
in Python, on the event loop: ~0.15 ms a message. Every model call of a turn sends the whole
conversation, so at turn 300 (1,200 messages, no compaction) each call froze the screen for
~200 ms (``benchmarks/bench_long_session.py``, longest event-loop stall), keys typed meanwhile
included. zett-agent already renders the messages as plain JSON, which that transform returns
unchanged (``tests/test_providers_wire.py`` checks it), so here they travel in ``extra_body``,
which the SDK merges into the JSON body as it is. Same bytes on the wire, without the walk.

This overrides zett-agent's ``OpenAICompatibleProvider._messages``, a private method; if a later
zett-agent drops it, requests are simply built the ordinary way again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from zett_agent.providers.openai import OpenAIProvider
from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

if TYPE_CHECKING:
    from zett_agent.json_types import JsonValue
    from zett_agent.model import ModelRequest
    from zett_agent.providers.wire import JsonObject


class PlainMessagesCompatibleProvider(OpenAICompatibleProvider):
    """An OpenAI-compatible endpoint (vLLM, LM Studio, llama.cpp server, ...), messages untransformed."""

    def _messages(self, request: ModelRequest) -> list[JsonObject]:
        """What the SDK transforms: nothing (the messages go in ``request_fields``)."""
        return []

    def request_fields(self, request: ModelRequest) -> JsonObject:
        render = getattr(super(), "_messages", None)
        fields = super().request_fields(request)
        if render is None:
            return fields
        return {**fields, "messages": cast("JsonValue", render(request))}


class PlainMessagesOpenAIProvider(PlainMessagesCompatibleProvider, OpenAIProvider):
    """OpenAI itself, messages untransformed."""
