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
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zett_tui import __version__

if TYPE_CHECKING:
    import httpx

__all__ = ["ChatConnectionError", "ChatEndpoint", "ChatStatusError", "OpenedChat", "open_chat"]

PATH = "chat/completions"
USER_AGENT = f"zett/{__version__}"


class ChatStatusError(Exception):
    """An HTTP error answer, shaped like the SDK's ``APIStatusError`` for ``status_error``."""

    def __init__(self, response: httpx.Response) -> None:
        text = response.text.strip()
        body: object = text
        try:
            body = json.loads(text)
            message = f"Error code: {response.status_code} - {body}"
        except ValueError:
            message = text or f"Error code: {response.status_code}"
        super().__init__(message)
        self.message = message
        self.response = response
        self.status_code = response.status_code
        self.request_id = response.headers.get("x-request-id")
        self.body = body.get("error", body) if isinstance(body, Mapping) else body


class ChatConnectionError(Exception):
    """No answer came (refused, reset, timed out); the transport error is the cause, as with the
    SDK's ``APIConnectionError``, so retries and the error sentence see it."""

    def __init__(self, request: httpx.Request) -> None:
        super().__init__("Connection error.")
        self.request = request


@dataclass(frozen=True)
class ChatEndpoint:
    """Where and how one provider sends its requests."""

    url: str
    headers: Mapping[str, str]
    query: Mapping[str, str]

    @classmethod
    def of(
        cls,
        base_url: str,
        api_key: str,
        headers: Mapping[str, str],
        query: Mapping[str, str],
        *,
        openai_account: bool,
    ) -> ChatEndpoint:
        """The endpoint of ``base_url``; ``openai_account`` adds the organization and project the
        SDK reads from the environment (meaningful to OpenAI alone)."""
        sent = {
            "Accept": "application/json",
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "Authorization": f"Bearer {api_key}",
        }
        if openai_account:
            for header, variable in (
                ("OpenAI-Organization", "OPENAI_ORG_ID"),
                ("OpenAI-Project", "OPENAI_PROJECT_ID"),
            ):
                if value := os.environ.get(variable):
                    sent[header] = value
        sent.update(headers)
        return cls(url=base_url.rstrip("/") + "/" + PATH, headers=sent, query=dict(query))


class OpenedChat:
    """A request whose answer's headers are in: ``response`` (body not read yet) and :meth:`close`,
    what zett-agent calls an ``SDKStream``."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response

    async def close(self) -> None:
        await self.response.aclose()


async def open_chat(
    client: httpx.AsyncClient, endpoint: ChatEndpoint, body: Mapping[str, Any], timeout: httpx.Timeout
) -> OpenedChat:
    """Send ``body`` and return once the answer's headers are in.

    Raises:
        ChatStatusError: The server answered with an HTTP error (its body read).
        ChatConnectionError: No answer (its cause is httpx's error).
    """
    import httpx

    request = client.build_request(
        "POST",
        endpoint.url,
        headers=endpoint.headers,
        params=endpoint.query or None,
        content=json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode(),
        timeout=timeout,
    )
    try:
        response = await client.send(request, stream=True)
    except httpx.TransportError as error:
        raise ChatConnectionError(request) from error
    if response.status_code >= 400:
        try:
            await response.aread()
        except httpx.TransportError as error:
            raise ChatConnectionError(request) from error
        finally:
            await response.aclose()
        raise ChatStatusError(response)
    return OpenedChat(response)
