"""describe_error: one human line per failure, never a traceback, never a key.

The same sentences are checked end to end, through the real providers, in test_providers_wire.py;
here each shape of exception is built by hand, including the ones a loopback server cannot produce.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl

import httpx
import pytest
from zett_agent.exceptions import AgentIterationLimitError, AgentProtocolError
from zett_agent.providers.base import (
    ProviderAuthError,
    ProviderHTTPError,
    ProviderResponseError,
    ProviderTimeoutError,
)

from zett_tui.providers.build import EndpointSettings, ModelChoice, ModelSpecError
from zett_tui.providers.errors import describe_error, describe_error_for, redact_secrets

REQUEST = httpx.Request("POST", "http://127.0.0.1:8765/v1/chat/completions")


def chained(outer: BaseException, *inner: BaseException) -> BaseException:
    """``outer`` raised from ``inner[0]``, raised from ``inner[1]``, and so on."""
    current = outer
    for cause in inner:
        current.__cause__ = cause
        current = cause
    return outer


def http_error(status: int, reason: str | None = "The reason.") -> ProviderHTTPError:
    return ProviderHTTPError(f"openai returned HTTP {status}: {reason}", status_code=status, reason=reason)


# -- HTTP answers --------------------------------------------------------------------------------------------


def test_401_names_the_variable_of_the_provider() -> None:
    error = ProviderAuthError(
        "Provider rejected API credential. anthropic returned HTTP 401: invalid x-api-key"
    )
    assert describe_error(error, provider="anthropic") == (
        "Anthropic rejected the API key (401): invalid x-api-key; check ANTHROPIC_API_KEY."
    )
    assert describe_error(error, provider="local", key_hint="LOCAL_KEY") == (
        "Endpoint 'local' rejected the API key (401): invalid x-api-key; check LOCAL_KEY."
    )
    assert describe_error(error).startswith("The provider rejected the API key (401)")


def test_ollama_403_arrives_as_an_auth_error_but_reads_as_access() -> None:
    error = ProviderAuthError("Provider rejected API credential. ollama returned HTTP 403: forbidden")
    assert describe_error(error, provider="ollama").startswith("Ollama refused access (403): forbidden;")


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (403, "OpenAI refused access (403): The reason; your key may not have access to this model"),
        (404, "OpenAI answered 404 (not found): The reason; check the model name and the base URL."),
        (429, "OpenAI is rate limiting requests (429) even after retrying: The reason; wait a minute"),
        (413, "OpenAI says the request is too large (413): The reason;"),
        (500, "OpenAI had a server error (HTTP 500): The reason; this is usually temporary"),
        (529, "OpenAI had a server error (HTTP 529)"),
        (400, "OpenAI rejected the request (400): The reason."),
        (422, "OpenAI answered HTTP 422: The reason."),
    ],
)
def test_status_codes(status: int, expected: str) -> None:
    assert describe_error(http_error(status), provider="openai").startswith(expected)


def test_a_status_without_a_reason_uses_the_body_preview() -> None:
    error = ProviderHTTPError("x", status_code=400, reason=None, preview="unexpected field 'think'")
    assert describe_error(error) == "The provider rejected the request (400): unexpected field 'think'."


def test_a_web_page_keeps_the_runtime_explanation() -> None:
    message = 'openai answered HTTP 502 with a web page ("Bad Gateway") instead of an API response. Check it.'
    error = ProviderHTTPError(message, status_code=502, preview="Bad Gateway", is_html=True)
    assert describe_error(error) == message


# -- connections ------------------------------------------------------------------------------------------


def test_refused_connection_from_the_openai_sdk() -> None:
    import openai

    error = chained(
        openai.APIConnectionError(request=REQUEST),
        httpx.ConnectError("All connection attempts failed", request=REQUEST),
        ConnectionRefusedError(111, "Connect call failed"),
    )
    assert describe_error(error) == "Could not connect to http://127.0.0.1:8765: is the server running?"
    assert describe_error(error, base_url="http://127.0.0.1:8765/v1") == (
        "Could not connect to http://127.0.0.1:8765/v1: is the server running?"
    )


def test_refused_connection_wrapped_by_the_anthropic_adapter() -> None:
    import anthropic

    error = chained(
        ProviderResponseError("anthropic request failed: Connection error."),
        anthropic.APIConnectionError(request=REQUEST),
        httpx.ConnectError("All connection attempts failed"),
    )
    assert describe_error(error, provider="anthropic") == (
        "Could not connect to http://127.0.0.1:8765: is the server running?"
    )


def test_refused_connection_from_ollama_without_a_request() -> None:
    error = httpx.ConnectError("All connection attempts failed")
    assert (
        describe_error(error, provider="ollama")
        == "Could not connect to the provider: is the server running?"
    )


def test_unknown_host() -> None:
    error = chained(httpx.ConnectError("[Errno -2] Name or service not known"), socket.gaierror(-2, "Name"))
    assert describe_error(error, base_url="https://llm.invalid/v1") == (
        "Could not find the host of https://llm.invalid/v1: check the address and your network connection."
    )


def test_certificate_problem() -> None:
    error = chained(httpx.ConnectError("tls"), ssl.SSLCertVerificationError(1, "CERTIFICATE_VERIFY_FAILED"))
    sentence = describe_error(error, base_url="https://gpu-box:8443/v1")
    assert sentence.startswith("The secure connection to https://gpu-box:8443/v1 failed (")
    assert "proxy that intercepts TLS" in sentence


def test_stream_cut_in_the_middle() -> None:
    error = httpx.RemoteProtocolError("peer closed connection without sending complete message body")
    assert describe_error(error, provider="openai", base_url="https://api.openai.com/v1") == (
        "The connection to https://api.openai.com/v1 was cut off before the answer was complete "
        "(peer closed connection without sending complete message body); try again."
    )
    assert "cut off" in describe_error(httpx.ReadError("Connection reset by peer"))


def test_server_hung_up_before_answering() -> None:
    import openai

    error = chained(
        openai.APIConnectionError(request=REQUEST),
        httpx.RemoteProtocolError("Server disconnected without sending a response."),
    )
    assert describe_error(error) == (
        "The server at http://127.0.0.1:8765 closed the connection before answering "
        "(Server disconnected without sending a response.); try again."
    )


def test_server_hung_up_before_answering_zett_s_own_request() -> None:
    """zett sends its requests itself (``streamed_request``): its wrapper reads the same."""
    from zett_tui.providers.streamed_request import RequestConnectionError

    error = chained(
        RequestConnectionError(REQUEST),
        httpx.RemoteProtocolError("Server disconnected without sending a response."),
    )
    assert describe_error(error) == (
        "The server at http://127.0.0.1:8765 closed the connection before answering "
        "(Server disconnected without sending a response.); try again."
    )


# -- timeouts, malformed streams, the agent ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "expected"),
    [
        ("connect", "Could not connect to http://h:1 within 5 seconds: check the address and your network."),
        ("first_byte", "OpenAI sent no response within 60 seconds: it may be overloaded, or a local model"),
        (
            "idle",
            "OpenAI went silent for 0.5 seconds in the middle of the answer, so it is incomplete; try again.",
        ),
    ],
)
def test_timeouts(phase: str, expected: str) -> None:
    seconds = {"connect": 5.0, "first_byte": 60.0, "idle": 0.5}[phase]
    error = ProviderTimeoutError("timed out", phase=phase, seconds=seconds)
    assert describe_error(error, provider="openai", base_url="http://h:1").startswith(expected)


def test_malformed_chunk_raw_and_wrapped() -> None:
    raw = json.JSONDecodeError("Unterminated string", '{"a": "b', 6)
    wrapped = chained(ProviderResponseError("ollama answered with something that is not JSON lines"), raw)
    for error in (raw, wrapped):
        assert describe_error(error, provider="ollama").startswith(
            "Ollama sent a malformed chunk (not valid JSON), so the answer is incomplete"
        )


def test_empty_stream_and_other_response_errors_keep_the_runtime_words() -> None:
    error = ProviderResponseError("openai ended the stream without sending any data (HTTP 200, text/plain).")
    assert describe_error(error, provider="openai") == (
        "OpenAI sent a response zett could not use: openai ended the stream without sending any data "
        "(HTTP 200, text/plain)."
    )


def test_iteration_limit() -> None:
    error = AgentIterationLimitError("Agent exceeded 36 model iterations")
    assert describe_error(error) == (
        "The agent stopped after 36 model calls in one turn without finishing (the iteration limit); "
        "send a message to let it continue."
    )


def test_protocol_spec_and_cancel() -> None:
    assert describe_error(AgentProtocolError("no final response")).startswith(
        "The model's reply did not follow the protocol: no final response"
    )
    assert describe_error(ModelSpecError("Unknown model 'x'; use demo.")) == "Unknown model 'x'; use demo."
    assert describe_error(asyncio.CancelledError()) == "The turn was cancelled."


# -- anything else, and secrets ---------------------------------------------------------------------------


def test_unexpected_errors_show_type_and_first_line_only() -> None:
    error = RuntimeError("boom happened\n  File 'x.py', line 3\nTraceback details")
    assert describe_error(error) == "Unexpected error: RuntimeError: boom happened"
    assert describe_error(KeyError()) == "Unexpected error: KeyError"


def test_long_messages_are_one_short_line() -> None:
    sentence = describe_error(ValueError("word " * 500))
    assert "\n" not in sentence
    assert len(sentence) <= 400
    assert sentence.endswith("…")


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-abcdefghijklmnop1234",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
        "AKIAABCDEFGHIJKLMNOP",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "AIzaSyA1234567890abcdefghijklmnopqrstu",
    ],
)
def test_keys_are_redacted_everywhere(secret: str) -> None:
    assert secret not in describe_error(RuntimeError(f"failed with {secret} in it"))
    assert secret not in describe_error(http_error(400, f"bad key {secret}"))
    assert "[redacted key]" in redact_secrets(f"key {secret}")


def test_assignments_and_bearer_tokens_are_redacted() -> None:
    text = redact_secrets('api_key="hunter2-long" Authorization: Bearer abc.def-ghi_123 password=swordfish')
    assert "hunter2" not in text and "abc.def" not in text and "swordfish" not in text
    assert text == 'api_key="[redacted]" Authorization: Bearer [redacted] password=[redacted]'
    assert redact_secrets("Incorrect API key provided: sk-abc12345***wxyz.").startswith(
        "Incorrect API key provided: [redacted key]"
    )


def test_ordinary_text_is_left_alone() -> None:
    text = "Could not read /home/me/project/src/main.py: token count 12 exceeds limit"
    assert redact_secrets(text) == text


def test_describe_error_for_fills_in_the_model() -> None:
    endpoints = {
        "local": EndpointSettings("local", base_url="http://127.0.0.1:8000/v1", api_key_env="LOCAL_KEY")
    }
    choice = ModelChoice("endpoint", "qwen3", endpoint="local")
    auth = ProviderAuthError("Provider rejected API credential. openai returned HTTP 401: nope")
    assert describe_error_for(auth, choice, endpoints, {}) == (
        "Endpoint 'local' rejected the API key (401): nope; check LOCAL_KEY."
    )
    refused = httpx.ConnectError("All connection attempts failed")
    assert describe_error_for(refused, choice, endpoints, {}) == (
        "Could not connect to http://127.0.0.1:8000/v1: is the server running?"
    )
    gone = ModelChoice("endpoint", "qwen3", endpoint="gone")
    assert describe_error_for(refused, gone, endpoints, {}) == (
        "Could not connect to the provider: is the server running?"
    )


def test_the_keys_in_use_are_removed_whatever_they_look_like() -> None:
    endpoints = {"local": EndpointSettings("local", base_url="http://x/v1", api_key="plain-words-key")}
    env = {"OPENAI_API_KEY": "opaque0123456789"}
    error = RuntimeError("the server echoed plain-words-key and opaque0123456789 back")
    for choice in (ModelChoice("endpoint", "m", endpoint="local"), ModelChoice("openai", "m")):
        sentence = describe_error_for(error, choice, endpoints, env)
        assert "opaque0123456789" not in sentence
    sentence = describe_error_for(error, ModelChoice("endpoint", "m", endpoint="local"), endpoints, env)
    assert (
        sentence == "Unexpected error: RuntimeError: the server echoed [redacted key] and [redacted key] back"
    )
