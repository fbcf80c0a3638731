"""Every test runs with its own config, data and state folders and no provider keys."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_KEY_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OLLAMA_HOST",
    "ZETT_MODEL",
    "ZETT_THEME",
    "ZETT_REASONING_EFFORT",
    "NO_COLOR",
)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for name, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    for name in _KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TZ", "UTC")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return home


@pytest.fixture
def project_dir() -> Path:
    return Path(os.getcwd())


@pytest.fixture
def llm_server():
    """A fake OpenAI/Anthropic/Ollama streaming server on 127.0.0.1."""
    from tests.fakes.llm_server import FakeLLMServer

    with FakeLLMServer() as server:
        yield server
