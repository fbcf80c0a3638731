"""Choosing a model: specs, defaults, credentials, reasoning levels and provider construction."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from zett_agent.model import AgentModel, ReasoningEffort, RetryOptions, TimeoutOptions

from zett_tui.providers.build import (
    DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_OPENAI_MODEL,
    DEMO_CHOICE,
    EndpointSettings,
    MissingCredentialsError,
    ModelChoice,
    ModelSpecError,
    base_url_for,
    build_model,
    credential_hint,
    default_model_choice,
    missing_credentials,
    normalize_ollama_host,
    parse_model_spec,
    reasoning_effort_for,
)
from zett_tui.providers.demo import DemoModel

LOCAL = EndpointSettings("local", base_url="http://127.0.0.1:8000/v1")
VAULT = EndpointSettings("vault", base_url="https://llm.example.test/v1", api_key_env="VAULT_KEY")
ENDPOINTS = {"local": LOCAL, "vault": VAULT}


# -- specs ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("anthropic:claude-opus-4-6", ModelChoice("anthropic", "claude-opus-4-6")),
        ("openai:gpt-5.4-mini", ModelChoice("openai", "gpt-5.4-mini")),
        ("ollama:qwen3:8b", ModelChoice("ollama", "qwen3:8b")),
        ("  Anthropic : claude-haiku-4-5 ", ModelChoice("anthropic", "claude-haiku-4-5")),
        ("anthropic", ModelChoice("anthropic", DEFAULT_ANTHROPIC_MODEL)),
        ("openai", ModelChoice("openai", DEFAULT_OPENAI_MODEL)),
        ("demo", DEMO_CHOICE),
        ("local:qwen3-coder", ModelChoice("endpoint", "qwen3-coder", endpoint="local")),
        ("vault:org/model:latest", ModelChoice("endpoint", "org/model:latest", endpoint="vault")),
    ],
)
def test_parse_model_spec(spec: str, expected: ModelChoice) -> None:
    assert parse_model_spec(spec, ENDPOINTS) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "No model given; use anthropic:MODEL"),
        ("gpt-5", "Unknown model 'gpt-5'; use anthropic:MODEL, openai:MODEL, ollama:MODEL, demo"),
        ("claude-sonnet-5", "Did you mean anthropic:claude-sonnet-5?"),
        ("lmstudio:qwen", "Unknown provider or endpoint 'lmstudio' in 'lmstudio:qwen'"),
        ("ollama", "Ollama needs a model name; use ollama:MODEL"),
        ("local:", "Endpoint 'local' needs a model name; use local:MODEL."),
        ("demo:fast", "The demo model takes no model name"),
    ],
)
def test_bad_specs_explain_the_valid_forms(spec: str, message: str) -> None:
    with pytest.raises(ModelSpecError) as raised:
        parse_model_spec(spec, ENDPOINTS)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_unknown_provider_lists_configured_endpoints() -> None:
    with pytest.raises(ModelSpecError, match=r"configured: local, vault\)"):
        parse_model_spec("lmstudio:qwen", ENDPOINTS)
    with pytest.raises(ModelSpecError, match=r"none configured"):
        parse_model_spec("lmstudio:qwen", {})


def test_labels_and_specs_round_trip() -> None:
    choices = [
        ModelChoice("anthropic", "claude-sonnet-4-5"),
        ModelChoice("ollama", "qwen3:8b"),
        ModelChoice("endpoint", "qwen3", endpoint="local"),
        DEMO_CHOICE,
    ]
    assert [choice.label for choice in choices] == [
        "anthropic:claude-sonnet-4-5",
        "ollama:qwen3:8b",
        "local:qwen3",
        "demo (offline demo model)",
    ]
    assert all(parse_model_spec(choice.spec, ENDPOINTS) == choice for choice in choices)
    assert DEMO_CHOICE.is_demo and not choices[0].is_demo


# -- defaults and credentials -----------------------------------------------------------------------------


def test_configured_spec_wins_over_keys() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
    assert default_model_choice("ollama:qwen3", ENDPOINTS, env) == ModelChoice("ollama", "qwen3")


def test_default_follows_the_keys_that_are_set() -> None:
    both = {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}
    assert default_model_choice(None, {}, both) == ModelChoice("anthropic", DEFAULT_ANTHROPIC_MODEL)
    assert default_model_choice("", {}, {"OPENAI_API_KEY": "o"}) == ModelChoice(
        "openai", DEFAULT_OPENAI_MODEL
    )
    assert default_model_choice(None, {}, {"ANTHROPIC_API_KEY": "  ", "OPENAI_API_KEY": ""}) is None
    assert default_model_choice(None, {}, {}) is None


def test_a_bad_configured_spec_is_reported() -> None:
    with pytest.raises(ModelSpecError):
        default_model_choice("nonsense:model", ENDPOINTS, {})


def test_missing_credentials_names_the_variable() -> None:
    anthropic = ModelChoice("anthropic", "claude-sonnet-5")
    message = missing_credentials(anthropic, ENDPOINTS, {})
    assert message is not None
    assert "set ANTHROPIC_API_KEY" in message
    assert missing_credentials(anthropic, ENDPOINTS, {"ANTHROPIC_API_KEY": "secret"}) is None
    assert "set OPENAI_API_KEY" in (missing_credentials(ModelChoice("openai", "gpt-5"), {}, {}) or "")


def test_keyless_providers_need_nothing() -> None:
    assert missing_credentials(ModelChoice("ollama", "qwen3"), {}, {}) is None
    assert missing_credentials(DEMO_CHOICE, {}, {}) is None
    assert missing_credentials(ModelChoice("endpoint", "qwen3", endpoint="local"), ENDPOINTS, {}) is None


def test_endpoint_key_variable_must_be_set() -> None:
    vault = ModelChoice("endpoint", "m", endpoint="vault")
    message = missing_credentials(vault, ENDPOINTS, {})
    assert message is not None
    assert "Endpoint 'vault' reads its API key from VAULT_KEY, which is not set" in message
    assert missing_credentials(vault, ENDPOINTS, {"VAULT_KEY": "secret"}) is None


def test_unknown_endpoint_is_reported_as_missing_configuration() -> None:
    message = missing_credentials(ModelChoice("endpoint", "m", endpoint="gone"), ENDPOINTS, {})
    assert message is not None
    assert "No endpoint named 'gone' is configured" in message


def test_credential_hints() -> None:
    assert credential_hint(ModelChoice("openai", "m"), {}) == "OPENAI_API_KEY"
    assert credential_hint(ModelChoice("endpoint", "m", endpoint="vault"), ENDPOINTS) == "VAULT_KEY"
    assert credential_hint(ModelChoice("endpoint", "m", endpoint="local"), ENDPOINTS) == (
        "the api_key of endpoint 'local'"
    )
    assert credential_hint(ModelChoice("ollama", "m"), {}) is None


def test_a_literal_key_never_appears_in_a_repr() -> None:
    settings = EndpointSettings("local", base_url="http://127.0.0.1:8000/v1", api_key="sk-literal-secret-123")
    assert "sk-literal-secret-123" not in repr(settings)
    assert "sk-literal-secret-123" not in repr(ModelChoice("endpoint", "m", endpoint="local"))


# -- addresses ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "url"),
    [
        (None, "http://127.0.0.1:11434"),
        ("", "http://127.0.0.1:11434"),
        ("gpu-box", "http://gpu-box:11434"),
        ("gpu-box:9000", "http://gpu-box:9000"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("0.0.0.0:11500", "http://127.0.0.1:11500"),
        ("http://gpu-box:9000/", "http://gpu-box:9000"),
        ("https://ollama.example.test", "https://ollama.example.test"),
        ("http://[::1]:11434", "http://[::1]:11434"),
        ("gpu-box:9000/ollama", "http://gpu-box:9000/ollama"),
    ],
)
def test_normalize_ollama_host(value: str | None, url: str) -> None:
    assert normalize_ollama_host(value) == url


def test_a_bad_ollama_port_is_a_clear_error() -> None:
    with pytest.raises(ModelSpecError, match="OLLAMA_HOST 'gpu-box:port' has an invalid port"):
        normalize_ollama_host("gpu-box:port")


def test_base_urls_follow_the_environment() -> None:
    env = {"OPENAI_BASE_URL": "http://proxy.test/v1", "OLLAMA_HOST": "gpu-box:9000"}
    assert base_url_for(ModelChoice("openai", "m"), {}, env) == "http://proxy.test/v1"
    assert base_url_for(ModelChoice("anthropic", "m"), {}, env) == "https://api.anthropic.com"
    assert base_url_for(ModelChoice("ollama", "m"), {}, env) == "http://gpu-box:9000"
    assert base_url_for(ModelChoice("endpoint", "m", endpoint="local"), ENDPOINTS, env) == LOCAL.base_url
    assert base_url_for(DEMO_CHOICE, {}, env) is None


@pytest.mark.parametrize("variable", ["OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"])
@pytest.mark.parametrize("value", ["not a url", "127.0.0.1:8080/v1", "ftp://host/v1", "http://"])
def test_a_base_url_variable_that_is_no_http_url_is_a_clear_error(variable: str, value: str) -> None:
    """Not "the server closed the connection" at the first request: said as a config file's is."""
    provider = "openai" if variable.startswith("OPENAI") else "anthropic"
    with pytest.raises(ModelSpecError, match=f"^{variable}: expected an http:// or https:// URL"):
        base_url_for(ModelChoice(provider, "m"), {}, {variable: value})


# -- reasoning ---------------------------------------------------------------------------------------------


def test_reasoning_defaults_per_provider() -> None:
    assert reasoning_effort_for(ModelChoice("anthropic", "m"), {}) is ReasoningEffort.MEDIUM
    assert reasoning_effort_for(ModelChoice("openai", "m"), {}) is ReasoningEffort.MEDIUM
    assert reasoning_effort_for(ModelChoice("ollama", "m"), {}) is ReasoningEffort.OFF
    assert (
        reasoning_effort_for(ModelChoice("endpoint", "m", endpoint="local"), ENDPOINTS) is ReasoningEffort.OFF
    )


def test_configured_endpoint_effort_and_override() -> None:
    thinking = {"local": EndpointSettings("local", base_url="http://x/v1", reasoning_effort="High")}
    choice = ModelChoice("endpoint", "m", endpoint="local")
    assert reasoning_effort_for(choice, thinking) is ReasoningEffort.HIGH
    assert reasoning_effort_for(choice, thinking, override="none") is ReasoningEffort.OFF
    assert reasoning_effort_for(ModelChoice("ollama", "m"), {}, override="low") is ReasoningEffort.LOW
    assert reasoning_effort_for(ModelChoice("openai", "m"), {}, override="  ") is ReasoningEffort.MEDIUM


def test_effort_names_are_the_runtimes_levels_in_order() -> None:
    from zett_tui.providers.build import REASONING_EFFORTS

    assert tuple(level.value for level in ReasoningEffort) == REASONING_EFFORTS


def test_invalid_effort_names_the_valid_levels() -> None:
    with pytest.raises(
        ModelSpecError, match="Unknown reasoning effort 'extreme'; use one of: off, minimal, low"
    ):
        reasoning_effort_for(ModelChoice("openai", "m"), {}, override="extreme")
    broken = {"local": EndpointSettings("local", base_url="http://x/v1", reasoning_effort="lots")}
    with pytest.raises(ModelSpecError, match="'lots'"):
        reasoning_effort_for(ModelChoice("endpoint", "m", endpoint="local"), broken)


# -- construction --------------------------------------------------------------------------------------------


async def test_build_model_makes_each_provider() -> None:
    from zett_agent.providers.anthropic import AnthropicProvider
    from zett_agent.providers.ollama import OllamaProvider
    from zett_agent.providers.openai import OpenAIProvider
    from zett_agent.providers.openai_compatible import OpenAICompatibleProvider

    from zett_tui.providers.messages_stream import ZettAnthropicProvider
    from zett_tui.providers.plain_messages import PlainMessagesCompatibleProvider, PlainMessagesOpenAIProvider

    env = {
        "ANTHROPIC_API_KEY": "sk-ant-unit",
        "OPENAI_API_KEY": "sk-unit",
        "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
        "OLLAMA_HOST": "127.0.0.1:2",
    }
    retry = RetryOptions(base_delay=0, max_delay=0, max_retries=0)
    timeout = TimeoutOptions(connect=1, first_byte=1, idle=1)
    built = {
        provider: build_model(parse_model_spec(spec, ENDPOINTS), ENDPOINTS, env, retry=retry, timeout=timeout)
        for provider, spec in [
            ("anthropic", "anthropic:claude-x"),
            ("openai", "openai:gpt-x"),
            ("endpoint", "local:qwen"),
            ("ollama", "ollama:qwen3"),
            ("demo", "demo"),
        ]
    }
    try:
        assert type(built["anthropic"]) is ZettAnthropicProvider and isinstance(
            built["anthropic"], AnthropicProvider
        )
        assert type(built["openai"]) is PlainMessagesOpenAIProvider and isinstance(
            built["openai"], OpenAIProvider
        )
        assert type(built["endpoint"]) is PlainMessagesCompatibleProvider
        assert isinstance(built["endpoint"], OpenAICompatibleProvider)
        assert type(built["ollama"]) is OllamaProvider
        assert type(built["demo"]) is DemoModel
        assert all(isinstance(model, AgentModel) for model in built.values())
        assert all(model.retry == retry for name, model in built.items() if name != "demo")
        assert built["ollama"].timeout == timeout
        assert str(built["openai"]._client.base_url) == "http://127.0.0.1:1/v1/"
        assert built["anthropic"]._endpoint.url == "https://api.anthropic.com/v1/messages"
        assert built["endpoint"].send_prompt_cache_key is False
        assert all("sk-" not in repr(model) for model in built.values())
    finally:
        for model in built.values():
            await model.aclose()  # type: ignore[attr-defined]


def test_build_model_refuses_without_a_key() -> None:
    with pytest.raises(MissingCredentialsError, match="set OPENAI_API_KEY"):
        build_model(ModelChoice("openai", "gpt-5"), {}, {})
    with pytest.raises(MissingCredentialsError, match="VAULT_KEY"):
        build_model(ModelChoice("endpoint", "m", endpoint="vault"), ENDPOINTS, {})
    with pytest.raises(ModelSpecError, match="No endpoint named 'gone'"):
        build_model(ModelChoice("endpoint", "m", endpoint="gone"), ENDPOINTS, {})


def test_importing_models_loads_no_sdk_or_runtime() -> None:
    code = (
        "import sys, zett_tui.providers.build\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('openai', 'anthropic', 'ollama', 'httpx',"
        " 'textual', 'zett_agent')]\n"
        "print(heavy)"
    )
    root = Path(__file__).resolve().parent.parent
    output = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert output.stdout.strip() == "[]"


def test_build_model_loads_the_sdk_code_a_request_needs() -> None:
    """build_model runs in a thread; the SDK's lazy imports must happen there, not on the UI loop.
    Neither SDK is imported at all: zett sends Chat Completions and Messages requests itself."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from zett_tui.providers.build import ModelChoice, EndpointSettings, build_model\n"
        "build_model(ModelChoice('openai', 'gpt-x'), {}, {'OPENAI_API_KEY': 'k'})\n"
        "local = {'local': EndpointSettings('local', base_url='http://127.0.0.1:9/v1', context_window=8000)}\n"
        "build_model(ModelChoice('endpoint', 'q', endpoint='local'), local, {})\n"
        "print('openai' in sys.modules)\n"
        "build_model(ModelChoice('anthropic', 'claude-x'), {}, {'ANTHROPIC_API_KEY': 'k'})\n"
        "print('anthropic' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["False", "False"], result.stderr


def test_a_responses_model_s_sdk_is_loaded_by_build_model_not_at_the_first_request() -> None:
    """``[web] search`` talks the Responses API through the openai SDK, which zett's provider builds
    on demand: the warm-up thread builds it, so its imports stay off the event loop."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from zett_tui.providers.build import _load_lazy_sdk_code\n"
        "from zett_tui.providers.plain_messages import PlainMessagesOpenAIProvider\n"
        "_load_lazy_sdk_code(PlainMessagesOpenAIProvider('gpt-x', api_key='k'))\n"
        "print('openai' in sys.modules)\n"
        "_load_lazy_sdk_code(PlainMessagesOpenAIProvider('gpt-x', api_key='k', response=True))\n"
        "print('openai.resources.responses' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["False", "True"], result.stderr
