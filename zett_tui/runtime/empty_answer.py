"""Say so when a model call ends with no answer at all, instead of showing an empty turn.

A local server whose context is smaller than the conversation often cuts the request and answers
nothing (llama.cpp, Ollama), and the turn would end in silence. A completed model call with no
text and no tool calls becomes one warning that names the finish reason and, for a local server,
its context window. The ``MODEL_STOPPED`` that follows such a call (``finish_reason="length"``)
is folded into that line rather than said a second time. No Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_agent.events import AgentEventType
from zett_agent.stop import StopReason

from zett_tui.runtime.events import ModelStopped, Notice

if TYPE_CHECKING:
    from zett_agent.events import AgentEvent

    from zett_tui.providers.server_info import ContextWindowFinding
    from zett_tui.runtime.events import UIEvent

__all__ = ["EmptyAnswerReporter", "empty_answer_text"]


def empty_answer_text(finish_reason: str | None, finding: ContextWindowFinding | None) -> str:
    """``The model returned an empty answer (finish reason: length). The server may have cut …``."""
    text = f"The model returned an empty answer (finish reason: {finish_reason or 'none given'})."
    if finding is None:
        return text
    if finding.guessed:
        return (
            f"{text} The server may have cut the request: it did not say its context window, and "
            f"zett assumes {finding.tokens:,} tokens; set context_window in its endpoint's config "
            "(or num_ctx in Ollama) if it holds fewer."
        )
    return f"{text} The server may have cut the request: its context is {finding.tokens:,} tokens."


class EmptyAnswerReporter:
    """Watches one turn's agent events and rewrites the UI events of an empty model call."""

    def __init__(self) -> None:
        self._reported = False

    def review(
        self, event: AgentEvent, ui_events: list[UIEvent], finding: ContextWindowFinding | None
    ) -> list[UIEvent]:
        """``ui_events`` (what ``event`` translated to), with the empty-answer warning added, or
        with the stop notice of a call already reported dropped. ``finding``: the window of a
        local server, None for a hosted provider (no word about a server then)."""
        if event.type is AgentEventType.MODEL_STARTED:
            self._reported = False
            return ui_events
        if event.type is AgentEventType.MODEL_STOPPED and self._reported:
            return [item for item in ui_events if not isinstance(item, ModelStopped)]
        if event.type is not AgentEventType.MODEL_COMPLETED or event.response is None:
            return ui_events
        message = event.response.message
        if (message.content or "").strip() or message.tool_calls:
            return ui_events
        stop = event.response.stop
        if stop is not None and stop.reason is StopReason.REFUSAL:
            return ui_events  # the stop notice says it was declined, and why
        self._reported = True
        notice = Notice(empty_answer_text(event.response.finish_reason, finding), "warning")
        return [*ui_events, notice]
