"""Whether the model reads images: the server says where its protocol allows (Ollama's
``/api/show`` capabilities, llama.cpp's ``/props`` modalities), the endpoint's ``vision`` setting
overrides it, and the name list decides otherwise. A model without vision gets a clear line and
no request at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.test_images_in import labelled_host, png_bytes
from tests.test_providers_wire import NO_RETRY, QUICK_TIMEOUTS, settings_for
from zett_tui.providers.build import ModelChoice, build_model
from zett_tui.providers.server_info import find_context_window


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "shot.png").write_bytes(png_bytes())
    monkeypatch.chdir(root)
    return root


def chat_requests(server: FakeLLMServer) -> list[Any]:
    return server.requests


async def turn(hosts: Any, server: FakeLLMServer, project: Path, choice: ModelChoice, **endpoint: Any) -> Any:
    endpoints, env = settings_for(server.base_url, **endpoint)

    def factory() -> Any:
        return build_model(choice, endpoints, env, retry=NO_RETRY, timeout=QUICK_TIMEOUTS)

    host = await labelled_host(hosts, factory, choice.label, cwd=project)
    return await host.run_turn("what is in @shot.png?", Collector())


async def test_ollama_saying_no_vision_stops_a_model_the_name_list_would_send_to(
    hosts: Any, server: FakeLLMServer, project: Path
) -> None:
    server.serve_info("/api/show", {"capabilities": ["completion", "tools"], "parameters": "num_ctx 8192"})
    server.script(Reply.text("never"))
    finished = await turn(hosts, server, project, ModelChoice("ollama", "llava"))
    assert finished.status == "failed" and "ollama:llava does not read images" in finished.error
    assert chat_requests(server) == []  # nothing was sent


async def test_ollama_saying_vision_sends_to_a_model_the_name_list_calls_text_only(
    hosts: Any, server: FakeLLMServer, project: Path
) -> None:
    server.serve_info("/api/show", {"capabilities": ["completion", "vision"]})
    server.script(Reply.text("a red square"))
    finished = await turn(hosts, server, project, ModelChoice("ollama", "llama3.1-custom"))
    assert finished.status == "completed", finished.error
    (request,) = chat_requests(server)
    assert request.body["messages"][-1].get("images")


async def test_llama_cpp_props_without_vision_stops_the_image(
    hosts: Any, server: FakeLLMServer, project: Path
) -> None:
    server.serve_info(
        "/props", {"default_generation_settings": {"n_ctx": 8192}, "modalities": {"vision": False}}
    )
    server.script(Reply.text("never"))
    finished = await turn(hosts, server, project, ModelChoice("endpoint", "qwen2.5-vl", endpoint="local"))
    assert finished.status == "failed" and "does not read images" in finished.error
    assert chat_requests(server) == []


async def test_the_endpoint_setting_wins_over_the_server_and_the_list(
    hosts: Any, server: FakeLLMServer, project: Path
) -> None:
    server.serve_info("/props", {"modalities": {"vision": True}})
    server.script(Reply.text("never"))
    finished = await turn(
        hosts, server, project, ModelChoice("endpoint", "qwen2.5-vl", endpoint="local"), vision=False
    )
    assert finished.status == "failed" and chat_requests(server) == []

    server.script(Reply.text("seen"))
    finished = await turn(
        hosts, server, project, ModelChoice("endpoint", "coder-model", endpoint="local"), vision=True
    )
    assert finished.status == "completed", finished.error


async def test_a_server_that_says_nothing_leaves_it_to_the_name_list(
    hosts: Any, server: FakeLLMServer, project: Path
) -> None:
    """vLLM and LM Studio say nothing: a name known to be text-only is stopped, an unknown one sent."""
    server.script(Reply.text("never"))
    finished = await turn(hosts, server, project, ModelChoice("endpoint", "qwen2.5-coder", endpoint="local"))
    assert finished.status == "failed" and chat_requests(server) == []
    server.script(Reply.text("maybe"))
    finished = await turn(hosts, server, project, ModelChoice("endpoint", "mystery-model", endpoint="local"))
    assert finished.status == "completed", finished.error


def test_findings_say_what_each_server_said(server: FakeLLMServer) -> None:
    server.serve_info("/api/show", {"capabilities": ["completion", "vision"]})
    assert find_context_window("ollama", "m", server.base_url).vision is True
    server.serve_info("/api/show", {"parameters": "num_ctx 4096"})  # an Ollama before capabilities
    assert find_context_window("ollama", "m", server.base_url).vision is None
    server.serve_info("/props", {"modalities": {"vision": True, "audio": False}})
    assert find_context_window("endpoint", "m", f"{server.base_url}/v1").vision is True
    server.serve_info("/props", {"modalities": {"vision": "yes"}})  # not a boolean: not an answer
    assert find_context_window("endpoint", "m", f"{server.base_url}/v1").vision is None


async def test_a_refusal_after_images_to_an_unknown_model_says_it_may_not_read_them(
    hosts: Any, server: FakeLLMServer, project: Path
) -> None:
    server.script(Reply.error(400, "image input is not supported by this model"))
    finished = await turn(hosts, server, project, ModelChoice("endpoint", "mystery-model", endpoint="local"))
    assert finished.status == "failed"
    assert "(400)" in finished.error and "This model may not read images" in finished.error

    server.script(Reply.error(400, "bad request"))  # no image: no hint
    endpoints, env = settings_for(server.base_url)

    def factory() -> Any:
        return build_model(
            ModelChoice("endpoint", "mystery-model", endpoint="local"), endpoints, env, retry=NO_RETRY
        )

    host = await labelled_host(hosts, factory, "local:mystery-model", cwd=project)
    plain = await host.run_turn("just text", Collector())
    assert plain.status == "failed" and "may not read images" not in plain.error
