"""An Anthropic Messages request sent with httpx alone: a session never imports the anthropic SDK.

zett reads the answer itself (:mod:`zett_tui.providers.messages_stream`); the SDK was left sending
the request, and ``import anthropic`` loads its pydantic types: about 17 MB of a session and a
quarter of a second of imports (``benchmarks/bench_memory.py``). What it did for this one request
is done here the same way (``anthropic`` 0.125, ``AsyncAnthropic`` built by zett-agent's
``AnthropicCompatibleProvider`` with an explicit key, so the SDK reads no credential of its own
from the environment):

- the URL: ``base_url`` + ``/v1/messages`` (``ANTHROPIC_BASE_URL`` is read by ``build.base_url_for``),
  the provider's ``extra_query`` as the query;
- the headers: ``X-Api-Key``, plus ``Authorization: Bearer`` for a provider with ``bearer_auth``
  (gateways that take only the bearer token), ``anthropic-version: 2023-06-01``, and the provider's
  own and extra headers last (``anthropic-beta`` goes there), each replacing a default of the same
  name. The SDK's telemetry headers (``X-Stainless-*``) and its name are not sent;
- the body: zett-agent's fields in the order ``messages.create`` writes them, with ``extra_body``
  (the reasoning fields and the provider's extra body) merged last, as compact JSON;
- an HTTP error as :class:`MessagesStatusError`, what zett-agent reads from the SDK's
  ``APIStatusError`` (its ``body`` is the whole JSON, as the anthropic SDK keeps it).

``tests/test_providers_wire.py`` checks that the server gets the same URL, headers and body as
through the SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zett_tui.providers.streamed_request import (
    JSON_HEADERS,
    Endpoint,
    OpenedRequest,
    StatusError,
    merged_headers,
    open_streamed,
)

if TYPE_CHECKING:
    import httpx

__all__ = ["MessagesStatusError", "messages_body", "messages_endpoint", "open_messages"]

PATH = "v1/messages"
#: The API version the SDK asks for.
ANTHROPIC_VERSION = "2023-06-01"
#: The fields ``messages.create`` declares, in the order it writes them; ``extra_body`` follows.
SDK_FIELD_ORDER = (
    "max_tokens",
    "messages",
    "model",
    "cache_control",
    "container",
    "inference_geo",
    "metadata",
    "output_config",
    "service_tier",
    "stop_sequences",
    "stream",
    "system",
    "temperature",
    "thinking",
    "tool_choice",
    "tools",
    "top_k",
    "top_p",
)


class MessagesStatusError(StatusError):
    """An HTTP error answer, shaped like the anthropic SDK's ``APIStatusError``."""

    request_id_header = "request-id"


def messages_endpoint(
    base_url: str, api_key: str, headers: Mapping[str, str], query: Mapping[str, str], *, bearer: bool
) -> Endpoint:
    """The Messages endpoint of ``base_url``; ``headers`` (the provider's own and extra ones) go last."""
    sent = {**JSON_HEADERS, "X-Api-Key": api_key}
    if bearer:
        sent["Authorization"] = f"Bearer {api_key}"
    sent["anthropic-version"] = ANTHROPIC_VERSION
    return Endpoint(
        url=base_url.rstrip("/") + "/" + PATH, headers=merged_headers(sent, headers), query=dict(query)
    )


def messages_body(fields: Mapping[str, Any]) -> dict[str, Any]:
    """zett-agent's request (``_request_body``: its own fields under ``extra_body``, for the SDK)
    as the JSON the SDK sends: the declared fields in its order, then ``extra_body`` over them."""
    declared = {name: value for name, value in fields.items() if name != "extra_body"}
    body = {name: declared[name] for name in SDK_FIELD_ORDER if name in declared}
    body.update((name, value) for name, value in declared.items() if name not in body)
    extra = fields.get("extra_body")
    if isinstance(extra, Mapping):
        body.update(extra)
    return body


async def open_messages(
    client: httpx.AsyncClient, endpoint: Endpoint, fields: Mapping[str, Any], timeout: httpx.Timeout
) -> OpenedRequest:
    """Send ``fields`` (zett-agent's ``_request_body``) and return once the answer's headers are in.

    Raises:
        MessagesStatusError: The server answered with an HTTP error (its body read).
        RequestConnectionError: No answer (its cause is httpx's error).
    """
    return await open_streamed(client, endpoint, messages_body(fields), timeout, MessagesStatusError)
