"""The real provider classes, built by ``build_model``, against the fake server on 127.0.0.1.

Each test runs a real zett-agent Agent over the wire and checks what the user would see: the
streamed text, the tool round trip, or the one-line sentence ``describe_error_for`` gives for a
failure. Retries have no delay, and the only waits are fractions of a second.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from zett_agent.agent import Agent
from zett_agent.extensions import FileSystemExtension
from zett_agent.extensions.memory import InMemoryMessageAccumulator
from zett_agent.model import ModelUsage, RetryOptions, TimeoutOptions

from tests.fakes.llm_server import FakeLLMServer, RecordedRequest, Reply
from zett_tui.providers.build import EndpointSettings, ModelChoice, build_model, reasoning_effort_for
from zett_tui.providers.errors import describe_error_for

NO_RETRY = RetryOptions(base_delay=0, max_delay=0, max_retries=0)
ONE_QUICK_RETRY = RetryOptions(base_delay=0, max_delay=0, max_retries=1)
TWO_QUICK_RETRIES = RetryOptions(base_delay=0, max_delay=0, max_retries=2)
QUICK_TIMEOUTS = TimeoutOptions(connect=2.0, first_byte=5.0, idle=0.5)

CHOICES = {
    "openai": ModelChoice("openai", "gpt-test"),
    "anthropic": ModelChoice("anthropic", "claude-test"),
    "endpoint": ModelChoice("endpoint", "qwen-test", endpoint="local"),
    "ollama": ModelChoice("ollama", "llama-test"),
}
PROVIDERS = list(CHOICES)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


@pytest.fixture(autouse=True)
def in_tmp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def settings_for(base: str, **endpoint: Any) -> tuple[dict[str, EndpointSettings], dict[str, str]]:
    """Endpoints and environment that point every provider at ``base`` (``http://127.0.0.1:PORT``)."""
    endpoints = {"local": EndpointSettings("local", base_url=f"{base}/v1", **endpoint)}
    env = {
        "OPENAI_API_KEY": "sk-test-openai-0000",
        "OPENAI_BASE_URL": f"{base}/v1",
        "ANTHROPIC_API_KEY": "sk-ant-test-0000",
        "ANTHROPIC_BASE_URL": base,
        "OLLAMA_HOST": base,
    }
    return endpoints, env


@dataclass
class Turn:
    text: str = ""
    reasoning: str = ""
    completed_tools: list[str] = field(default_factory=list)
    usage: list[ModelUsage] = field(default_factory=list)
    error: BaseException | None = None
    sentence: str = ""


async def run_turn(
    provider: str,
    base: str,
    *,
    prompt: str = "What is in this folder?",
    retry: RetryOptions = NO_RETRY,
    timeout: TimeoutOptions = QUICK_TIMEOUTS,
    **endpoint: Any,
) -> Turn:
    """One user turn through a real Agent; failures are caught and described, as the app does."""
    choice = CHOICES[provider]
    endpoints, env = settings_for(base, **endpoint)
    model = build_model(choice, endpoints, env, retry=retry, timeout=timeout)
    turn = Turn()
    try:
        agent = await Agent.create(
            model,
            extensions=[InMemoryMessageAccumulator(), FileSystemExtension(read_only=True)],
            reasoning_effort=reasoning_effort_for(choice, endpoints),
        )
        async for event in agent.stream(prompt):
            if event.type == "text_delta":
                turn.text += event.delta
            elif event.type == "reasoning_delta":
                turn.reasoning += event.delta
            elif event.type == "tool_completed":
                turn.completed_tools.extend(call.name for call in event.tool_calls)
            elif event.type == "model_completed" and event.response is not None:
                turn.usage.append(event.response.usage)
    except Exception as error:
        turn.error = error
        turn.sentence = describe_error_for(error, choice, endpoints, env)
    finally:
        await model.aclose()  # type: ignore[attr-defined]
    return turn


def tool_results(request: RecordedRequest) -> list[str]:
    """The tool results a request sends back to the model, in that protocol's shape."""
    messages = request.body["messages"]
    if request.protocol == "anthropic":
        return [
            str(block["content"])
            for message in messages
            if isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
    return [str(message["content"]) for message in messages if message["role"] == "tool"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- answers -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_streamed_answer_arrives_whole(provider: str, server: FakeLLMServer) -> None:
    answer = "Hello **world**: this answer was streamed in many small pieces."
    server.script(Reply.text(answer, chunk=5, reasoning="Let me think about it."))

    turn = await run_turn(provider, server.base_url)

    assert turn.error is None, turn.sentence
    assert turn.text == answer
    assert turn.reasoning == "Let me think about it."
    assert turn.usage[0].input_tokens > 0
    assert turn.usage[0].output_tokens > 0
    assert [request.protocol for request in server.requests] == [
        "anthropic" if provider == "anthropic" else "ollama" if provider == "ollama" else "openai"
    ]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_tool_call_round_trip_sends_the_result_back(provider: str, server: FakeLLMServer) -> None:
    server.script(
        Reply.tool_call("glob", {"pattern": "*"}, text="Let me look."),
        Reply.text("There is a notes file."),
    )

    turn = await run_turn(provider, server.base_url)

    assert turn.error is None, turn.sentence
    assert turn.completed_tools == ["glob"]
    assert turn.text == "Let me look.There is a notes file."
    first, second = server.requests
    assert tool_results(first) == []
    [result] = tool_results(second)
    assert "notes.txt" in result
    assert "pyproject.toml" in result


# -- what is sent --------------------------------------------------------------------------------------


async def test_endpoint_gets_no_reasoning_effort_and_no_cache_key(server: FakeLLMServer) -> None:
    turn = await run_turn("endpoint", server.base_url)

    assert turn.error is None, turn.sentence
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert "reasoning_effort" not in request.body
    assert "prompt_cache_key" not in request.body
    assert request.headers["authorization"] == "Bearer unused"


async def test_endpoint_sends_its_configured_reasoning_effort_and_key(server: FakeLLMServer) -> None:
    turn = await run_turn("endpoint", server.base_url, reasoning_effort="high", api_key="local-secret")

    assert turn.error is None, turn.sentence
    [request] = server.requests
    assert request.body["reasoning_effort"] == "high"
    assert request.headers["authorization"] == "Bearer local-secret"


async def test_openai_gets_medium_effort_and_its_key(server: FakeLLMServer) -> None:
    await run_turn("openai", server.base_url)

    [request] = server.requests
    assert request.body["reasoning_effort"] == "medium"
    assert request.body["model"] == "gpt-test"
    assert request.headers["authorization"] == "Bearer sk-test-openai-0000"


async def test_openai_gets_the_organization_and_project_from_the_environment_and_an_endpoint_not(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """zett sends the request itself (``chat_request``), as the openai SDK did: the account
    variables go to OpenAI, never to a configured endpoint (a local server, someone else's gateway)."""
    monkeypatch.setenv("OPENAI_ORG_ID", "org-test-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-test-2")
    await run_turn("openai", server.base_url)
    await run_turn("endpoint", server.base_url)

    to_openai, to_endpoint = server.requests
    assert to_openai.headers["openai-organization"] == "org-test-1"
    assert to_openai.headers["openai-project"] == "proj-test-2"
    assert to_openai.headers["content-type"] == "application/json"
    assert "openai-organization" not in to_endpoint.headers
    assert "openai-project" not in to_endpoint.headers
    assert to_endpoint.path == "/v1/chat/completions"


async def test_a_chat_session_never_imports_the_openai_sdk(server: FakeLLMServer) -> None:
    """~35 MB of pydantic types a Chat Completions session has no use for (``chat_request``); only
    the stand-in ``openai.resources`` (``sdk_resources``) is there, which imports nothing."""
    script = (
        "import asyncio, sys\n"
        "from tests.test_providers_wire import run_turn\n"
        "turn = asyncio.run(run_turn('openai', sys.argv[1]))\n"
        "print(turn.text, turn.error, 'openai' in sys.modules)\n"
    )
    server.script(Reply.text("Hello there."))
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", script, server.base_url], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "Hello there. None False", result.stderr


async def test_anthropic_gets_adaptive_thinking_and_its_key(server: FakeLLMServer) -> None:
    await run_turn("anthropic", server.base_url)

    [request] = server.requests
    assert request.path == "/v1/messages"
    assert request.body["thinking"] == {"type": "adaptive"}
    assert request.body["output_config"] == {"effort": "medium"}
    assert request.headers["x-api-key"] == "sk-ant-test-0000"


async def test_an_anthropic_session_never_imports_the_anthropic_sdk(server: FakeLLMServer) -> None:
    """~17 MB of pydantic types a Messages session has no use for: ``messages_request`` sends the
    request with httpx and ``messages_stream`` reads the answer."""
    script = (
        "import asyncio, sys\n"
        "from tests.test_providers_wire import run_turn\n"
        "turn = asyncio.run(run_turn('anthropic', sys.argv[1]))\n"
        "print(turn.text, turn.error, 'anthropic' in sys.modules)\n"
    )
    server.script(Reply.text("Hello there."))
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", script, server.base_url], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "Hello there. None False", result.stderr


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_whole_print_mode_session_imports_neither_sdk(
    provider: str, server: FakeLLMServer, tmp_path: Path
) -> None:
    """``zett -p`` end to end (config, session store, hooks, the turn, the exit), not just a turn:
    nothing on the way imports a provider SDK."""
    server.script(Reply.text("Hello there."))
    _, provider_env = settings_for(server.base_url)
    home = tmp_path / "home"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
        **provider_env,
    }
    code = (
        "import atexit, runpy, sys\n"
        "atexit.register(lambda: print('SDKs', 'openai' in sys.modules, 'anthropic' in sys.modules))\n"
        f"sys.argv = ['zett', '-p', 'hi', '--model', '{provider}:model-test']\n"
        "runpy.run_module('zett_tui', run_name='__main__', alter_sys=True)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["Hello", "there.", "SDKs", "False", "False"], result.stderr


def _as_the_sdk_sends(provider_class: type) -> type:
    """``provider_class`` with zett-agent's own client, request and close: the request through the SDK."""
    from zett_agent.providers.anthropic import AnthropicProvider
    from zett_agent.providers.anthropic_compatible import AnthropicCompatibleProvider

    class ThroughTheSDK(provider_class):  # type: ignore[misc, valid-type]
        _client = None  # zett-agent's __init__ sets it (zett's class has a lazy property there)
        __init__ = AnthropicProvider.__init__
        _open = AnthropicCompatibleProvider._open
        aclose = AnthropicCompatibleProvider.aclose

    return ThroughTheSDK


@pytest.mark.parametrize("variant", ["plain", "extras", "bearer"])
async def test_messages_request_sends_what_the_sdk_sent(
    variant: str, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """zett sends the Messages request with httpx (``messages_request``): the server gets the same
    URL, query, headers and body as through the anthropic SDK, for a tool round trip whose thinking
    block the server then refuses (``400 ... bound to a different conversation``: sent once more
    without it), with the provider's extra headers, query and body, and with bearer auth."""
    from zett_tui.providers import messages_stream

    class Bearer(messages_stream.ZettAnthropicProvider):
        bearer_auth = True

    extras: dict[str, Any] = {}
    if variant == "extras":
        extras = {
            "extra_headers": {"anthropic-beta": "context-1m-2025-08-07", "X-Gateway": "team-a"},
            "extra_query": {"tenant": "t1"},
            "extra_body": {"metadata": {"user_id": "u1"}},
        }
    ours_class = Bearer if variant == "bearer" else messages_stream.ZettAnthropicProvider
    prompt = 'Qu\'y a-t-il ici ? 🗂\nTwo lines, a tab\tand "quotes".'
    sent = []
    for provider_class in (ours_class, _as_the_sdk_sends(ours_class)):

        def build(*args: Any, provider_class: type = provider_class, **kwargs: Any) -> Any:
            return provider_class(*args, **kwargs, **extras)

        monkeypatch.setattr(messages_stream, "ZettAnthropicProvider", build)
        server.script(
            Reply("tool_call", content="Looking.", reasoning="Which files?", tool_name="glob",
                  arguments={"pattern": "*"}),
            Reply.error(400, "messages.1.content.0: The block is bound to a different conversation."),
            Reply.text("Done."),
        )  # fmt: skip
        turn = await run_turn("anthropic", server.base_url, prompt=prompt)
        assert turn.error is None, turn.sentence
        assert turn.text == "Looking.Done."
        requests = server.requests[-3:]
        sent.append(
            [
                (
                    request.path,
                    {k: v for k, v in request.headers.items() if not k.startswith(SDK_ONLY_HEADERS)},
                    request.body,
                )
                for request in requests
            ]
        )
        if provider_class is ours_class:
            assert not any(key.startswith("x-stainless-") for key in requests[0].headers), "sent by the SDK"
    ours, theirs = sent
    assert ours == theirs
    first, refused, again = ours
    assert first[1]["anthropic-version"] == "2023-06-01"
    assert any(block.get("type") == "thinking" for block in refused[2]["messages"][1]["content"])
    assert not any(block.get("type") == "thinking" for block in again[2]["messages"][1]["content"])
    if variant == "extras":
        assert first[0] == "/v1/messages?tenant=t1"
        assert first[1]["anthropic-beta"] == "context-1m-2025-08-07"
        assert first[2]["metadata"] == {"user_id": "u1"}
    if variant == "bearer":
        assert first[1]["authorization"] == "Bearer sk-ant-test-0000"


async def test_ollama_is_asked_not_to_think(server: FakeLLMServer) -> None:
    await run_turn("ollama", server.base_url)

    [request] = server.requests
    assert request.path == "/api/chat"
    assert request.body["think"] is False
    assert request.body["model"] == "llama-test"


# -- failures ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        ("openai", "OpenAI rejected the API key (401): Incorrect API key provided; check OPENAI_API_KEY."),
        (
            "anthropic",
            "Anthropic rejected the API key (401): Incorrect API key provided; check ANTHROPIC_API_KEY.",
        ),
        (
            "endpoint",
            "Endpoint 'local' rejected the API key (401): Incorrect API key provided; check the api_key",
        ),
        ("ollama", "Ollama rejected the API key (401): Incorrect API key provided; check your API key."),
    ],
)
async def test_401_names_the_key_to_check(provider: str, expected: str, server: FakeLLMServer) -> None:
    server.script(Reply.error(401))

    turn = await run_turn(provider, server.base_url)

    assert turn.sentence.startswith(expected)
    assert "sk-test" not in turn.sentence and "sk-ant" not in turn.sentence
    assert len(server.requests) == 1, "a rejected key is not retried"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_403_says_access_is_refused(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.error(403, "This key cannot use claude-test."))

    turn = await run_turn(provider, server.base_url)

    assert "refused access (403): This key cannot use claude-test;" in turn.sentence
    assert "check the model name" in turn.sentence


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_429_after_retries_says_wait(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.error(429), Reply.error(429), Reply.error(429))

    turn = await run_turn(provider, server.base_url, retry=TWO_QUICK_RETRIES)

    assert "rate limiting requests (429) even after retrying" in turn.sentence
    assert "wait a minute and try again" in turn.sentence
    assert len(server.requests) == 3
    assert server.pending == 0


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_500_after_retries_is_a_server_error(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.error(500), Reply.error(503))

    turn = await run_turn(provider, server.base_url, retry=ONE_QUICK_RETRY)

    assert "had a server error (HTTP 503): Service unavailable;" in turn.sentence
    assert len(server.requests) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_400_shows_the_providers_reason(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.error(400, "Unrecognized request argument supplied: reasoning_effort"))

    turn = await run_turn(provider, server.base_url)

    assert turn.sentence.endswith(
        "rejected the request (400): Unrecognized request argument supplied: reasoning_effort."
    )


@pytest.mark.parametrize("provider", ["endpoint", "anthropic"])
async def test_a_proxy_web_page_is_recognised(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.error(502, html=True))

    turn = await run_turn(provider, server.base_url)

    assert "answered HTTP 502 with a web page" in turn.sentence
    assert "<html" not in turn.sentence


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_connection_refused_names_the_address(provider: str) -> None:
    base = f"http://127.0.0.1:{closed_port()}"

    turn = await run_turn(provider, base)

    shown = {"openai": f"{base}/v1", "endpoint": f"{base}/v1"}.get(provider, base)
    assert turn.sentence == f"Could not connect to {shown}: is the server running?"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_connection_dropped_mid_stream(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.drop_after(3, "One two three four five six seven eight nine ten.", chunk=4))

    turn = await run_turn(provider, server.base_url)

    assert turn.text == "One two thre", "the three 4-character chunks before the drop were shown"
    assert "was cut off before the answer was complete" in turn.sentence
    assert "try again" in turn.sentence
    assert len(server.requests) == 1, "a stream that has shown text is never replayed"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_malformed_chunk(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.malformed_after(2))

    turn = await run_turn(provider, server.base_url)

    assert turn.error is not None
    assert "sent a malformed chunk (not valid JSON), so the answer is incomplete" in turn.sentence


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_short_stall_is_waited_out(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.stall(0.1, after_chunks=2, text="Slow but complete."))

    turn = await run_turn(provider, server.base_url)

    assert turn.error is None, turn.sentence
    assert turn.text == "Slow but complete."


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
async def test_a_stall_longer_than_the_idle_timeout(provider: str, server: FakeLLMServer) -> None:
    server.script(Reply.stall(3.0, after_chunks=1))

    impatient = TimeoutOptions(connect=2.0, first_byte=5.0, idle=0.2)
    turn = await run_turn(provider, server.base_url, timeout=impatient)

    assert "went silent for 0.2 seconds in the middle of the answer, so it is incomplete" in turn.sentence
    assert len(server.requests) == 1, "a silent provider is not asked again"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_no_headers_within_the_first_byte_limit(provider: str, server: FakeLLMServer) -> None:
    """zett's own request (``streamed_request``) is given up on as the SDK's was, and not sent again."""
    server.script(Reply.stall(3.0, before_headers=True))

    impatient = TimeoutOptions(connect=2.0, first_byte=0.3, idle=5.0)
    turn = await run_turn(provider, server.base_url, timeout=impatient, retry=ONE_QUICK_RETRY)

    assert "sent no response within 0.3 seconds" in turn.sentence
    assert len(server.requests) == 1, "a silent provider is not asked again"


def test_a_header_given_again_replaces_the_default_whatever_its_case() -> None:
    """A gateway's ``x-api-key`` in the provider's headers replaces ``X-Api-Key``: one is sent, not both."""
    from zett_tui.providers.messages_request import messages_endpoint

    endpoint = messages_endpoint(
        "http://127.0.0.1:9/", "sk-ant-a", {"x-api-key": "gateway-b", "ANTHROPIC-VERSION": "2099-01-01"}, {},
        bearer=False,
    )  # fmt: skip
    sent = {name.lower(): value for name, value in endpoint.headers.items()}
    assert len(sent) == len(endpoint.headers)
    assert sent["x-api-key"] == "gateway-b" and sent["anthropic-version"] == "2099-01-01"
    assert endpoint.url == "http://127.0.0.1:9/v1/messages"


# -- the process form of the fake server ----------------------------------------------------------------


def test_server_runs_as_a_process_with_a_script(tmp_path: Path) -> None:
    import subprocess
    import sys
    import urllib.request

    script = tmp_path / "script.json"
    script.write_text(json.dumps([Reply.text("scripted answer", chunk=4).to_json()]))
    log = tmp_path / "requests.jsonl"
    root = Path(__file__).resolve().parent.parent
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakes.llm_server",
            "--port",
            "0",
            "--script",
            str(script),
            "--requests-log",
            str(log),
        ],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        base = process.stdout.readline().strip()
        assert base.startswith("http://127.0.0.1:")
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True})
        request = urllib.request.Request(
            f"{base}/v1/chat/completions", data=body.encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            stream = response.read().decode()
        pieces = [
            json.loads(line[6:])["choices"][0]["delta"].get("content", "")
            for line in stream.splitlines()
            if line.startswith("data: {")
        ]
        assert "".join(pieces) == "scripted answer"
        assert stream.rstrip().endswith("data: [DONE]")
        assert json.loads(log.read_text().splitlines()[0])["body"]["messages"][0]["content"] == "hi"
    finally:
        process.terminate()
        assert process.wait(timeout=5) == 0
        if process.stdout is not None:
            process.stdout.close()


@pytest.mark.parametrize(
    ("provider", "shipped"), [("openai", "OpenAIProvider"), ("endpoint", "OpenAICompatibleProvider")]
)
async def test_messages_sent_past_the_sdk_transform_are_the_same_bytes(
    provider: str, shipped: str, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """zett's providers put the messages in ``extra_body`` (``runtime/plain_messages.py``): the body
    the server gets must equal what zett-agent's own provider sends through the SDK's transform."""
    import zett_agent.providers.openai as openai_module
    import zett_agent.providers.openai_compatible as compatible_module

    from zett_tui.providers import plain_messages

    prompt = 'Qu\'y a-t-il ici ? 🗂\nTwo lines, a tab\tand "quotes".'
    untransformed: list[int] = []
    fields = plain_messages.PlainMessagesCompatibleProvider.request_fields

    def spy(self: Any, request: Any) -> Any:
        result = fields(self, request)
        untransformed.append(len(result["messages"]))
        return result

    monkeypatch.setattr(plain_messages.PlainMessagesCompatibleProvider, "request_fields", spy)
    bodies = []
    for original in (False, True):
        server.script(Reply.tool_call("glob", {"pattern": "*"}, text="Looking."), Reply.text("Done."))
        if original:
            module = openai_module if provider == "openai" else compatible_module
            name = (
                "PlainMessagesOpenAIProvider" if provider == "openai" else "PlainMessagesCompatibleProvider"
            )
            monkeypatch.setattr(plain_messages, name, getattr(module, shipped))
        turn = await run_turn(provider, server.base_url, prompt=prompt)
        assert turn.error is None, turn.sentence
        # the cache key is the conversation's own id: it differs between the two runs
        bodies.append([{**request.body, "prompt_cache_key": None} for request in server.requests[-2:]])
    ours, theirs = bodies
    assert len(untransformed) == 2 and untransformed[1] >= 3  # our run sent them past the transform
    assert ours == theirs
    assert any(message.get("content") == prompt for message in ours[1]["messages"])


#: What the SDKs add to every request of their own accord: their version and the machine's.
SDK_ONLY_HEADERS = ("user-agent", "x-stainless-")
#: Sent by the SDK to any server; zett sends them to OpenAI only (``sends_openai_account``).
OPENAI_ACCOUNT_HEADERS = ("openai-organization", "openai-project")


def _comparable_headers(request: RecordedRequest, *, account: bool) -> dict[str, str]:
    left_out = SDK_ONLY_HEADERS if account else (*SDK_ONLY_HEADERS, *OPENAI_ACCOUNT_HEADERS)
    return {name: value for name, value in request.headers.items() if not name.startswith(left_out)}


@pytest.mark.parametrize("provider", ["openai", "endpoint"])
async def test_zetts_providers_take_and_send_what_zett_agents_own_take_and_send(
    provider: str, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PlainMessages*Provider.__init__`` does what zett-agent's does without building the SDK
    client (``providers/plain_messages.py``): the same parameters, the same refusals, and, built
    with the same options, the same request on the wire (path, query, headers, body) but the
    SDK's own telemetry headers."""
    import inspect

    from zett_agent.messages import SystemMessage, UserMessage
    from zett_agent.model import ModelRequest
    from zett_agent.providers.openai import OpenAIProvider
    from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

    from zett_tui.providers.plain_messages import PlainMessagesCompatibleProvider, PlainMessagesOpenAIProvider

    theirs, ours = (
        (OpenAIProvider, PlainMessagesOpenAIProvider)
        if provider == "openai"
        else (OpenAICompatibleProvider, PlainMessagesCompatibleProvider)
    )

    def parameters(cls: type) -> list[tuple[str, Any, Any]]:
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values()]

    assert parameters(ours) == parameters(theirs), "zett-agent's constructor changed: update plain_messages"
    for wrong in (
        {"api_key": ""},
        {"base_url": None} if provider == "endpoint" else {"response": "yes"},
        {"extra_query": {"q": 3}},
        {"extra_body": {"b": object()}},
        {"retry": "x"},
        {"timeout": "x"},
    ):
        arguments = {"model": "m", "api_key": "k", "base_url": server.openai_base_url, **wrong}
        refusals = []
        for cls in (theirs, ours):
            with pytest.raises(ValueError) as refused:
                cls(**arguments)
            refusals.append(str(refused.value))
        assert refusals[0] == refusals[1], wrong

    monkeypatch.setenv("OPENAI_ORG_ID", "org-test")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-test")
    options: dict[str, Any] = {
        "api_key": "sk-test-0000",
        "base_url": server.openai_base_url,
        "temperature": 0.5,
        "retry": RetryOptions(max_retries=0),
        "send_prompt_cache_key": True,
        "extra_headers": {"X-Team": "blue"},
        "extra_query": {"api-version": "2"},
        "extra_body": {"top_k": 3},
        "timeout": QUICK_TIMEOUTS,
    }
    request = ModelRequest(
        messages=[SystemMessage(content="be brief"), UserMessage(content="hi")], cache_key="conversation-1"
    )
    sent: list[RecordedRequest] = []
    for cls in (theirs, ours):
        server.script(Reply.text("Done."))
        built = cls(model="m", **options)
        try:
            events = [event.type async for event in built.stream(request)]
        finally:
            await built.aclose()
        assert "text_delta" in events
        sent.append(server.requests[-1])
    upstream, zett = sent
    assert zett.path == upstream.path == "/v1/chat/completions?api-version=2"
    assert zett.body == upstream.body
    assert zett.body["top_k"] == 3 and zett.body["prompt_cache_key"] == "conversation-1"
    account = provider == "openai"
    assert _comparable_headers(zett, account=account) == _comparable_headers(upstream, account=account)
    assert zett.headers["x-team"] == "blue" and zett.headers["authorization"] == "Bearer sk-test-0000"
    assert ("openai-organization" in zett.headers) is account


def test_zetts_anthropic_provider_takes_and_refuses_what_zett_agents_own_does(server: FakeLLMServer) -> None:
    """``ZettAnthropicProvider.__init__`` does what zett-agent's does without building the SDK
    client (``providers/messages_stream.py``): the same parameters and the same refusals. What it
    sends is checked on the wire above (``test_messages_request_sends_what_the_sdk_sent``)."""
    import inspect

    from zett_agent.providers.anthropic import AnthropicProvider

    from zett_tui.providers.messages_stream import ZettAnthropicProvider

    def parameters(cls: type) -> list[tuple[str, Any, Any]]:
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values()]

    assert parameters(ZettAnthropicProvider) == parameters(AnthropicProvider), (
        "zett-agent's constructor changed: update ZettAnthropicProvider.__init__"
    )
    for wrong in (
        {"api_key": ""},
        {"base_url": ""},
        {"response": True},
        {"response": "yes"},
        {"retry": "x"},
        {"timeout": "x"},
        {"prompt_cache": "yes"},
        {"max_tokens": 0},
        {"max_tokens": True},
        {"extra_headers": {"X-A": 1}},
        {"extra_query": {"q": 3}},
        {"extra_body": {"b": object()}},
    ):
        arguments = {"model": "m", "api_key": "k", "base_url": server.base_url, **wrong}
        refusals = []
        for cls in (AnthropicProvider, ZettAnthropicProvider):
            with pytest.raises(ValueError) as refused:
                cls(**arguments)
            refusals.append(str(refused.value))
        assert refusals[0] == refusals[1], wrong
