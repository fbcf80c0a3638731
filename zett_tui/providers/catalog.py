"""The models ``/model`` offers, and what switching to one takes. No Textual.

The list is built from what is configured, never from a provider's API: the configured
``model``, the ``models`` favourites, the hosted providers whose key is set, every configured
endpoint (its model name is typed by the user), the models a *local* Ollama has installed (one
quick request to 127.0.0.1, only when asked), and the offline demo.

A catalog also remembers, for this session, the reasoning effort chosen for each model with
``/effort``, so switching back to a model brings its effort back.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

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
    missing_credentials,
    parse_model_spec,
    parse_reasoning_effort,
    reasoning_effort_for,
)
from zett_tui.providers.context_window import context_window_for

if TYPE_CHECKING:
    from zett_agent.model import ReasoningEffort

__all__ = ["ModelCatalog", "ModelOption", "ModelSelection", "list_ollama_models"]

log = logging.getLogger(__name__)

#: How long ``/model`` waits for a local Ollama to list its models.
OLLAMA_PROBE_SECONDS = 0.3

Builder = Callable[[ModelChoice], Any]


@dataclass(frozen=True)
class ModelOption:
    """One row of the model picker."""

    spec: str
    """What ``/model`` takes; ``NAME:`` for an endpoint, whose model name the user types."""
    label: str
    detail: str
    """Where the option comes from, or what it still needs (a key, a model name)."""
    current: bool = False

    @property
    def needs_model_name(self) -> bool:
        return self.spec.endswith(":")


@dataclass(frozen=True)
class ModelSelection:
    """A model that can be switched to: everything the host needs for it."""

    choice: ModelChoice
    factory: Callable[[], Any]
    reasoning_effort: ReasoningEffort
    context_window: int
    describe_error: Callable[[BaseException], str]


@dataclass
class ModelCatalog:
    """What is configured, plus the session's current model and the efforts chosen in it."""

    endpoints: Mapping[str, EndpointSettings]
    env: Mapping[str, str]
    current: ModelChoice = DEMO_CHOICE
    configured: str | None = None
    """The ``model`` setting."""
    favourites: Sequence[str] = ()
    """The ``models`` setting: specs the user wants listed."""
    default_effort: str | None = None
    """The ``reasoning_effort`` setting (or flag), applied to every model unless ``/effort`` changed it."""
    builder: Builder | None = None
    """Builds a provider for a choice; None: ``models.build_model`` (tests put a fake here)."""
    openai_responses: bool = False
    """OpenAI's models talk the Responses API (``[web] search``: OpenAI hosts its search there)."""
    efforts: dict[str, str] = field(default_factory=dict)
    """Reasoning effort chosen with ``/effort`` in this session, by model spec."""

    # -- the list -----------------------------------------------------------------------------------

    def options(self, ollama_models: Sequence[str] = ()) -> list[ModelOption]:
        """Every model to offer, the current one first, without duplicates."""
        rows: dict[str, ModelOption] = {}

        def offer(spec: str, detail: str) -> None:
            try:
                choice = parse_model_spec(spec, self.endpoints)
            except ModelSpecError:
                return
            if choice.spec in rows:
                return
            problem = missing_credentials(choice, self.endpoints, self.env)
            if problem is not None:
                detail = f"needs {credential_hint(choice, self.endpoints) or 'a key'}, not set"
            rows[choice.spec] = ModelOption(choice.spec, choice.label, detail, current=choice == self.current)

        offer(self.current.spec, "in use")
        if self.configured:
            offer(self.configured, "the model setting")
        for spec in self.favourites:
            offer(spec, "from models in config.toml")
        if self.env.get("ANTHROPIC_API_KEY", "").strip():
            offer(f"anthropic:{DEFAULT_ANTHROPIC_MODEL}", "ANTHROPIC_API_KEY is set")
        if self.env.get("OPENAI_API_KEY", "").strip():
            offer(f"openai:{DEFAULT_OPENAI_MODEL}", "OPENAI_API_KEY is set")
        for name in ollama_models:
            offer(f"ollama:{name}", "installed in Ollama")
        for name in sorted(self.endpoints):
            spec = f"{name}:"
            rows.setdefault(
                spec,
                ModelOption(spec, spec, f"endpoint at {self.endpoints[name].base_url}: type the model name"),
            )
        offer(DEMO_CHOICE.spec, "offline, needs no key")
        return list(rows.values())

    def local_ollama_url(self) -> str | None:
        """Ollama's address when it is on this machine (the only case worth a quick look)."""
        try:
            url = base_url_for(ModelChoice("ollama", "any"), self.endpoints, self.env)
        except ModelSpecError:
            return None
        return url if url is not None and _is_local(url) else None

    # -- switching ----------------------------------------------------------------------------------

    def select(self, spec: str) -> ModelSelection:
        """Check ``spec`` and say how to build it.

        Raises:
            ModelSpecError: For a spec that names no usable model; ``MissingCredentialsError``
                (a subclass) when its key is not set. The message is for the user.
        """
        choice = parse_model_spec(spec, self.endpoints)
        problem = missing_credentials(choice, self.endpoints, self.env)
        if problem is not None:
            raise MissingCredentialsError(self._credentials_message(choice, problem))
        return ModelSelection(
            choice=choice,
            factory=self._factory(choice),
            reasoning_effort=self.effort_for(choice),
            context_window=self.context_window(choice),
            describe_error=self._describer(choice),
        )

    def effort_for(self, choice: ModelChoice) -> ReasoningEffort:
        """The effort chosen with ``/effort`` for ``choice``, else the configured one."""
        chosen = self.efforts.get(choice.spec)
        if chosen is not None:
            return parse_reasoning_effort(chosen)
        try:
            return reasoning_effort_for(choice, self.endpoints, self.default_effort)
        except ModelSpecError:
            return reasoning_effort_for(choice, self.endpoints)

    def set_effort(self, choice: ModelChoice, value: str) -> ReasoningEffort:
        """Remember ``value`` for ``choice`` for the rest of the session.

        Raises:
            ModelSpecError: For a name that is not a level.
        """
        effort = parse_reasoning_effort(value)
        self.efforts[choice.spec] = effort.value
        return effort

    def context_window(self, choice: ModelChoice) -> int:
        configured = None
        if choice.provider == "endpoint":
            settings = self.endpoints.get(choice.endpoint or "")
            configured = settings.context_window if settings is not None else None
        provider = "ollama" if choice.provider == "ollama" else None
        return context_window_for(choice.model, provider, configured)

    def _factory(self, choice: ModelChoice) -> Callable[[], Any]:
        builder = self.builder
        if builder is not None:
            return lambda: builder(choice)
        endpoints, env, responses = self.endpoints, self.env, self.openai_responses
        return lambda: build_model(choice, endpoints, env, openai_responses=responses)

    def _describer(self, choice: ModelChoice) -> Callable[[BaseException], str]:
        endpoints, env = self.endpoints, self.env

        def explain(error: BaseException) -> str:
            from zett_tui.providers.errors import describe_error_for

            return describe_error_for(error, choice, endpoints, env)

        return explain

    def _credentials_message(self, choice: ModelChoice, problem: str) -> str:
        hint = credential_hint(choice, self.endpoints)
        if hint is None or choice.provider not in ("anthropic", "openai"):
            return f"{problem} The model was not switched."
        return (
            f"{choice.label} needs an API key, and {hint} is not set in the environment zett started "
            "in. The model was not switched: set it and start zett again, or pick another model "
            "(/model lists them)."
        )


def _is_local(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def list_ollama_models(base_url: str, timeout: float = OLLAMA_PROBE_SECONDS) -> list[str]:
    """The model names a local Ollama has installed (``GET /api/tags``); [] when it does not answer.

    Blocking: call it from a thread. Proxies are bypassed, as this is only ever a local address.
    """
    import urllib.request  # not at import time: start-up reads this module before the first frame

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"{base_url.rstrip('/')}/api/tags", timeout=timeout) as response:
            document = json.loads(response.read(1_000_000))
    except (OSError, ValueError):
        log.debug("no local Ollama at %s", base_url, exc_info=True)
        return []
    return parse_ollama_tags(document)


def parse_ollama_tags(document: object) -> list[str]:
    """The names in an ``/api/tags`` answer, in order, without blanks or repeats."""
    models = document.get("models") if isinstance(document, dict) else None
    names: list[str] = []
    for entry in models if isinstance(models, list) else ():
        name = (entry.get("name") or entry.get("model")) if isinstance(entry, dict) else None
        if isinstance(name, str) and name.strip() and name.strip() not in names:
            names.append(name.strip())
    return names
