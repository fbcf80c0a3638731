"""Which model zett talks to, and how the provider object for it is built.

A model is named by a spec string (``--model`` or the ``model`` setting):

- ``anthropic:MODEL``, ``openai:MODEL``, ``ollama:MODEL``: the built-in providers
  (``anthropic`` or ``openai`` alone picks that provider's default model);
- ``NAME:MODEL``: an OpenAI-compatible server configured by name (vLLM, LM Studio, llama.cpp, …);
- ``demo``: the offline demo model, which needs no key and no network.

Everything here is plain data and functions. The runtime and the provider SDKs are imported only
inside the functions that need them, so importing this module stays cheap (the CLI parses a spec
before the first frame). API keys are read from the environment
passed in, never stored on a :class:`ModelChoice`, and never put in a message or a repr.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from zett_tui.providers.efforts import EFFORT_ALIASES, REASONING_EFFORTS

if TYPE_CHECKING:
    from zett_agent.model import AgentModel, ReasoningEffort, RetryOptions, TimeoutOptions

__all__ = [
    "BUILTIN_PROVIDERS",
    "DEFAULT_ANTHROPIC_MODEL",
    "DEFAULT_OLLAMA_URL",
    "DEFAULT_OPENAI_MODEL",
    "DEMO_CHOICE",
    "EndpointSettings",
    "MissingCredentialsError",
    "ModelChoice",
    "ModelSpecError",
    "base_url_for",
    "build_model",
    "credential_hint",
    "default_model_choice",
    "missing_credentials",
    "normalize_ollama_host",
    "parse_model_spec",
    "parse_reasoning_effort",
    "reasoning_effort_for",
]

#: Model used for ``anthropic`` without a model name, and when only ANTHROPIC_API_KEY is set.
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5"
#: Model used for ``openai`` without a model name, and when only OPENAI_API_KEY is set.
DEFAULT_OPENAI_MODEL = "gpt-5.5"
DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
_OLLAMA_PORT = 11434

#: Provider names a spec can start with. A configured endpoint may not use one of them as its name.
BUILTIN_PROVIDERS = ("anthropic", "openai", "ollama", "demo")
#: The environment variable that holds each built-in provider's key.
_KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
_URL_VARIABLES = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}
_DEFAULT_MODELS = {"anthropic": DEFAULT_ANTHROPIC_MODEL, "openai": DEFAULT_OPENAI_MODEL}


class ModelSpecError(ValueError):
    """A model spec or model setting that cannot be used. The message is one sentence for the user."""


class MissingCredentialsError(ModelSpecError):
    """The chosen model needs an API key that is not set. The message says which one to set."""


@dataclass(frozen=True)
class ModelChoice:
    """A model the user picked: which provider, which model name, and for an endpoint, which one."""

    provider: str
    model: str
    endpoint: str | None = None

    @property
    def label(self) -> str:
        """What the status line shows, e.g. ``anthropic:claude-sonnet-5`` or ``local:qwen3``."""
        return "demo (offline demo model)" if self.is_demo else self.spec

    @property
    def spec(self) -> str:
        """The spec that selects this model again (``parse_model_spec(choice.spec) == choice``)."""
        if self.is_demo:
            return "demo"
        prefix = self.endpoint if self.provider == "endpoint" and self.endpoint else self.provider
        return f"{prefix}:{self.model}"

    @property
    def is_demo(self) -> bool:
        return self.provider == "demo"


#: The offline demo model.
DEMO_CHOICE = ModelChoice("demo", "demo")


@dataclass(frozen=True)
class EndpointSettings:
    """An OpenAI-compatible server defined by name in the config (``NAME:MODEL`` selects it).

    Attributes:
        name: What the user types before the colon.
        base_url: The API root, usually ending in ``/v1`` (``http://127.0.0.1:8000/v1``).
        api_key: A literal key. Discouraged: prefer ``api_key_env``. Never shown in a repr.
        api_key_env: The name of an environment variable that holds the key.
        reasoning_effort: The level to send, or None to send none: many local servers reject
            the field or the model cannot reason.
        send_prompt_cache_key: Whether to send ``prompt_cache_key``; strict servers reject it.
        context_window: The server's context window in tokens, when the user knows it; None
            lets ``context_window.context_window_for`` guess from the model name.
        vision: Whether the server's model reads images, when the user knows it; None lets the
            server say (llama.cpp does) or the model name decide (``core.images.vision_support``).
    """

    name: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    api_key_env: str | None = None
    reasoning_effort: str | None = None
    send_prompt_cache_key: bool = False
    context_window: int | None = None
    vision: bool | None = None


# -- parsing --------------------------------------------------------------------------------------


def _valid_forms(endpoints: Mapping[str, EndpointSettings]) -> str:
    forms = "anthropic:MODEL, openai:MODEL, ollama:MODEL, demo, or NAME:MODEL for a configured endpoint"
    if endpoints:
        return f"{forms} (configured: {', '.join(sorted(endpoints))})"
    return f"{forms} (none configured)"


def _guess(spec: str) -> str:
    """A likely provider for a bare model name, as a hint; empty when there is no good guess."""
    lowered = spec.lower()
    if lowered.startswith("claude"):
        return f" Did you mean anthropic:{spec}?"
    if lowered.startswith(("gpt-", "o1", "o3", "o4", "chatgpt")):
        return f" Did you mean openai:{spec}?"
    return ""


def parse_model_spec(spec: str, endpoints: Mapping[str, EndpointSettings]) -> ModelChoice:
    """Read a model spec such as ``anthropic:claude-sonnet-5``, ``ollama:qwen3:8b`` or ``local:qwen3``.

    Only the first colon separates the provider, so model names may contain colons (Ollama tags).
    Built-in provider names are matched without regard to case and win over an endpoint of the
    same name; endpoint names are matched exactly.

    Raises:
        ModelSpecError: For an empty spec, a missing model name, or an unknown provider.
    """
    text = spec.strip()
    if not text:
        raise ModelSpecError(f"No model given; use {_valid_forms(endpoints)}.")
    prefix, colon, model = text.partition(":")
    prefix, model = prefix.strip(), model.strip()
    provider = prefix.lower()
    if provider == "demo":
        if model and model != "demo":
            raise ModelSpecError(f"The demo model takes no model name; use just 'demo', not '{text}'.")
        return DEMO_CHOICE
    if provider in _DEFAULT_MODELS:
        return ModelChoice(provider, model or _DEFAULT_MODELS[provider])
    if provider == "ollama":
        if not model:
            raise ModelSpecError("Ollama needs a model name; use ollama:MODEL, e.g. ollama:qwen3.")
        return ModelChoice("ollama", model)
    if prefix in endpoints:
        if not model:
            raise ModelSpecError(f"Endpoint '{prefix}' needs a model name; use {prefix}:MODEL.")
        return ModelChoice("endpoint", model, endpoint=prefix)
    if not colon:
        raise ModelSpecError(f"Unknown model '{text}'; use {_valid_forms(endpoints)}.{_guess(text)}")
    raise ModelSpecError(
        f"Unknown provider or endpoint '{prefix}' in '{text}'; use {_valid_forms(endpoints)}."
    )


def _env_value(env: Mapping[str, str], name: str | None) -> str | None:
    """The value of ``name`` in ``env``, with an empty or blank value treated as unset."""
    if not name:
        return None
    value = env.get(name, "").strip()
    return value or None


def _env_url(env: Mapping[str, str], name: str) -> str | None:
    """The URL in variable ``name``, checked as a config file's ``base_url`` is (None when unset)."""
    from zett_tui.config.converters import InvalidValue, convert_base_url

    value = _env_value(env, name)
    if value is None:
        return None
    try:
        return convert_base_url(value)
    except InvalidValue as error:
        raise ModelSpecError(f"{name}: {error}") from None


def default_model_choice(
    configured: str | None, endpoints: Mapping[str, EndpointSettings], env: Mapping[str, str]
) -> ModelChoice | None:
    """The model to start with: the configured spec, else whichever provider has a key in ``env``.

    Anthropic is preferred when both keys are set. Returns None when nothing is configured and no
    key is set; the caller then offers the demo model.

    Raises:
        ModelSpecError: If ``configured`` is not a valid spec.
    """
    if configured and configured.strip():
        return parse_model_spec(configured, endpoints)
    if _env_value(env, "ANTHROPIC_API_KEY"):
        return ModelChoice("anthropic", DEFAULT_ANTHROPIC_MODEL)
    if _env_value(env, "OPENAI_API_KEY"):
        return ModelChoice("openai", DEFAULT_OPENAI_MODEL)
    return None


def _endpoint(choice: ModelChoice, endpoints: Mapping[str, EndpointSettings]) -> EndpointSettings:
    settings = endpoints.get(choice.endpoint or "")
    if settings is None:
        names = ", ".join(sorted(endpoints)) or "none"
        raise ModelSpecError(
            f"No endpoint named '{choice.endpoint}' is configured (configured: {names}); "
            "add it to config.toml with at least a base_url."
        )
    return settings


def credential_hint(choice: ModelChoice, endpoints: Mapping[str, EndpointSettings]) -> str | None:
    """Where the key for ``choice`` comes from, for error messages (``ANTHROPIC_API_KEY``), or None."""
    if choice.provider in _KEY_VARIABLES:
        return _KEY_VARIABLES[choice.provider]
    if choice.provider == "endpoint":
        settings = endpoints.get(choice.endpoint or "")
        if settings is None:
            return None
        if settings.api_key_env:
            return settings.api_key_env
        return f"the api_key of endpoint '{settings.name}'"
    return None


def missing_credentials(
    choice: ModelChoice, endpoints: Mapping[str, EndpointSettings], env: Mapping[str, str]
) -> str | None:
    """None when ``choice`` can be used as configured; otherwise one sentence saying what to set."""
    if choice.provider in _KEY_VARIABLES:
        variable = _KEY_VARIABLES[choice.provider]
        if _env_value(env, variable):
            return None
        return (
            f"{choice.label} needs an API key: set {variable} in your environment, "
            "or pick another model with --model (for example demo)."
        )
    if choice.provider == "endpoint":
        try:
            settings = _endpoint(choice, endpoints)
        except ModelSpecError as error:
            return str(error)
        if settings.api_key_env and not _env_value(env, settings.api_key_env) and not settings.api_key:
            return (
                f"Endpoint '{settings.name}' reads its API key from {settings.api_key_env}, "
                f"which is not set; set {settings.api_key_env}, or change api_key_env for this endpoint "
                "in config.toml."
            )
    return None


# -- addresses --------------------------------------------------------------------------------------


def normalize_ollama_host(value: str | None) -> str:
    """Turn an ``OLLAMA_HOST`` value into a URL, the way the Ollama tools read it.

    ``host``, ``host:port``, ``:port`` and full URLs are accepted; a missing scheme means http and
    a missing port (without a scheme) means 11434. ``0.0.0.0`` is where a server *listens*, so a
    client connects to 127.0.0.1 instead.
    """
    text = (value or "").strip().rstrip("/")
    if not text:
        return DEFAULT_OLLAMA_URL
    has_scheme = "://" in text
    parts = urlsplit(text if has_scheme else f"http://{text}")
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    try:
        port = parts.port
    except ValueError as error:
        raise ModelSpecError(
            f"OLLAMA_HOST '{text}' has an invalid port; use host:port, e.g. 127.0.0.1:11434."
        ) from error
    if port is None and not has_scheme:
        port = _OLLAMA_PORT
    shown_host = f"[{host}]" if ":" in host else host
    netloc = f"{shown_host}:{port}" if port is not None else shown_host
    return urlunsplit((parts.scheme or "http", netloc, parts.path.rstrip("/"), "", ""))


def base_url_for(
    choice: ModelChoice, endpoints: Mapping[str, EndpointSettings], env: Mapping[str, str]
) -> str | None:
    """The API root requests for ``choice`` go to, or None for the demo model."""
    match choice.provider:
        case "anthropic":
            return _env_url(env, "ANTHROPIC_BASE_URL") or DEFAULT_ANTHROPIC_URL
        case "openai":
            return _env_url(env, "OPENAI_BASE_URL") or DEFAULT_OPENAI_URL
        case "ollama":
            return normalize_ollama_host(env.get("OLLAMA_HOST"))
        case "endpoint":
            return _endpoint(choice, endpoints).base_url
        case _:
            return None


# -- reasoning ---------------------------------------------------------------------------------------


def reasoning_effort_name(value: str) -> str:
    """Read a reasoning level name (``off``, ``low``, ``medium``, ``high``, …; ``none`` means off).

    Raises:
        ModelSpecError: For a name that is not a level.
    """
    text = value.strip().lower()
    text = EFFORT_ALIASES.get(text, text)
    if text not in REASONING_EFFORTS:
        names = ", ".join(REASONING_EFFORTS)
        raise ModelSpecError(f"Unknown reasoning effort '{value.strip()}'; use one of: {names}.")
    return text


def parse_reasoning_effort(value: str) -> ReasoningEffort:
    """:func:`reasoning_effort_name` as the runtime's enum."""
    from zett_agent.model import ReasoningEffort

    return ReasoningEffort(reasoning_effort_name(value))


def reasoning_effort_name_for(
    choice: ModelChoice, endpoints: Mapping[str, EndpointSettings], override: str | None = None
) -> str:
    """The name of the reasoning level to request for ``choice``.

    An explicit ``override`` wins. Otherwise a configured endpoint gets its configured level or
    ``off`` (so no ``reasoning_effort`` field is sent: strict servers reject it), Ollama gets ``off``
    (``think`` fails on models that cannot think), and the hosted providers get ``medium``.

    Raises:
        ModelSpecError: For an unknown level name, here or in the endpoint's settings.
    """
    if override is not None and override.strip():
        return reasoning_effort_name(override)
    match choice.provider:
        case "endpoint":
            settings = endpoints.get(choice.endpoint or "")
            if settings is None or not settings.reasoning_effort:
                return "off"
            return reasoning_effort_name(settings.reasoning_effort)
        case "ollama":
            return "off"
        case _:
            return "medium"


def reasoning_effort_for(
    choice: ModelChoice, endpoints: Mapping[str, EndpointSettings], override: str | None = None
) -> ReasoningEffort:
    """:func:`reasoning_effort_name_for` as the runtime's enum."""
    from zett_agent.model import ReasoningEffort

    return ReasoningEffort(reasoning_effort_name_for(choice, endpoints, override))


# -- construction ------------------------------------------------------------------------------------


def _require_key(
    choice: ModelChoice, endpoints: Mapping[str, EndpointSettings], env: Mapping[str, str]
) -> None:
    problem = missing_credentials(choice, endpoints, env)
    if problem is not None:
        raise MissingCredentialsError(problem)


def _construct(
    choice: ModelChoice,
    endpoints: Mapping[str, EndpointSettings],
    env: Mapping[str, str],
    *,
    retry: RetryOptions | None = None,
    timeout: TimeoutOptions | None = None,
    openai_responses: bool = False,
) -> AgentModel:
    """Construct the provider for ``choice``. The caller owns it and must ``await model.aclose()``.

    ``retry`` defaults to the provider's own; ``timeout`` to zett's limits for the provider
    (``timeouts.provider_timeouts``: a short idle limit for hosted providers, long waits for local
    models, which may have to load). ``openai_responses``: OpenAI's models talk the Responses API,
    where OpenAI hosts its web search (``runtime.web.search``), instead of Chat Completions.

    Raises:
        MissingCredentialsError: If the provider needs a key that ``env`` does not hold.
        ModelSpecError: For an unknown provider or endpoint.
    """
    from zett_agent.model import DEFAULT_RETRY_OPTIONS, DEFAULT_TIMEOUT_OPTIONS

    from zett_tui.providers.sdk_resources import import_resources_on_demand
    from zett_tui.providers.timeouts import provider_timeouts

    import_resources_on_demand()  # before the openai SDK is imported: 13 MB of resources unused
    retry = retry or DEFAULT_RETRY_OPTIONS
    timeout = timeout or provider_timeouts(choice.provider)
    match choice.provider:
        case "demo":
            from zett_tui.providers.demo import DemoModel

            return DemoModel()
        case "anthropic":
            _require_key(choice, endpoints, env)
            from zett_tui.providers.messages_stream import ZettAnthropicProvider

            return ZettAnthropicProvider(
                choice.model,
                api_key=_env_value(env, "ANTHROPIC_API_KEY") or "",
                base_url=base_url_for(choice, endpoints, env) or DEFAULT_ANTHROPIC_URL,
                retry=retry,
                timeout=timeout or DEFAULT_TIMEOUT_OPTIONS,
            )
        case "openai":
            _require_key(choice, endpoints, env)
            from zett_tui.providers.plain_messages import PlainMessagesOpenAIProvider

            return PlainMessagesOpenAIProvider(
                choice.model,
                api_key=_env_value(env, "OPENAI_API_KEY") or "",
                base_url=base_url_for(choice, endpoints, env),
                retry=retry,
                timeout=timeout or DEFAULT_TIMEOUT_OPTIONS,
                response=openai_responses,
            )
        case "ollama":
            from zett_agent.providers.ollama import OLLAMA_TIMEOUT_OPTIONS, OllamaProvider

            return OllamaProvider(
                choice.model,
                base_url=base_url_for(choice, endpoints, env) or DEFAULT_OLLAMA_URL,
                retry=retry,
                timeout=timeout or OLLAMA_TIMEOUT_OPTIONS,
            )
        case "endpoint":
            settings = _endpoint(choice, endpoints)
            _require_key(choice, endpoints, env)
            from zett_tui.providers.plain_messages import PlainMessagesCompatibleProvider

            key = settings.api_key or _env_value(env, settings.api_key_env)
            return PlainMessagesCompatibleProvider(
                model=choice.model,
                # Local servers want no key, but the SDK insists on one; it is sent and ignored.
                api_key=key or "unused",
                base_url=settings.base_url,
                send_prompt_cache_key=settings.send_prompt_cache_key,
                retry=retry,
                timeout=timeout or DEFAULT_TIMEOUT_OPTIONS,
            )
        case _:
            raise ModelSpecError(f"Unknown provider '{choice.provider}'; use {_valid_forms(endpoints)}.")


def build_model(
    choice: ModelChoice,
    endpoints: Mapping[str, EndpointSettings],
    env: Mapping[str, str],
    *,
    retry: RetryOptions | None = None,
    timeout: TimeoutOptions | None = None,
    openai_responses: bool = False,
) -> AgentModel:
    """Build the provider for ``choice``. The caller owns it and must ``await model.aclose()``.

    Called off the event loop (the app's warm-up and ``/model`` run it in a thread), so it also
    loads the SDK code that would otherwise be imported lazily on the loop at the first prompt,
    and asks a local server (Ollama, an endpoint) for its context window (``server_info``).

    Raises:
        MissingCredentialsError: If the provider needs a key that ``env`` does not hold.
        ModelSpecError: For an unknown provider or endpoint.
    """
    model = _construct(
        choice, endpoints, env, retry=retry, timeout=timeout, openai_responses=openai_responses
    )
    _load_lazy_sdk_code(model)
    if choice.provider in ("ollama", "endpoint"):
        _find_server_window(model, choice, endpoints, env)
    return model


def _find_server_window(
    model: object, choice: ModelChoice, endpoints: Mapping[str, EndpointSettings], env: Mapping[str, str]
) -> None:
    """Ask a local server its context window (bounded, ``server_info.LOOKUP_TIMEOUT``) and keep
    the answer with ``model`` for the host; a configured ``context_window`` is kept unasked."""
    from zett_tui.providers.server_info import find_context_window, remember_finding

    settings = endpoints.get(choice.endpoint or "") if choice.provider == "endpoint" else None
    configured = settings.context_window if settings is not None else None
    finding = find_context_window(
        choice.provider, choice.model, base_url_for(choice, endpoints, env), configured=configured
    )
    if settings is not None and settings.vision is not None:  # the user's word over the server's
        finding = dataclasses.replace(finding, vision=settings.vision)
    remember_finding(model, finding)


def _load_lazy_sdk_code(model: object) -> None:
    """Touch the SDK resources a request uses; the openai client imports them lazily (about 0.45 s
    for ``client.chat``), which would otherwise happen on the event loop. A client zett's providers
    build only on demand (``plain_messages``: the openai SDK) is built here only for the Responses
    API (``response``), the one path that uses it; the Anthropic provider has none
    (``messages_request``)."""
    client = getattr(model, "__dict__", {}).get("_client")
    if client is None and getattr(model, "response", False) is True:
        client = getattr(model, "_client", None)
    if client is None:
        return
    for path in (("chat", "completions"), ("responses",)):
        target: object = client
        try:
            for name in path:
                target = getattr(target, name)
        except Exception:  # a resource this client does not have, or an SDK that changed
            continue
