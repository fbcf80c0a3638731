"""Why a model call stopped abnormally, in words a person reads (not ``max_output``).

The runtime names the reason (``StopInfo.reason``) and keeps the provider's own: its raw value
(``content_filter``), its category (Anthropic's ``cyber``) and its explanation. The sentence says
what happened, then the provider's explanation, unless the answer already showed it (an OpenAI
refusal is streamed as the answer, and would otherwise be shown twice). No Textual.
"""

from __future__ import annotations

from zett_agent.stop import StopInfo, StopReason

__all__ = ["stop_sentence"]

_WHAT_HAPPENED = {
    StopReason.MAX_OUTPUT: "The model hit the output token limit, so the answer is cut off",
    StopReason.CONTEXT_FULL: "The conversation filled the model's context window, so the answer is cut off",
    StopReason.REFUSAL: "The model declined to answer",
    StopReason.PAUSED: "The provider paused the answer (send a message to let it go on)",
    StopReason.INTERRUPTED: "The provider interrupted the answer, so it may be incomplete",
}


def stop_sentence(stop: StopInfo, answer: str = "") -> str:
    """One sentence for ``stop``; ``answer`` is the text the call streamed (its refusal, maybe)."""
    if stop.raw == "content_filter":
        head = "The provider's content filter stopped the answer"
    elif stop.reason in _WHAT_HAPPENED:
        head = _WHAT_HAPPENED[stop.reason]
    else:
        head = f"The model stopped for a reason zett does not know ({stop.raw or stop.reason.value})"
    category = stop.category if stop.category and stop.category not in (stop.raw, stop.reason.value) else None
    if category:
        head += f" ({category.replace('_', ' ')})"
    message = " ".join((stop.message or "").split())
    if message and message not in " ".join(answer.split()):
        if message.lower().startswith("the content filter stopped the answer"):
            message = message.split(":", 1)[-1].strip()
            return f"{head}: {message}."
        return f"{head}: {message.rstrip('.')}."
    return f"{head}."
