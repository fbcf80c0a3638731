"""zett's Anthropic provider with the request sent by the anthropic SDK again: the baseline of the
benchmarks that measure what ``providers/messages_request`` saves (memory, imports, stream time).

``through_the_sdk()`` is zett's ``ZettAnthropicProvider`` (its stream reader, what it sends back)
with zett-agent's own ``__init__`` (the SDK client), ``_open`` (``client.messages.create``) and
``aclose``: what zett shipped before its request went through httpx. ``use_the_sdk_request()``
makes ``build_model`` build it, for a whole session (bench_memory's ``sitecustomize``).
"""

from __future__ import annotations

from typing import Any


def through_the_sdk() -> type[Any]:
    from zett_agent.providers.anthropic import AnthropicProvider
    from zett_agent.providers.anthropic_compatible import AnthropicCompatibleProvider

    from zett_tui.providers.messages_stream import ZettAnthropicProvider

    class ThroughTheSDK(ZettAnthropicProvider):
        _client = None  # set by zett-agent's __init__
        __init__ = AnthropicProvider.__init__  # type: ignore[assignment]
        _open = AnthropicCompatibleProvider._open  # type: ignore[assignment]
        aclose = AnthropicCompatibleProvider.aclose

    return ThroughTheSDK


def use_the_sdk_request() -> None:
    """``build_model`` builds :func:`through_the_sdk`'s provider for ``anthropic:`` from now on."""
    from zett_tui.providers import messages_stream

    messages_stream.ZettAnthropicProvider = through_the_sdk()  # type: ignore[misc]
