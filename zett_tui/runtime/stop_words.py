"""Why a model call stopped abnormally, in words a person reads (not ``max_output``).

The runtime names the reason (``StopInfo.reason``) and keeps the provider's own: its raw value
(``content_filter``), its category (Anthropic's ``cyber``) and its explanation. The sentence says
what happened, then the provider's explanation, unless the answer already showed it (an OpenAI
refusal is streamed as the answer, and would otherwise be shown twice). No Textual, and no
zett-agent import: a recorded session's stop (a dict) is said the same way when it is read back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zett_agent.stop import StopInfo

__all__ = ["recorded_stop_sentence", "stop_sentence", "stop_words"]

#: By ``StopReason`` value.
_WHAT_HAPPENED = {
    "max_output": "The model hit the output token limit, so the answer is cut off",
    "context_full": "The conversation filled the model's context window, so the answer is cut off",
    "refusal": "The model declined to answer",
    "paused": "The provider paused the answer (send a message to let it go on)",
    "interrupted": "The provider interrupted the answer, so it may be incomplete",
}
_FILTER_PREFIX = "the content filter stopped the answer"


def stop_words(
    reason: str, raw: str | None, category: str | None, message: str | None, answer: str = ""
) -> str:
    """One sentence for a stop given as its parts (``reason`` is a ``StopReason`` value)."""
    if raw == "content_filter":
        head = "The provider's content filter stopped the answer"
    elif reason in _WHAT_HAPPENED:
        head = _WHAT_HAPPENED[reason]
    else:
        head = f"The model stopped for a reason zett does not know ({raw or reason})"
    if category and category not in (raw, reason):
        head += f" ({category.replace('_', ' ')})"
    said = " ".join((message or "").split())
    if said and said not in " ".join(answer.split()):
        if said.lower().startswith(_FILTER_PREFIX):
            said = said.split(":", 1)[-1].strip()
        return f"{head}: {said.rstrip('.')}."
    return f"{head}."


def stop_sentence(stop: StopInfo, answer: str = "") -> str:
    """One sentence for ``stop``; ``answer`` is the text the call streamed (its refusal, maybe)."""
    return stop_words(stop.reason.value, stop.raw, stop.category, stop.message, answer)


def recorded_stop_sentence(stop: dict[str, Any], answer: str = "") -> str:
    """:func:`stop_sentence` for a stop as a session file holds it (``{"reason", "raw", ...}``)."""

    def text(key: str) -> str | None:
        value = stop.get(key)
        return value if isinstance(value, str) else None

    return stop_words(text("reason") or "other", text("raw"), text("category"), text("message"), answer)
