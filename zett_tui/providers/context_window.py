"""How many tokens a model's context window holds, and how full the meter shows it.

The sizes are a small table of what the providers publish for their families; a model that is
not in it gets ``DEFAULT_CONTEXT_WINDOW``. A configured endpoint can state its own size
(``context_window`` in its config table), which wins. Local servers decide the size when they
load a model, so for them the table can only guess: ``server_info`` asks the server itself, and
what neither config nor server says is shown as a guess. No network, no Textual.
"""

from __future__ import annotations

import re

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "OLLAMA_CONTEXT_WINDOW",
    "context_percent",
    "context_window_for",
    "describe_context",
    "format_window",
    "is_guessed_window",
]

#: Used for a model the table does not know.
DEFAULT_CONTEXT_WINDOW = 128_000
#: Ollama's own default window is small and set per loaded model; this is a cautious middle.
OLLAMA_CONTEXT_WINDOW = 32_768

#: (pattern on the lower-case model name, window), first match wins: specific before general.
_KNOWN_WINDOWS: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (re.compile(pattern), window)
    for pattern, window in (
        (r"^claude-", 200_000),
        (r"^gpt-5", 400_000),
        (r"^gpt-4\.1", 1_047_576),
        (r"^(chatgpt-)?gpt-4o", 128_000),
        (r"^gpt-4-turbo", 128_000),
        (r"^o[134](-|$)", 200_000),
        (r"^gemini-", 1_048_576),
    )
)


def context_window_for(model: str, provider: str | None = None, configured: int | None = None) -> int:
    """The window of ``model`` (a bare name like ``claude-sonnet-5``, or a ``provider:model`` label).

    ``configured`` (an endpoint's ``context_window``) wins; an Ollama model the table does not
    know gets ``OLLAMA_CONTEXT_WINDOW``; anything else unknown gets ``DEFAULT_CONTEXT_WINDOW``.
    """
    if configured is not None and configured > 0:
        return configured
    name = model.strip().lower()
    if provider is None and ":" in name:
        provider, _, name = name.partition(":")
    known = _known_window(name.rsplit("/", 1)[-1])  # a router's "anthropic/claude-…" is Claude
    if known is not None:
        return known
    if provider == "ollama":
        return OLLAMA_CONTEXT_WINDOW
    return DEFAULT_CONTEXT_WINDOW


def _known_window(name: str) -> int | None:
    for pattern, window in _KNOWN_WINDOWS:
        if pattern.search(name):
            return window
    return None


def is_guessed_window(model: str, provider: str | None = None) -> bool:
    """Whether :func:`context_window_for` (without a configured size) only guesses for ``model``:
    a model the table does not know, or any Ollama model (Ollama sets the size when it loads one)."""
    name = model.strip().lower()
    if provider is None and ":" in name:
        provider, _, name = name.partition(":")
    return provider == "ollama" or _known_window(name.rsplit("/", 1)[-1]) is None


def format_window(tokens: int) -> str:
    """``200k``, ``1M``, ``32.8k``: a window size in as few characters as stay honest."""
    if tokens >= 1_000_000:
        millions = tokens / 1_000_000
        return f"{millions:.0f}M" if abs(millions - round(millions)) < 0.05 else f"{millions:.1f}M"
    if tokens >= 1000:
        thousands = tokens / 1000
        return f"{thousands:.0f}k" if thousands >= 100 or thousands == int(thousands) else f"{thousands:.1f}k"
    return str(tokens)


def context_percent(tokens: int, window: int) -> str:
    """How full the window is: ``23%``, ``<1%`` for a little, ``0%`` for nothing, ``>100%`` past it."""
    if window <= 0 or tokens <= 0:
        return "0%"
    share = tokens * 100 / window
    if share < 1:
        return "<1%"
    if share > 100:
        return ">100%"
    return f"{share:.0f}%"


def describe_context(tokens: int, window: int, *, estimated: bool, window_guessed: bool = False) -> str:
    """The status line's meter: ``ctx 23% of 200k``, with ``≈`` while the count is only an estimate
    and ``of ~128k`` while the window itself is a guess (a local server that did not say)."""
    approximate = "≈" if estimated else ""
    guessed = "~" if window_guessed else ""
    return f"ctx {approximate}{context_percent(tokens, window)} of {guessed}{format_window(window)}"
