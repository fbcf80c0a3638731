"""Ask a local model server how large a context it loaded the model with, and whether it reads images.

Local servers choose the window when they load a model (llama.cpp's ``-c 8192``, Ollama's
``num_ctx``), so the name-based table in ``context_window`` can only guess, and a guess that is too
big makes compaction come too late while the server truncates silently. The servers say it:

- llama.cpp: ``GET /props`` -> ``default_generation_settings.n_ctx`` (or a top-level ``n_ctx``);
- vLLM: ``GET /v1/models`` -> ``max_model_len``; LM Studio: ``loaded_context_length`` or
  ``context_length`` on the same list (its ``/api/v0/models`` carries them too);
- Ollama: ``GET /api/ps`` -> ``context_length`` of the loaded model, else ``POST /api/show`` ->
  ``num_ctx`` in its parameters; the model's trained ``<arch>.context_length`` is only a ceiling,
  since Ollama loads a smaller default.

Whether the model reads images, where the protocol says: llama.cpp's ``/props`` ->
``modalities.vision``; Ollama's ``/api/show`` -> ``capabilities`` (``"vision"`` among them). vLLM
and LM Studio's lists say nothing: then ``vision`` is None and the name list decides
(``core.images.vision_support``), unless the endpoint's ``vision`` setting says.

Only the configured ``base_url`` (or ``OLLAMA_HOST``) of a local or compatible endpoint is asked,
never a hosted provider's API. Every request shares one short deadline and any failure means "not
known": the caller falls back to the table. Runs in the thread that builds the model (stdlib HTTP,
no event loop). The finding is remembered per built model, so the host can read it after the
build without a field on a provider object it does not own.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import time
import urllib.error
import urllib.request
import weakref
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from zett_tui.providers.context_window import context_window_for, is_guessed_window

__all__ = [
    "LOOKUP_TIMEOUT",
    "ContextWindowFinding",
    "ask_compatible_server",
    "ask_compatible_server_all",
    "ask_ollama",
    "ask_ollama_all",
    "find_context_window",
    "finding_for",
    "is_local_server",
    "remember_finding",
]

log = logging.getLogger(__name__)

#: The whole lookup (all requests together) gives up after this many seconds.
LOOKUP_TIMEOUT = 1.5
#: Largest answer read; a model list or ``/props`` is a few kB.
_MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: Straight to the server: an ``HTTP_PROXY`` is for the outside world, not for a local server.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass(frozen=True, slots=True)
class ContextWindowFinding:
    """The window a model will be used with, and where that number came from."""

    tokens: int
    #: ``configured`` (the endpoint's ``context_window``), ``server`` (it said so), ``table`` (a
    #: published size of a known model family), or ``guess``.
    source: str
    #: Whether the model reads images, as the server or the endpoint's ``vision`` setting says;
    #: None when neither does.
    vision: bool | None = None

    @property
    def guessed(self) -> bool:
        return self.source == "guess"


_findings: weakref.WeakKeyDictionary[object, ContextWindowFinding] = weakref.WeakKeyDictionary()


def remember_finding(model: object, finding: ContextWindowFinding) -> None:
    """Keep ``finding`` for ``model`` (forgotten with the model)."""
    try:
        _findings[model] = finding
    except TypeError:  # an object that takes no weak reference: nothing is remembered
        log.debug("context window finding not kept for %r", type(model).__name__)


def finding_for(model: object) -> ContextWindowFinding | None:
    """What :func:`remember_finding` kept for ``model``, or None (a model built some other way)."""
    try:
        return _findings.get(model)
    except TypeError:
        return None


class _Deadline:
    """One time budget shared by the requests of a lookup."""

    def __init__(self, seconds: float) -> None:
        self.ends = time.monotonic() + seconds

    def left(self) -> float:
        return self.ends - time.monotonic()


def _request(url: str, deadline: _Deadline, body: dict[str, Any] | None = None) -> Any:
    """The JSON answer of ``url``, or None for any failure (refused, 404, timeout, not JSON)."""
    left = deadline.left()
    if left <= 0.05:
        return None
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with _DIRECT.open(request, timeout=left) as response:
            return json.loads(response.read(_MAX_ANSWER_BYTES))
    except (OSError, ValueError, urllib.error.URLError) as error:
        log.info("context window lookup: %s did not answer usefully (%s)", url, error)
        return None


def _positive(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and value > 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip()) or None
    return None


def _server_root(base_url: str) -> str:
    """``http://host:8080/v1`` -> ``http://host:8080``: where llama.cpp serves ``/props``."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def _from_model_list(answer: Any, model: str) -> int | None:
    """vLLM's ``max_model_len`` or LM Studio's loaded/maximum length for ``model`` in a model list."""
    entries = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(entries, list):
        return None
    matching = [item for item in entries if isinstance(item, dict) and item.get("id") == model]
    if not matching and len(entries) == 1 and isinstance(entries[0], dict):
        matching = [entries[0]]  # a server that serves one model under another name
    for entry in matching:
        for key in ("loaded_context_length", "max_model_len", "context_length"):
            tokens = _positive(entry.get(key))
            if tokens is not None:
                return tokens
    return None


def _from_props(answer: Any) -> int | None:
    """llama.cpp's ``/props``: the loaded context (per slot settings, or the server's)."""
    if not isinstance(answer, dict):
        return None
    settings = answer.get("default_generation_settings")
    if isinstance(settings, dict):
        tokens = _positive(settings.get("n_ctx"))
        if tokens is not None:
            return tokens
    return _positive(answer.get("n_ctx"))


def _vision_from_props(answer: Any) -> bool | None:
    """llama.cpp's ``/props``: ``modalities: {"vision": true}`` with a multimodal projector loaded."""
    modalities = answer.get("modalities") if isinstance(answer, dict) else None
    vision = modalities.get("vision") if isinstance(modalities, dict) else None
    return vision if isinstance(vision, bool) else None


def ask_compatible_server(base_url: str, model: str, *, timeout: float = LOOKUP_TIMEOUT) -> int | None:
    """The context window an OpenAI-compatible server (llama.cpp, vLLM, LM Studio) reports, or None."""
    return ask_compatible_server_all(base_url, model, timeout=timeout)[0]


def ask_compatible_server_all(
    base_url: str, model: str, *, timeout: float = LOOKUP_TIMEOUT
) -> tuple[int | None, bool | None]:
    """The context window an OpenAI-compatible server reports, and whether the model reads images
    (llama.cpp says; the others do not: None).

    The model list names no loaded size on llama.cpp (only the trained ``n_ctx_train``), so
    ``/props`` is asked first; a server without it answers 404 and the list is asked next.
    """
    deadline = _Deadline(timeout)
    root = _server_root(base_url)
    props = _request(f"{root}/props", deadline)
    tokens = _from_props(props)
    if tokens is None:
        tokens = _from_model_list(_request(f"{base_url.rstrip('/')}/models", deadline), model)
    if tokens is not None:
        log.info("context window of %s at %s: %d tokens (from the server)", model, root, tokens)
    return tokens, _vision_from_props(props)


def _same_ollama_model(name: object, model: str) -> bool:
    if not isinstance(name, str):
        return False
    return name == model or name == f"{model}:latest" or name.removesuffix(":latest") == model


def _loaded_length(answer: Any, model: str) -> int | None:
    entries = answer.get("models") if isinstance(answer, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and (
            _same_ollama_model(entry.get("name"), model) or _same_ollama_model(entry.get("model"), model)
        ):
            return _positive(entry.get("context_length"))
    return None


def _num_ctx(parameters: object) -> int | None:
    """``num_ctx`` from ``/api/show``'s parameters: a text of ``name value`` lines."""
    if not isinstance(parameters, str):
        return None
    for line in parameters.splitlines():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx":
            return _positive(value.strip().strip('"'))
    return None


def _trained_length(model_info: object) -> int | None:
    if not isinstance(model_info, dict):
        return None
    architecture = model_info.get("general.architecture")
    if isinstance(architecture, str):
        tokens = _positive(model_info.get(f"{architecture}.context_length"))
        if tokens is not None:
            return tokens
    for key, value in model_info.items():
        if isinstance(key, str) and key.endswith(".context_length"):
            return _positive(value)
    return None


def ask_ollama(
    base_url: str, model: str, *, timeout: float = LOOKUP_TIMEOUT
) -> tuple[int | None, int | None]:
    """The window Ollama runs ``model`` with (None when it does not say), and the model's trained
    length (None when unknown)."""
    tokens, trained, _vision = ask_ollama_all(base_url, model, timeout=timeout)
    return tokens, trained


def _vision_from_capabilities(shown: Any) -> bool | None:
    """Ollama's ``/api/show`` ``capabilities`` (0.6 and later): ``"vision"`` is in it or not."""
    capabilities = shown.get("capabilities") if isinstance(shown, dict) else None
    if not isinstance(capabilities, list) or not capabilities:
        return None  # an older Ollama says nothing
    return "vision" in capabilities


def ask_ollama_all(
    base_url: str, model: str, *, timeout: float = LOOKUP_TIMEOUT
) -> tuple[int | None, int | None, bool | None]:
    """The window Ollama runs ``model`` with, the model's trained length, and whether it reads
    images (each None when Ollama does not say).

    A loaded model's ``context_length`` (``/api/ps``) is what it runs with; otherwise a ``num_ctx``
    in the model's parameters is what it will load with. The trained length is no answer: Ollama
    loads a smaller default, so it only caps a guess. ``/api/show`` is asked in any case, for the
    model's capabilities.
    """
    deadline = _Deadline(timeout)
    root = base_url.rstrip("/")
    tokens = _loaded_length(_request(f"{root}/api/ps", deadline), model)
    trained = None
    shown = _request(f"{root}/api/show", deadline, {"model": model})
    if tokens is None and isinstance(shown, dict):
        tokens = _num_ctx(shown.get("parameters"))
        trained = _trained_length(shown.get("model_info"))
    if tokens is not None:
        log.info("context window of %s at %s: %d tokens (from Ollama)", model, root, tokens)
    return tokens, trained, _vision_from_capabilities(shown)


def is_local_server(url: str) -> bool:
    """Whether ``url`` is on this machine or the local network: the only servers asked."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith((".localhost", ".local", ".lan", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def find_context_window(
    provider: str,
    model: str,
    base_url: str | None,
    *,
    configured: int | None = None,
    timeout: float | None = None,
) -> ContextWindowFinding:
    """The window ``model`` will be used with: configured, else reported by a local server, else the table.

    ``provider`` is ``ollama``, ``endpoint`` (an OpenAI-compatible server) or a hosted provider,
    which is never asked. Blocks for at most ``timeout`` seconds (``LOOKUP_TIMEOUT``); call it off
    the event loop.
    """
    timeout = LOOKUP_TIMEOUT if timeout is None else timeout
    if configured is not None and configured > 0:
        return ContextWindowFinding(configured, "configured")
    table_provider = "ollama" if provider == "ollama" else None
    guess = context_window_for(model, table_provider)
    reported: int | None = None
    vision: bool | None = None
    if base_url and provider in ("ollama", "endpoint") and is_local_server(base_url):
        if provider == "ollama":
            reported, trained, vision = ask_ollama_all(base_url, model, timeout=timeout)
            if reported is None and trained is not None:
                guess = min(guess, trained)
        else:
            reported, vision = ask_compatible_server_all(base_url, model, timeout=timeout)
        if reported is None:
            log.info("context window of %s: the server did not say; guessing %d", model, guess)
    if reported is not None:
        return ContextWindowFinding(reported, "server", vision)
    source = "guess" if is_guessed_window(model, table_provider) else "table"
    return ContextWindowFinding(guess, source, vision)
