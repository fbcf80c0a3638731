"""Compaction with a local token estimate, and the notices that say what it did.

zett-agent's ``CompactionExtension`` counts tokens with tiktoken by default, which downloads its
data on first use and fails offline. ``estimate_tokens`` here needs nothing: it counts characters
(about 3.5 ASCII characters per token, one token per other character, a few per message), which
errs on the high side for prose and is close for code. It is an estimate and is only used where
no provider count exists: deciding when to compact, and the meter before the first reply.

``ContextCompaction`` is the upstream extension with that counter, limits taken from the model's
context window, and a record of each pass, so the transcript can say how full the context was
and what is left afterwards.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zett_agent.agent import AgentRunContext
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.compaction import CompactedMessage, CompactionExtension
from zett_agent.extensions.events import CompactionEvent
from zett_agent.messages import (
    AgentMessage,
    AnyMessage,
    AssistantMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ToolMessage,
    UserMessage,
)
from zett_agent.model import ReasoningEffort

from zett_tui.providers.context_window import context_percent, format_window
from zett_tui.runtime.agent_compat import compaction_window, context_tokens

__all__ = [
    "COMPACT_AT",
    "KEEP_RECENT",
    "CompactionReport",
    "ContextCompaction",
    "estimate_text_tokens",
    "estimate_tokens",
]

#: Compaction starts when the estimated context passes this share of the window.
COMPACT_AT = 0.8
#: At least this share of the window (the most recent whole turns) is kept word for word.
KEEP_RECENT = 0.25
#: ASCII characters per token: ~4 for English prose, ~3 for code and JSON.
_ASCII_CHARS_PER_TOKEN = 3.5
#: Role markers and separators every message costs.
_MESSAGE_OVERHEAD = 4
#: What the providers charge for a typical image, whatever its size in bytes.
_IMAGE_TOKENS = 1_100


def estimate_text_tokens(text: str) -> int:
    """Tokens in ``text``, estimated without a tokenizer: fast, offline, and a little high."""
    if not text:
        return 0
    if text.isascii():
        return math.ceil(len(text) / _ASCII_CHARS_PER_TOKEN)
    other = sum(1 for char in text if ord(char) > 127)
    return math.ceil((len(text) - other) / _ASCII_CHARS_PER_TOKEN) + other


def _content_tokens(content: object) -> int:
    if isinstance(content, str):
        return estimate_text_tokens(content)
    total = 0
    for part in content if isinstance(content, (list, tuple)) else (content,):
        if isinstance(part, TextContent):
            total += estimate_text_tokens(part.text)
        elif isinstance(part, ImageContent):
            total += _IMAGE_TOKENS
        else:
            total += estimate_text_tokens(repr(part))
    return total


def _message_tokens(message: AnyMessage) -> int:
    if isinstance(message, AssistantMessage):
        total = estimate_text_tokens(message.content) + estimate_text_tokens(message.reasoning or "")
        for call in message.tool_calls:
            arguments = json.dumps(call.arguments, ensure_ascii=False, default=repr)
            total += estimate_text_tokens(call.name) + estimate_text_tokens(arguments) + _MESSAGE_OVERHEAD
    elif isinstance(message, (SystemMessage, UserMessage, ToolMessage, AgentMessage)):
        total = _content_tokens(message.content)
    else:
        total = estimate_text_tokens(repr(message))
    return total + _MESSAGE_OVERHEAD


def estimate_tokens(messages: Sequence[AnyMessage]) -> int:
    """The estimated tokens a provider sees for ``messages`` (the counter compaction uses)."""
    return sum(_message_tokens(message) for message in messages)


def _user_turns(messages: Sequence[AnyMessage]) -> int:
    return sum(
        1
        for message in messages
        if isinstance(message, UserMessage) and not isinstance(message, CompactedMessage)
    )


def _approx(tokens: int) -> str:
    return f"≈{format_window(tokens)} tokens"


@dataclass(frozen=True)
class CompactionReport:
    """What one pass set out to do, noted just before it starts."""

    forced: bool
    tokens_before: int
    turns_summarized: int
    includes_checkpoint: bool
    tokens_kept: int


class ContextCompaction(CompactionExtension):
    """``CompactionExtension`` sized from a context window, counting with ``estimate_tokens``.

    The summary is written by the request's own model (``model=None``), so it follows a model
    switch. ``/compact`` (``force``) summarizes everything but the latest turn, whatever the sizes:
    an automatic pass keeps at least ``KEEP_RECENT`` of the window word for word.
    """

    def __init__(
        self, context_window: int, *, reasoning_effort: ReasoningEffort = ReasoningEffort.LOW
    ) -> None:
        super().__init__(
            None,
            max_tokens=max(1, int(context_window * COMPACT_AT)),
            keep_recent_tokens=max(1, int(context_window * KEEP_RECENT)),
            count_tokens=estimate_tokens,
            reasoning_effort=reasoning_effort,
        )
        self.name = "CompactionExtension"
        self.context_window = context_window
        self.reports: dict[str, CompactionReport] = {}

    def set_context_window(self, context_window: int) -> None:
        """Resize the limits for another model's window."""
        self.context_window = context_window
        self.max_tokens = max(1, int(context_window * COMPACT_AT))
        self.keep_recent_tokens = max(1, int(context_window * KEEP_RECENT))

    def follow_effort(self, effort: ReasoningEffort) -> None:
        """Summarize with LOW effort, or with none when the model is used without reasoning."""
        self.reasoning_effort = ReasoningEffort.OFF if effort is ReasoningEffort.OFF else ReasoningEffort.LOW

    async def compact(self, context: AgentRunContext, *, force: bool = False) -> CompactionEvent | None:
        tokens = context_tokens(self, context)
        if not force and tokens <= self.max_tokens:
            return None
        keep, count = self.keep_recent_tokens, self.count_tokens
        if force:
            self.keep_recent_tokens = 1  # the pass keeps whole turns: this keeps just the latest one
        # Choosing what to keep counts every suffix of the dialogue: count each message once.
        self.count_tokens = _counted_once(count)
        try:
            self._note_plan(context, tokens, force)
            return await super().compact(context, force=True)
        finally:
            self.keep_recent_tokens, self.count_tokens = keep, count

    def _note_plan(self, context: AgentRunContext, tokens: int, forced: bool) -> None:
        window = compaction_window(
            context.state.messages, keep_recent_tokens=self.keep_recent_tokens, count_tokens=self.count_tokens
        )
        if window is None:
            self.reports.pop(context.session_id, None)
            return
        instructions, older, recent = window
        self.reports[context.session_id] = CompactionReport(
            forced=forced,
            tokens_before=tokens,
            turns_summarized=_user_turns(older),
            includes_checkpoint=any(isinstance(message, CompactedMessage) for message in older),
            tokens_kept=self.count_tokens([*instructions, *recent]),
        )

    # -- what the transcript says ------------------------------------------------------------------

    def tokens_after(self, event: AgentEvent) -> int | None:
        """The estimated context after an applied pass, from its summary and what was kept."""
        report = self.reports.get(event.session_id)
        if report is None or event.compaction is None:
            return None
        summary = CompactedMessage(content=event.compaction.summary)
        return report.tokens_kept + self.count_tokens([summary])

    def notice_text(self, event: AgentEvent) -> str | None:
        """The notice for a COMPACTION_STARTED or _COMPLETED event; None for other events."""
        report = self.reports.get(event.session_id)
        if event.type is AgentEventType.COMPACTION_STARTED:
            return self._started_text(report)
        if event.type is AgentEventType.COMPACTION_COMPLETED:
            if not event.applied:
                return "Not compacted: the summary came out no shorter than what it would replace."
            return self._completed_text(report, event)
        return None

    def _started_text(self, report: CompactionReport | None) -> str:
        if report is None:
            return "Compacting the conversation…"
        turns = _turns(report.turns_summarized, report.includes_checkpoint)
        if report.forced:
            return f"Compacting on request ({_approx(report.tokens_before)} in context): summarizing {turns}…"
        return (
            f"Compacting: the conversation is near the context limit ({_approx(report.tokens_before)}, "
            f"{context_percent(report.tokens_before, self.context_window)} of "
            f"{format_window(self.context_window)}); summarizing {turns} and keeping the recent ones word "
            "for word…"
        )

    def _completed_text(self, report: CompactionReport | None, event: AgentEvent) -> str:
        after = self.tokens_after(event)
        if report is None or after is None:
            return "Compacted: older turns were replaced by a summary."
        turns = _turns(report.turns_summarized, report.includes_checkpoint)
        share = f"{context_percent(after, self.context_window)} of {format_window(self.context_window)}"
        return f"Compacted: {turns} summarized; {_approx(after)} now ({share}, estimated)."


def _counted_once(count: Callable[[Sequence[AnyMessage]], int]) -> Callable[[Sequence[AnyMessage]], int]:
    """``count`` per message, remembered: for one pass, while the messages do not change."""
    known: dict[int, tuple[AnyMessage, int]] = {}

    def count_each(messages: Sequence[AnyMessage]) -> int:
        total = 0
        for message in messages:
            entry = known.get(id(message))
            if entry is None or entry[0] is not message:
                entry = known[id(message)] = (message, count([message]))
            total += entry[1]
        return total

    return count_each


def _turns(count: int, includes_checkpoint: bool) -> str:
    text = f"{count} earlier turn{'s' if count != 1 else ''}"
    return f"{text} and the previous summary" if includes_checkpoint else text
