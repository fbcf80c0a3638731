"""How full the model's context is, for the status line's meter and for ``/context``.

The figure is measured from each model call's usage, estimated after a compaction (the summary's
size), taken from the session's last recorded turn when a session is resumed, or estimated from
the stored history (no model call). The window it is measured against is the model's: as
configured, as a local server said when the model was built (``providers.server_info``), or the
table's guess for the model's name.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from zett_agent.events import AgentEvent, AgentEventType

from zett_tui.providers.context_window import context_window_for
from zett_tui.runtime.compaction import ContextCompaction, estimate_text_tokens, estimate_tokens
from zett_tui.runtime.events import ContextMeasured

if TYPE_CHECKING:
    from zett_tui.providers.server_info import ContextWindowFinding
    from zett_tui.runtime.session_files import SessionFiles

log = logging.getLogger(__name__)


class ModelSettings(Protocol):
    """What the gauge reads of the host's options (``HostOptions``); it sets ``context_window``
    to the window a local server reported."""

    model_label: str
    system_prompt: str
    context_window: int | None


class ContextGauge:
    """The last figure of one session's context, and the window it fills."""

    def __init__(self, settings: ModelSettings) -> None:
        self._settings = settings
        #: The last measurement (None before the first model call or estimate).
        self.last: ContextMeasured | None = None
        #: The window a local server's model was built with (``providers.server_info``); None
        #: for a hosted provider or a model built otherwise.
        self.window_finding: ContextWindowFinding | None = None

    @property
    def window(self) -> int:
        return self._settings.context_window or context_window_for(self._settings.model_label)

    @property
    def window_guessed(self) -> bool:
        """True while the window is only the table's guess (a local server that did not say)."""
        return self.window_finding is not None and self.window_finding.guessed

    def adopt_window_finding(self, model: object) -> None:
        """Use the window found when ``model`` was built, if any."""
        from zett_tui.providers.server_info import finding_for

        self.window_finding = finding = finding_for(model)
        if finding is not None:
            self._settings.context_window = finding.tokens

    def model_changed(self) -> None:
        """Another model answers from now on: the last figure, counted by the old one's
        tokenizer, is an estimate now."""
        if self.last is not None:
            self.last = ContextMeasured(self.last.tokens, self.window, estimated=True)

    def measure(self, event: AgentEvent, compaction: ContextCompaction | None) -> ContextMeasured | None:
        """A new figure when ``event`` gives one: a model call's usage, or an applied compaction."""
        if event.type is AgentEventType.MODEL_COMPLETED and event.response is not None:
            usage = event.response.usage
            if not usage.input_tokens:
                return None  # the provider reported no usage
            self.last = ContextMeasured(usage.input_tokens + (usage.output_tokens or 0), self.window)
            return self.last
        if event.type is AgentEventType.COMPACTION_COMPLETED and event.applied:
            after = compaction.tokens_after(event) if compaction is not None else None
            if after is not None:
                self.last = ContextMeasured(after, self.window, estimated=True)
                return self.last
        return None

    async def estimate(self, files: SessionFiles | None, session_id: str) -> ContextMeasured:
        """The context the next request starts from: as the status line said after the session's
        last turn (a resumed session shows the figure it was left with), else estimated from the
        stored history."""
        recorded = None
        if files is not None:
            recorded = await asyncio.to_thread(
                files.recorded_context, self._settings.model_label, self.window
            )
        if recorded is not None:
            self.last = recorded
            return recorded
        return await self.estimate_from_history(files.history if files is not None else None, session_id)

    async def estimate_from_history(self, history: Any, session_id: str) -> ContextMeasured:
        """The context the next request starts from, estimated from ``history`` (the history
        extension, ``runtime.history_open``; None when there is none)."""
        messages: list[Any] = []
        if history is not None:
            try:
                view = await history.storage.load(session_id)
                messages = list(view.messages)
            except Exception:
                log.warning("stored history unavailable for the context estimate", exc_info=True)
        tokens = estimate_text_tokens(self._settings.system_prompt) + estimate_tokens(messages)
        self.last = ContextMeasured(tokens, self.window, estimated=True)
        return self.last
