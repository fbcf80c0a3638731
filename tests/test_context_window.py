"""The context window of a local server comes from the server, the config wins, and a guess says so.

The servers are the fake on 127.0.0.1 describing itself the way llama.cpp, vLLM, LM Studio and
Ollama do; a server that answers 404, one that hangs, and a hosted provider (never asked) are
covered, and so is the report of an empty answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.host import Collector, HostFactory
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.ui_helpers import idle, notices, ready_app, submit, wait_for
from zett_tui.entry.launch import LaunchSettings
from zett_tui.providers import server_info
from zett_tui.providers.build import EndpointSettings, ModelChoice, build_model
from zett_tui.providers.context_window import (
    DEFAULT_CONTEXT_WINDOW,
    OLLAMA_CONTEXT_WINDOW,
    describe_context,
    is_guessed_window,
)
from zett_tui.providers.server_info import find_context_window, finding_for, is_local_server
from zett_tui.runtime.events import ModelStopped, Notice
from zett_tui.ui.app import ZettApp

LLAMA_PROPS = {"default_generation_settings": {"n_ctx": 8192, "n_predict": -1}, "total_slots": 1}


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


def endpoint(server: FakeLLMServer, **settings: Any) -> dict[str, EndpointSettings]:
    return {"local": EndpointSettings("local", server.openai_base_url, **settings)}


async def built(choice: ModelChoice, endpoints: dict[str, EndpointSettings]) -> Any:
    """The real provider for ``choice``, built off the loop as the host does (typed loosely for
    ``hosts``, which is typed for scripted models)."""
    return await asyncio.to_thread(build_model, choice, endpoints, {})


# -- what each server says -----------------------------------------------------------------------------


def test_llama_cpp_props_give_the_loaded_context(server: FakeLLMServer) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    found = find_context_window("endpoint", "qwen3", server.openai_base_url)
    assert (found.tokens, found.source, found.guessed) == (8192, "server", False)
    assert server.info_requests == ["GET /props"]  # the root, not /v1/props


def test_vllm_model_list_gives_max_model_len(server: FakeLLMServer) -> None:
    models = {
        "object": "list",
        "data": [{"id": "other", "max_model_len": 4096}, {"id": "qwen3", "max_model_len": 32768}],
    }
    server.serve_info("/v1/models", models)
    found = find_context_window("endpoint", "qwen3", server.openai_base_url)
    assert (found.tokens, found.source) == (32768, "server")
    assert server.info_requests == ["GET /props", "GET /v1/models"]  # /props answered 404


def test_lm_studio_loaded_length_wins_over_the_trained_one(server: FakeLLMServer) -> None:
    entry = {"id": "qwen3", "context_length": 131072, "loaded_context_length": 4096}
    server.serve_info("/v1/models", {"object": "list", "data": [entry]})
    assert find_context_window("endpoint", "qwen3", server.openai_base_url).tokens == 4096


def test_ollama_loaded_model_gives_its_context_length(server: FakeLLMServer) -> None:
    server.serve_info(
        "/api/ps", {"models": [{"name": "qwen3:8b", "model": "qwen3:8b", "context_length": 4096}]}
    )
    found = find_context_window("ollama", "qwen3:8b", server.ollama_base_url)
    assert (found.tokens, found.source) == (4096, "server")
    # /api/show is asked too: its capabilities say whether the model reads images
    assert server.info_requests == ["GET /api/ps", "POST /api/show qwen3:8b"]


def test_ollama_num_ctx_parameter_is_used_when_the_model_is_not_loaded(server: FakeLLMServer) -> None:
    server.serve_info("/api/ps", {"models": []})
    shown = {
        "parameters": 'stop "<|im_end|>"\nnum_ctx 16384',
        "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960},
    }
    server.serve_info("/api/show", shown)
    found = find_context_window("ollama", "qwen3:8b", server.ollama_base_url)
    assert (found.tokens, found.source) == (16384, "server")
    assert server.info_requests == ["GET /api/ps", "POST /api/show qwen3:8b"]


def test_ollama_trained_length_only_caps_the_guess(server: FakeLLMServer) -> None:
    shown = {"parameters": "", "model_info": {"general.architecture": "llama", "llama.context_length": 8192}}
    server.serve_info("/api/show", shown)
    small = find_context_window("ollama", "tiny", server.ollama_base_url)
    assert (small.tokens, small.source) == (8192, "guess")
    shown["model_info"] = {"general.architecture": "llama", "llama.context_length": 131072}
    server.serve_info("/api/show", shown)
    large = find_context_window("ollama", "tiny", server.ollama_base_url)
    assert (large.tokens, large.source) == (OLLAMA_CONTEXT_WINDOW, "guess")


# -- no answer, a hanging server, the config, hosted providers -------------------------------------------


def test_a_server_that_answers_404_leaves_the_guess(server: FakeLLMServer) -> None:
    found = find_context_window("endpoint", "qwen3", server.openai_base_url)
    assert (found.tokens, found.source) == (DEFAULT_CONTEXT_WINDOW, "guess")
    ollama = find_context_window("ollama", "qwen3:8b", server.ollama_base_url)
    assert (ollama.tokens, ollama.source) == (OLLAMA_CONTEXT_WINDOW, "guess")


def test_a_proxy_setting_does_not_divert_the_lookup(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:1")  # nothing listens there
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:1")
    server.serve_info("/props", LLAMA_PROPS)
    assert find_context_window("endpoint", "qwen3", server.openai_base_url).tokens == 8192


def test_a_refused_connection_leaves_the_guess() -> None:
    found = find_context_window("endpoint", "qwen3", "http://127.0.0.1:1/v1")
    assert (found.tokens, found.source) == (DEFAULT_CONTEXT_WINDOW, "guess")


def test_a_hanging_server_costs_at_most_the_timeout(server: FakeLLMServer) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    server.hang_info(30)
    started = time.monotonic()
    found = find_context_window("endpoint", "qwen3", server.openai_base_url, timeout=0.4)
    elapsed = time.monotonic() - started
    assert found.source == "guess"
    assert elapsed < 1.0  # one budget for all the requests, not 0.4 s each


def test_the_configured_window_wins_and_nothing_is_asked(server: FakeLLMServer) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    found = find_context_window("endpoint", "qwen3", server.openai_base_url, configured=6000)
    assert (found.tokens, found.source) == (6000, "configured")
    assert server.info_requests == []


def test_hosted_providers_and_remote_endpoints_are_never_asked(server: FakeLLMServer) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    hosted = find_context_window("openai", "gpt-4o", server.openai_base_url)
    assert (hosted.tokens, hosted.source) == (128_000, "table")
    assert find_context_window("anthropic", "claude-sonnet-5", server.anthropic_base_url).source == "table"
    assert server.info_requests == []
    assert not is_local_server("https://openrouter.ai/api/v1")
    assert not is_local_server("https://api.openai.com/v1")
    for url in (
        "http://127.0.0.1:8080/v1",
        "http://localhost:11434",
        "http://192.168.1.20:1234/v1",
        "http://[::1]:8000",
    ):
        assert is_local_server(url), url


def test_which_windows_are_guesses() -> None:
    assert not is_guessed_window("claude-sonnet-5")
    assert not is_guessed_window("openrouter:anthropic/claude-3.7-sonnet")
    assert is_guessed_window("qwen3")
    assert is_guessed_window("gpt-4o", "ollama")  # Ollama decides the size when it loads a model
    assert is_guessed_window("ollama:qwen3:8b")


def test_the_meter_marks_a_guessed_window() -> None:
    assert describe_context(12, 128_000, estimated=True, window_guessed=True) == "ctx ≈<1% of ~128k"
    assert describe_context(4096, 8192, estimated=False) == "ctx 50% of 8.2k"


# -- the build keeps it, the host and the status line use it --------------------------------------------


def test_build_model_remembers_the_window_of_an_endpoint(server: FakeLLMServer) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    model = build_model(ModelChoice("endpoint", "qwen3", endpoint="local"), endpoint(server), {})
    configured = build_model(
        ModelChoice("endpoint", "qwen3", endpoint="local"), endpoint(server, context_window=4000), {}
    )
    hosted = build_model(ModelChoice("openai", "gpt-4o"), {}, {"OPENAI_API_KEY": "test-key"})
    found, kept = finding_for(model), finding_for(configured)
    assert found is not None and (found.tokens, found.source) == (8192, "server")
    assert kept is not None and (kept.tokens, kept.source) == (4000, "configured")
    assert finding_for(hosted) is None
    assert server.info_requests == ["GET /props"]


async def test_the_host_compacts_by_the_window_the_server_reports(
    server: FakeLLMServer, hosts: HostFactory
) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    choice = ModelChoice("endpoint", "qwen3", endpoint="local")
    model = await built(choice, endpoint(server))
    host = await hosts(model, context_window=DEFAULT_CONTEXT_WINDOW)  # what the launch guessed
    assert host.context_window == 8192
    assert host.compaction is not None and host.compaction.context_window == 8192
    assert not host.context_window_guessed
    measured = await host.estimate_context()
    assert measured.window == 8192


async def test_start_is_not_held_up_by_a_hanging_server(
    server: FakeLLMServer, hosts: HostFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_info, "LOOKUP_TIMEOUT", 0.4)
    server.hang_info(30)
    choice = ModelChoice("endpoint", "qwen3", endpoint="local")
    started = time.monotonic()
    model = await built(choice, endpoint(server))
    host = await hosts(model)
    assert time.monotonic() - started < 2.0
    assert host.context_window == DEFAULT_CONTEXT_WINDOW
    assert host.context_window_guessed


def endpoint_app(server: FakeLLMServer, **settings: Any) -> ZettApp:
    """The app on endpoint ``local`` at ``server``, built by the real ``build_model``."""
    choice = ModelChoice("endpoint", "qwen3", endpoint="local")
    endpoints = endpoint(server, **settings)
    launch = LaunchSettings(
        model_label="local:qwen3",
        model_factory=lambda: build_model(choice, endpoints, {}),
        bell=False,
        context_window=settings.get("context_window") or DEFAULT_CONTEXT_WINDOW,  # the launch's guess
    )
    return ZettApp(launch)


def status_text(app: ZettApp) -> str:
    return str(app.chat.status.render().plain)


async def test_status_line_shows_the_servers_window(server: FakeLLMServer) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    app = endpoint_app(server)
    async with ready_app(app, size=(200, 40)):
        shown = status_text(app)
    assert "of 8.2k" in shown and "128k" not in shown


async def test_status_line_marks_a_guessed_window(server: FakeLLMServer) -> None:
    app = endpoint_app(server)
    async with ready_app(app, size=(200, 40)):
        shown = status_text(app)
    assert "ctx ≈" in shown and "of ~128k" in shown


async def test_status_line_shows_the_configured_window_unmarked(server: FakeLLMServer) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    app = endpoint_app(server, context_window=6000)
    async with ready_app(app, size=(200, 40)):
        shown = status_text(app)
    assert "of 6k" in shown and "~" not in shown


# -- an empty answer is reported ---------------------------------------------------------------------------


async def test_an_empty_answer_cut_by_the_server_is_one_clear_line(
    server: FakeLLMServer, hosts: HostFactory
) -> None:
    server.serve_info("/props", LLAMA_PROPS)
    server.script(Reply.text("", finish="length"))
    choice = ModelChoice("endpoint", "qwen3", endpoint="local")
    model = await built(choice, endpoint(server))
    host = await hosts(model)
    sink = Collector()
    finished = await host.run_turn("a long question", sink)
    said = [event.text for event in sink.of(Notice) if event.level == "warning"]
    assert said == [
        "The model returned an empty answer (finish reason: length). "
        "The server may have cut the request: its context is 8,192 tokens."
    ]
    assert sink.of(ModelStopped) == []  # folded into the line above, not said twice
    assert finished.status == "completed"


async def test_an_empty_answer_from_a_silent_server_says_the_window_is_assumed(server: FakeLLMServer) -> None:
    server.script(Reply.text(""))
    app = endpoint_app(server)
    async with ready_app(app, size=(200, 40)) as pilot:
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: idle(app) and any("empty answer" in text for text in notices(app)))
        [line] = [text for text in notices(app) if "empty answer" in text]
    assert line.startswith("The model returned an empty answer (finish reason: stop).")
    assert "zett assumes 128,000 tokens; set context_window" in line


async def test_a_normal_answer_gets_no_report(server: FakeLLMServer, hosts: HostFactory) -> None:
    server.script(Reply.text("Fine."))
    choice = ModelChoice("endpoint", "qwen3", endpoint="local")
    model = await built(choice, endpoint(server))
    host = await hosts(model)
    sink = Collector()
    await host.run_turn("hello", sink)
    assert sink.text == "Fine."
    assert sink.of(Notice) == []


async def test_the_app_is_ready_within_the_bound_when_the_server_hangs(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_info, "LOOKUP_TIMEOUT", 0.4)
    server.hang_info(30)
    app = endpoint_app(server)
    started = time.monotonic()
    async with ready_app(app, size=(200, 40)):
        waited = time.monotonic() - started
        shown = status_text(app)
    assert waited < 3.0  # the lookup gave up after 0.4 s; the server would have held it 30 s
    assert "of ~128k" in shown
