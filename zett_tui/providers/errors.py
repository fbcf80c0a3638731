"""Turn whatever a turn failed with into one line a person can act on.

Provider failures do not arrive in one shape (see docs/zett-agent-notes.md §2 and the wire tests):

==============================  ==================================================================
what happened                   what is raised
==============================  ==================================================================
401                             ``ProviderAuthError`` (Ollama also uses it for 403)
403, 400, 404, 429, 5xx         ``ProviderHTTPError`` with ``status_code``; 429/5xx after retries
connection refused              ``streamed_request.RequestConnectionError`` (OpenAI and endpoints, the
                                openai SDK's ``APIConnectionError`` on the Responses API); for Anthropic a
                                ``ProviderResponseError("anthropic request failed: Connection
                                error.")`` caused by it; for Ollama a raw ``httpx.ConnectError``
silent provider                 ``ProviderTimeoutError`` with ``phase`` and ``seconds``
connection cut mid-stream       a raw ``httpx.RemoteProtocolError`` (or another
                                ``httpx.TransportError``) from the SDK's byte stream
stream without its end signal   ``stream_end.IncompleteStream`` (zett's stream readers), also for an
or with an error event          error event after some text; ``.sentence`` says which
malformed chunk                 a raw ``json.JSONDecodeError`` (OpenAI, Anthropic); Ollama wraps it
                                in ``ProviderResponseError``
too many model calls            ``AgentIterationLimitError``
==============================  ==================================================================

The SDK and runtime modules are imported inside :func:`describe_error`, which only runs after
something went wrong. Every sentence passes through :func:`redact_secrets` before it is returned.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import ssl
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from zett_tui.providers.build import EndpointSettings, ModelChoice

__all__ = ["describe_error", "describe_error_for", "redact_secrets"]

#: Longest text taken from an error message or a provider's explanation.
_DETAIL_LIMIT = 200
#: Longest sentence returned.
_LINE_LIMIT = 400

_PROVIDER_NAMES = {"anthropic": "Anthropic", "openai": "OpenAI", "ollama": "Ollama", "demo": "The demo model"}
_KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def redact_secrets(text: str, known_secrets: Iterable[str] = ()) -> str:
    """Replace anything that looks like an API key, token or private key in ``text``.

    The rules are those of :mod:`zett_tui.core.redact` (one redaction point for files and screen), with
    the short words of a sentence: ``[redacted key]``, ``[redacted]``, ``[redacted private key]``.
    ``known_secrets`` are the actual key values in use; they are removed whatever they look like.
    """
    from zett_tui.core.redact import Redactor, display_label

    return Redactor(known_secrets=known_secrets, label=display_label)(text)


def _one_line(text: str, limit: int = _DETAIL_LIMIT) -> str:
    """``text`` as a single short line: whitespace collapsed, cut with an ellipsis."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it was raised from or while handling, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _status(exc: BaseException) -> int | None:
    """The HTTP status somewhere in the chain, or in an ``HTTP 403`` in the message."""
    for item in _chain(exc):
        status = getattr(item, "status_code", None)
        if isinstance(status, int) and status >= 100:
            return status
    found = re.search(r"\bHTTP (\d{3})\b", str(exc))
    return int(found.group(1)) if found else None


def _request_origin(exc: BaseException) -> str | None:
    """``scheme://host:port`` of the request that failed, when an exception in the chain knows it."""
    for item in _chain(exc):
        try:
            request = getattr(item, "request", None)
        except RuntimeError:  # httpx raises when an error was made without a request
            continue
        url = getattr(request, "url", None)
        if url is not None:
            parts = urlsplit(str(url))
            if parts.scheme and parts.netloc:
                return f"{parts.scheme}://{parts.netloc}"
    return None


def _is_named(exc: BaseException, name: str, *modules: str) -> bool:
    """Whether ``exc`` is an instance of a class ``name`` from one of ``modules`` (no SDK import)."""
    return any(cls.__name__ == name and cls.__module__.split(".")[0] in modules for cls in type(exc).__mro__)


def _sdk_connection_error(exc: BaseException) -> bool:
    """An SDK's wrapper of a request that got no answer, or zett's own (``streamed_request``)."""
    return _is_named(exc, "APIConnectionError", "openai", "anthropic") or _is_named(
        exc, "RequestConnectionError", "zett_tui"
    )


class _Context:
    """What the caller knows about the provider, to name it and the key it reads."""

    def __init__(self, provider: str | None, key_hint: str | None, base_url: str | None) -> None:
        if not provider or provider == "endpoint":
            self.name = "The provider" if not provider else "The endpoint"
        else:
            self.name = _PROVIDER_NAMES.get(provider, f"Endpoint '{provider}'")
        self.key_hint = key_hint or _KEY_VARIABLES.get(provider or "")
        self.base_url = base_url

    def where(self, exc: BaseException) -> str:
        return self.base_url or _request_origin(exc) or "the provider"


def _describe_connection(exc: BaseException, context: _Context) -> str | None:
    """A sentence for a failure to connect or a connection that broke; None if it was neither."""
    import httpx

    chain = list(_chain(exc))
    where = context.where(exc)
    for item in chain:
        if isinstance(item, ConnectionRefusedError) or "connection refused" in str(item).lower():
            return f"Could not connect to {where}: is the server running?"
        if isinstance(item, socket.gaierror) or re.search(
            r"name or service not known|nodename nor servname|getaddrinfo failed|name resolution",
            str(item),
            re.I,
        ):
            return f"Could not find the host of {where}: check the address and your network connection."
        if isinstance(item, ssl.SSLError) or "CERTIFICATE_VERIFY_FAILED" in str(item):
            return (
                f"The secure connection to {where} failed ({_one_line(str(item), 120)}): "
                "check the address, and any proxy that intercepts TLS."
            )
    if any(isinstance(item, httpx.ConnectError) for item in chain):
        # anyio reports a refused connection as "All connection attempts failed".
        return f"Could not connect to {where}: is the server running?"
    broken = next(
        (
            item
            for item in chain
            if isinstance(item, (httpx.TransportError, ConnectionResetError, BrokenPipeError))
        ),
        None,
    )
    if broken is None:
        if any(_sdk_connection_error(item) for item in chain):
            return f"Could not connect to {where}: is the server running?"
        return None
    detail = _one_line(str(broken), 120) or type(broken).__name__
    if any(_sdk_connection_error(item) for item in chain):
        return f"The server at {where} closed the connection before answering ({detail}); try again."
    return f"The connection to {where} was cut off before the answer was complete ({detail}); try again."


def _describe_timeout(exc: BaseException, context: _Context) -> str:
    phase = getattr(exc, "phase", "")
    seconds = getattr(exc, "seconds", None)
    shown = f"{seconds:g} seconds" if isinstance(seconds, (int, float)) else "the time allowed"
    match phase:
        case "connect":
            where = context.where(exc)
            return f"Could not connect to {where} within {shown}: check the address and your network."
        case "first_byte":
            return (
                f"{context.name} sent no response within {shown}: it may be overloaded, "
                "or a local model may still be loading; try again."
            )
        case _:
            return (
                f"{context.name} went silent for {shown} in the middle of the answer, "
                "so it is incomplete; try again."
            )


def _describe_status(exc: BaseException, status: int, context: _Context) -> str:
    reason = getattr(exc, "reason", None) or getattr(exc, "preview", None)
    if not reason:
        # ProviderAuthError keeps the provider's words only in its message: "... HTTP 401: <reason>".
        found = re.search(r"\bHTTP \d{3}: (.+)$", str(exc), re.DOTALL)
        reason = found.group(1) if found else ""
    said = f": {_one_line(reason).rstrip('.')}" if reason else ""
    name = context.name
    if status == 401:
        check = f"check {context.key_hint}" if context.key_hint else "check your API key"
        return f"{name} rejected the API key (401){said}; {check}."
    if status == 403:
        return (
            f"{name} refused access (403){said}; your key may not have access to this model, "
            "so check the model name and your account."
        )
    if status == 404:
        return f"{name} answered 404 (not found){said}; check the model name and the base URL."
    if status == 429:
        return (
            f"{name} is rate limiting requests (429) even after retrying{said}; wait a minute and try again."
        )
    if status == 413:
        return f"{name} says the request is too large (413){said}; the conversation may be too long."
    if status >= 500:
        return (
            f"{name} had a server error (HTTP {status}){said}; this is usually temporary, try again shortly."
        )
    if status == 400:
        return f"{name} rejected the request (400){said}."
    return f"{name} answered HTTP {status}{said}."


def describe_error(
    exc: BaseException,
    *,
    provider: str | None = None,
    key_hint: str | None = None,
    base_url: str | None = None,
    known_secrets: Iterable[str] = (),
) -> str:
    """One line that says what went wrong in a turn and what to do about it.

    Args:
        exc: What the turn raised.
        provider: ``ModelChoice.provider`` for the built-ins (``anthropic``, ``openai``, ``ollama``),
            or an endpoint's name, so the sentence names it.
        key_hint: Where the key comes from (``models.credential_hint``); defaults to the built-in
            provider's variable.
        base_url: Where requests go (``models.base_url_for``), shown when a connection fails;
            otherwise the address is taken from the failed request when known.
        known_secrets: Key values in use, removed from the sentence whatever they look like.
    """
    import json

    from zett_agent.exceptions import AgentIterationLimitError, AgentProtocolError, AgentResumeError
    from zett_agent.providers.base import (
        ProviderAuthError,
        ProviderHTTPError,
        ProviderResponseError,
        ProviderTimeoutError,
    )

    from zett_tui.providers.build import ModelSpecError
    from zett_tui.providers.stream_end import IncompleteStream
    from zett_tui.runtime.history_damage import HistoryUnavailableError

    context = _Context(provider, key_hint, base_url)
    if isinstance(exc, asyncio.CancelledError):
        sentence = "The turn was cancelled."
    elif isinstance(exc, (ModelSpecError, HistoryUnavailableError)):
        sentence = str(exc)
    elif isinstance(exc, AgentIterationLimitError):
        found = re.search(r"\d+", str(exc))
        count = f"{found.group(0)} model calls" if found else "too many model calls"
        sentence = (
            f"The agent stopped after {count} in one turn without finishing (the iteration limit); "
            "send a message to let it continue."
        )
    elif isinstance(exc, ProviderTimeoutError):
        sentence = _describe_timeout(exc, context)
    elif isinstance(exc, ProviderHTTPError) and exc.is_html:
        sentence = _one_line(str(exc), _LINE_LIMIT)
    elif isinstance(exc, (ProviderAuthError, ProviderHTTPError)):
        sentence = _describe_status(exc, _status(exc) or 401, context)
    elif isinstance(exc, IncompleteStream):
        sentence = f"{context.name} {exc.sentence}"
    elif (connection := _describe_connection(exc, context)) is not None:
        sentence = connection
    elif any(isinstance(item, json.JSONDecodeError) for item in _chain(exc)):
        sentence = (
            f"{context.name} sent a malformed chunk (not valid JSON), so the answer is incomplete; "
            "try again, and check the base URL if it keeps happening."
        )
    elif isinstance(exc, ProviderResponseError):
        sentence = f"{context.name} sent a response zett could not use: {_one_line(str(exc))}"
    elif isinstance(exc, AgentProtocolError):
        sentence = f"The model's reply did not follow the protocol: {_one_line(str(exc))}"
    elif isinstance(exc, AgentResumeError):
        sentence = _one_line(str(exc))
    elif isinstance(exc, FileNotFoundError) and (missing := _missing_working_folder()) is not None:
        sentence = (
            f"The project folder {missing} no longer exists, so zett cannot work in it. Restore it, "
            "or quit and start zett in another folder (this session can be resumed there)."
        )
    else:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        sentence = f"Unexpected error: {type(exc).__name__}" + (
            f": {_one_line(first_line)}" if first_line else ""
        )
    return _one_line(redact_secrets(sentence, known_secrets), _LINE_LIMIT)


def _missing_working_folder() -> str | None:
    """The folder zett works in, when it was deleted under it (the tools then fail to find it)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return os.environ.get("PWD") or "zett started in"
    return None


def describe_error_for(
    exc: BaseException,
    choice: ModelChoice,
    endpoints: Mapping[str, EndpointSettings],
    env: Mapping[str, str],
) -> str:
    """:func:`describe_error` with the provider, key and address filled in from the model in use."""
    from zett_tui.core.redact import credential_values
    from zett_tui.providers.build import ModelSpecError, base_url_for, credential_hint

    try:
        base_url = base_url_for(choice, endpoints, env)
    except ModelSpecError:
        base_url = None
    provider = choice.endpoint if choice.provider == "endpoint" and choice.endpoint else choice.provider
    return describe_error(
        exc,
        provider=provider,
        key_hint=credential_hint(choice, endpoints),
        base_url=base_url,
        known_secrets=credential_values(env, endpoints.values()),
    )
