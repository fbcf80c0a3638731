"""A Chat Completions request sent with httpx alone: a session never imports the openai SDK for it.

zett reads the answer itself (:mod:`zett_tui.providers.chat_stream`); the SDK was left sending the
request, and ``import openai`` alone loads its ~800 modules of pydantic types: about 35 MB of a
115 MB session and 0.4 s of imports (``benchmarks/bench_memory.py``). What it did for this one
request is small, and is done here the same way: the URL (``base_url`` + ``/chat/completions``),
the key as a bearer token, ``OPENAI_ORG_ID``/``OPENAI_PROJECT_ID`` for OpenAI itself, the provider's
headers and query, the body as compact JSON with ``extra_body`` merged last, and an HTTP error
turned into what zett-agent's ``status_error`` reads from the SDK's ``APIStatusError``
(``status_code``, the read ``response``, ``body``: the JSON's ``error`` object, the JSON, or the
text). Retries, timeouts and the reading of the answer stay zett-agent's and zett's, as before.
``tests/test_providers_wire.py`` checks that the server gets the same body as through the SDK.
What this shares with the Messages request (``messages_request``) is in ``streamed_request``.
"""

from __future__ import annotations

import os
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

__all__ = ["ChatStatusError", "chat_endpoint", "open_chat"]

PATH = "chat/completions"


class ChatStatusError(StatusError):
    """An HTTP error answer, shaped like the openai SDK's ``APIStatusError`` for ``status_error``."""

    @staticmethod
    def kept(body: object) -> object:
        """The openai SDK keeps the JSON's ``error`` object, when it has one."""
        return body.get("error", body) if isinstance(body, Mapping) else body


def chat_endpoint(
    base_url: str,
    api_key: str,
    headers: Mapping[str, str],
    query: Mapping[str, str],
    *,
    openai_account: bool,
) -> Endpoint:
    """The endpoint of ``base_url``; ``openai_account`` adds the organization and project the
    SDK reads from the environment (meaningful to OpenAI alone)."""
    sent = {**JSON_HEADERS, "Authorization": f"Bearer {api_key}"}
    if openai_account:
        for header, variable in (
            ("OpenAI-Organization", "OPENAI_ORG_ID"),
            ("OpenAI-Project", "OPENAI_PROJECT_ID"),
        ):
            if value := os.environ.get(variable):
                sent[header] = value
    return Endpoint(
        url=base_url.rstrip("/") + "/" + PATH, headers=merged_headers(sent, headers), query=dict(query)
    )


async def open_chat(
    client: httpx.AsyncClient, endpoint: Endpoint, body: Mapping[str, Any], timeout: httpx.Timeout
) -> OpenedRequest:
    """Send ``body`` and return once the answer's headers are in.

    Raises:
        ChatStatusError: The server answered with an HTTP error (its body read).
        RequestConnectionError: No answer (its cause is httpx's error).
    """
    return await open_streamed(client, endpoint, body, timeout, ChatStatusError)
