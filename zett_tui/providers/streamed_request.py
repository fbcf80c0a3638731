"""A provider request sent with httpx alone, its streamed answer left to zett's readers.

What ``chat_request`` (Chat Completions) and ``messages_request`` (Anthropic Messages) share: the
JSON body sent compactly as the SDKs send it, the endpoint's headers and query, and the two ways a
request fails before any answer, shaped like the SDK errors zett-agent reads:

- :class:`StatusError`, an HTTP error answer, like the SDKs' ``APIStatusError``: ``status_code``,
  the read ``response``, ``body`` (what each SDK keeps of it: see the subclasses), ``request_id``,
  and the SDKs' message (``Error code: 400 - {...}``), which ``status_error`` describes and
  Anthropic's refused-thinking check searches;
- :class:`RequestConnectionError`, no answer at all (refused, reset, timed out), with the transport
  error as its cause, as with the SDKs' ``APIConnectionError``, so the retries and the error
  sentence see it.

Retries, timeouts and the reading of the answer stay zett-agent's and zett's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from zett_tui import __version__

if TYPE_CHECKING:
    import httpx

__all__ = [
    "JSON_HEADERS",
    "Endpoint",
    "OpenedRequest",
    "RequestConnectionError",
    "StatusError",
    "merged_headers",
    "open_streamed",
]

#: What every request says it sends and accepts, and who sends it.
JSON_HEADERS = {
    "Accept": "application/json",
    "Content-Type": "application/json",
    "User-Agent": f"zett/{__version__}",
}


class StatusError(Exception):
    """An HTTP error answer (its body read), shaped like the SDKs' ``APIStatusError``."""

    #: The header that names the request for the provider's support.
    request_id_header: ClassVar[str] = "x-request-id"

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
        self.request_id = response.headers.get(self.request_id_header)
        self.body = self.kept(body)

    @staticmethod
    def kept(body: object) -> object:
        """What of the answer's body the SDK keeps as ``body``: all of it (Anthropic's SDK)."""
        return body


class RequestConnectionError(Exception):
    """No answer came (refused, reset, timed out); the transport error is the cause, as with the
    SDKs' ``APIConnectionError``, so retries and the error sentence see it."""

    def __init__(self, request: httpx.Request) -> None:
        super().__init__("Connection error.")
        self.request = request


def merged_headers(base: Mapping[str, str], override: Mapping[str, str]) -> dict[str, str]:
    """``base`` with ``override`` over it, a name replacing its own whatever its case
    (``x-api-key`` given by the user replaces ``X-Api-Key``, never travels beside it)."""
    replaced = {name.lower() for name in override}
    return {**{name: value for name, value in base.items() if name.lower() not in replaced}, **override}


@dataclass(frozen=True)
class Endpoint:
    """Where and how one provider sends its requests."""

    url: str
    headers: Mapping[str, str]
    query: Mapping[str, str]


class OpenedRequest:
    """A request whose answer's headers are in: ``response`` (body not read yet) and :meth:`close`,
    what zett-agent calls an ``SDKStream``."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response

    async def close(self) -> None:
        await self.response.aclose()


def json_bytes(body: Mapping[str, Any]) -> bytes:
    """``body`` as both SDKs (and httpx) write JSON: compact, UTF-8, no NaN."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


async def open_streamed(
    client: httpx.AsyncClient,
    endpoint: Endpoint,
    body: Mapping[str, Any],
    timeout: httpx.Timeout,
    status_error: type[StatusError],
) -> OpenedRequest:
    """POST ``body`` to ``endpoint`` and return once the answer's headers are in.

    Raises:
        StatusError: ``status_error``: the server answered with an HTTP error (its body read).
        RequestConnectionError: No answer (its cause is httpx's error).
    """
    import httpx

    request = client.build_request(
        "POST",
        endpoint.url,
        headers=endpoint.headers,
        params=endpoint.query or None,
        content=json_bytes(body),
        timeout=timeout,
    )
    try:
        response = await client.send(request, stream=True)
    except httpx.TransportError as error:
        raise RequestConnectionError(request) from error
    if response.status_code >= 400:
        try:
            await response.aread()
        except httpx.TransportError as error:
            raise RequestConnectionError(request) from error
        finally:
            await response.aclose()
        raise status_error(response)
    return OpenedRequest(response)
