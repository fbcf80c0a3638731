"""The model a Markdown command's ``model`` front matter asks for, for that command's turn alone.

A name that starts with a provider or a configured endpoint and a colon is zett's own spec (``anthropic:claude-haiku-5``, ``ollama:qwen3``,
``local:qwen3`` for a configured endpoint), as ``/model`` takes it. A bare name, as Claude Code's
commands give it (``claude-haiku-5``, or an Ollama tag such as ``qwen3:8b``), is a model of the provider the session uses now: the
same provider (or endpoint) with that model name. What the current provider cannot serve is
refused with the reason: anything but ``claude-...`` at Anthropic, anything but ``gpt-...`` and
``o...`` at OpenAI, any name for the offline demo, Claude Code's aliases (``haiku``, ``sonnet``,
``opus``: which model they mean is Claude Code's to decide), a provider without its key. An
Ollama server or an OpenAI-compatible endpoint may serve any name; if it does not, the turn
says what the server answered.
"""

from __future__ import annotations

from zett_tui.providers.build import BUILTIN_PROVIDERS, ModelChoice, ModelSpecError
from zett_tui.providers.catalog import ModelCatalog, ModelSelection

CLAUDE_CODE_ALIASES = frozenset({"haiku", "sonnet", "opus", "opusplan", "default", "inherit"})
_OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt")


def select_command_model(name: str, catalog: ModelCatalog) -> ModelSelection | None:
    """The model to run the command's turn with; None when it is the session's model already.

    Raises:
        ModelSpecError: the name is not one zett can run now; the message says why, in one line.
    """
    text = name.strip()
    current = catalog.current
    prefix = text.partition(":")[0].strip()
    if text.lower() == "demo" or prefix.lower() in BUILTIN_PROVIDERS or prefix in catalog.endpoints:
        spec = text
    else:
        _check_bare_name(text, current)
        spec = ModelChoice(current.provider, text, current.endpoint).spec
    selection = catalog.select(spec)
    return None if selection.choice == current else selection


def _check_bare_name(name: str, current: ModelChoice) -> None:
    lowered = name.lower()
    if lowered in CLAUDE_CODE_ALIASES:
        raise ModelSpecError(
            f"{name!r} is Claude Code's short name; give the model's full name, such as "
            "claude-... or anthropic:claude-..."
        )
    if current.is_demo:
        raise ModelSpecError("the session runs the offline demo model, which serves no other model")
    provider = current.provider
    if provider == "anthropic" and not lowered.startswith("claude"):
        raise ModelSpecError(f"Anthropic serves claude-... models, not {name!r}")
    if provider == "openai" and not lowered.startswith(_OPENAI_PREFIXES):
        raise ModelSpecError(f"OpenAI serves gpt-... and o... models, not {name!r}")
