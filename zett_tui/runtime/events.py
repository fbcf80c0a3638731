"""One translation of runtime events into zett's own small, UI-facing event types.

The TUI, the non-interactive mode and the tests all consume these, never raw ``AgentEvent``s.
Translation is cheap and synchronous: the agent stream has back-pressure, so the consume loop
must never wait on the UI.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.messages import AssistantMessage, ToolCall

from zett_tui.core.image_thumbnail import Cells
from zett_tui.core.tool_display import key_argument
from zett_tui.runtime.stop_words import stop_sentence
from zett_tui.runtime.todo import TODO_EVENT, TodoItem, parse_todos
from zett_tui.runtime.tool_refusal import ToolRefused

#: ``AssistantMessage.attributes`` key of what zett's stream readers found odd in an answer they
#: kept (``providers.messages_stream.STREAM_NOTES``; named here so this module loads no provider).
STREAM_NOTES = "zett_stream_notes"

#: CUSTOM events that wait for the user's answer, by event name.
DECISION_EVENTS = frozenset(
    {"shell_approval_requested", "enter_plan_mode", "exit_plan_mode", "ask_user", "edit_approval_requested"}
    | {"read_access_requested"}
    | {"sandbox_escape_requested"}
    | {"mcp_approval_requested"}
    | {"hook_approval_requested"}
    | {"web_fetch_requested"}
)


#: A CUSTOM event zett's shell tool sends while a command runs: ``{"tool_call_id", "lines"}``,
#: the last few lines of its output (``runtime.shell.live_output``).
TOOL_OUTPUT_EVENT = "tool_output"

#: The shell tool's own default when the model leaves ``timeout_seconds`` out. The approval
#: payload says 30 in that case, which is not what runs.
BASH_DEFAULT_TIMEOUT = 60


@dataclass(frozen=True, slots=True)
class TextChunk:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningChunk:
    text: str


@dataclass(frozen=True, slots=True)
class ModelCallStarted:
    """A model call began (the first of a turn, or the next after tool results)."""


@dataclass(frozen=True, slots=True)
class ToolCallInfo:
    call_id: str
    name: str
    arguments: dict[str, Any]

    @property
    def key_argument(self) -> str:
        return key_argument(self.name, self.arguments)


@dataclass(frozen=True, slots=True)
class ToolsStarted:
    calls: tuple[ToolCallInfo, ...]


@dataclass(frozen=True, slots=True)
class ToolFinished:
    call_id: str
    name: str
    #: "done" | "failed" | "refused" (by a rule: ``ToolRefused``) | "cancelled" | "skipped"
    state: str
    output: str


@dataclass(frozen=True, slots=True)
class ToolOutputLive:
    """The last lines a running tool (a shell command) has written so far."""

    call_id: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class UsageReported:
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class ContextMeasured:
    """How full the context window is: after each model call (the provider's count of its input
    and output), or an estimate (at start, after a compaction, after a model switch)."""

    tokens: int
    window: int
    estimated: bool = False


@dataclass(frozen=True, slots=True)
class ModelStopped:
    """The model stopped abnormally (output limit, refusal, context full...).

    ``reason`` and ``message`` are the runtime's reason and the provider's own words;
    ``sentence`` says it all for a person (``runtime.stop_words``)."""

    reason: str
    message: str
    sentence: str = ""


@dataclass(frozen=True, slots=True)
class DecisionRequested:
    """The runtime waits for the user: an approval, a question, a Plan Mode decision."""

    kind: str
    session_id: str
    payload: dict[str, Any]
    call: ToolCallInfo | None = None
    #: Who asks when it is not the main agent: a subagent's ``type: description`` ("" for the main one).
    asker: str = ""


@dataclass(frozen=True, slots=True)
class PlanModeChanged:
    active: bool


@dataclass(frozen=True, slots=True)
class TurnFinished:
    status: str  # "completed" | "failed" | "cancelled" | "blocked" (by a UserPromptSubmit hook)
    error: str | None = None
    answer: str = ""


@dataclass(frozen=True, slots=True)
class Notice:
    text: str
    level: str = "info"
    #: A turn's "N files changed" line: its checkpoints (before, after) and ``[path, added,
    #: removed, status]`` per file, so the line can expand to the files and their diff.
    changes: tuple[str, str] | None = None
    files: tuple[tuple[Any, ...], ...] = ()
    #: ``search``: a hosted web search's rows, kept with the turn so a resumed session shows them.
    source: str = ""
    #: An image's line: its small preview (``core.image_thumbnail``), when previews are on.
    preview: Cells | None = None


@dataclass(frozen=True, slots=True)
class SteeringDelivered:
    """A message the user sent to the running turn went in (before this model call)."""

    text: str


@dataclass(frozen=True, slots=True)
class TodoChanged:
    """The model's checklist now reads ``items`` (empty: cleared)."""

    items: tuple[TodoItem, ...]


@dataclass(frozen=True, slots=True)
class SubagentStarted:
    """The ``task`` call ``call_id`` started a subagent (``runtime.subagents``) under the session
    ``session_id``. ``parent_session_id`` is the session whose ``task`` call it is: the main
    session's, or (with ``[subagents] max_depth`` above 1) another subagent's, whose row
    ``call_id`` then is. Call ids are unique only within their session."""

    call_id: str
    session_id: str
    description: str
    agent_type: str
    model: str
    parent_session_id: str = ""


@dataclass(frozen=True, slots=True)
class SubagentActivity:
    """One UI event of the subagent the ``task`` call ``call_id`` runs (its tool rows, its tokens);
    ``session_id`` is the subagent's (as its ``SubagentStarted`` said)."""

    call_id: str
    event: Any
    session_id: str = ""


@dataclass(frozen=True, slots=True)
class SubagentFinished:
    """The subagent of ``call_id`` (session ``session_id``) ended: ``status`` completed, failed or
    cancelled."""

    call_id: str
    status: str
    input_tokens: int = 0
    output_tokens: int = 0
    error: str = ""
    session_id: str = ""


UIEvent = (
    TextChunk
    | ReasoningChunk
    | ModelCallStarted
    | ToolsStarted
    | ToolFinished
    | ToolOutputLive
    | UsageReported
    | ContextMeasured
    | ModelStopped
    | DecisionRequested
    | PlanModeChanged
    | TurnFinished
    | Notice
    | SteeringDelivered
    | TodoChanged
    | SubagentStarted
    | SubagentActivity
    | SubagentFinished
)


_SERVER_TOOL_EVENTS = frozenset(
    {
        AgentEventType.SERVER_TOOL_STARTED,
        AgentEventType.SERVER_TOOL_INPUT_DELTA,
        AgentEventType.SERVER_TOOL_COMPLETED,
        AgentEventType.SERVER_TOOL_FAILED,
    }
)


def _call_info(call: ToolCall) -> ToolCallInfo:
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    return ToolCallInfo(call.id, call.name, dict(arguments))


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return "\n".join(getattr(part, "text", "[image]") for part in content)
    return str(content)


@dataclass
class EventTranslator:
    """Turns each ``AgentEvent`` into zero or more UI events."""

    tool_names: dict[str, str] = field(default_factory=dict)
    #: The provider's hosted tools (web search) running now: call id -> (name, input so far).
    server_calls: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Words for a compaction event (how full the context was, what is left); None: the generic ones.
    compaction_notes: Callable[[AgentEvent], str | None] | None = None

    def translate(self, event: AgentEvent) -> list[UIEvent]:
        kind = event.type
        if kind is AgentEventType.TEXT_DELTA:
            return [TextChunk(event.delta)] if event.delta else []
        if kind is AgentEventType.REASONING_DELTA:
            return [ReasoningChunk(event.delta)] if event.delta else []
        if kind is AgentEventType.MODEL_STARTED:
            return [ModelCallStarted()]
        if kind is AgentEventType.MODEL_COMPLETED and event.response is not None:
            usage = event.response.usage
            reported: list[UIEvent] = [UsageReported(usage.input_tokens or 0, usage.output_tokens or 0)]
            notes = event.response.message.attributes.get(STREAM_NOTES)
            if isinstance(notes, list):
                reported += [Notice(str(note), "warning") for note in notes]
            return reported
        if kind is AgentEventType.MODEL_STOPPED and event.stop is not None:
            answer = event.message.content if isinstance(event.message, AssistantMessage) else ""
            sentence = stop_sentence(event.stop, answer)
            return [ModelStopped(str(event.stop.reason), event.stop.message or "", sentence)]
        if kind is AgentEventType.TOOL_STARTED:
            calls = tuple(_call_info(call) for call in event.tool_calls)
            for call in calls:
                self.tool_names[call.call_id] = call.name
            return [ToolsStarted(calls)]
        if kind in (AgentEventType.TOOL_COMPLETED, AgentEventType.TOOL_FAILED, AgentEventType.TOOL_SKIPPED):
            return [self._tool_finished(event)]
        if kind is AgentEventType.CUSTOM:
            return self._custom(event)
        if kind in _SERVER_TOOL_EVENTS:
            return self._server_tool(event)
        if kind is AgentEventType.STEERING_STARTED and event.steering_message is not None:
            return [SteeringDelivered(_message_text(event.steering_message.content))]
        if kind in (AgentEventType.COMPACTION_STARTED, AgentEventType.COMPACTION_COMPLETED):
            text = self.compaction_notes(event) if self.compaction_notes is not None else None
            if text:
                return [Notice(text)]
        if kind is AgentEventType.COMPACTION_STARTED:
            return [Notice("Compacting the conversation to fit the context window…")]
        if kind is AgentEventType.COMPACTION_COMPLETED:
            return [Notice("Conversation compacted." if event.applied else "Nothing to compact.")]
        return []

    def _server_tool(self, event: AgentEvent) -> list[UIEvent]:
        """A tool the provider runs itself (its web search): one row with its query and sources."""
        kind = event.type
        if kind is AgentEventType.SERVER_TOOL_STARTED and event.server_tool_call is not None:
            call = event.server_tool_call
            given = json.dumps(dict(call.input)) if call.input else ""
            self.server_calls[call.id] = (call.name, given)
        elif kind is AgentEventType.SERVER_TOOL_INPUT_DELTA and event.server_tool_input_delta is not None:
            delta = event.server_tool_input_delta
            name, sofar = self.server_calls.get(delta.call_id, ("", ""))
            self.server_calls[delta.call_id] = (name, sofar + delta.delta)
        elif event.server_tool_result is not None:
            from zett_tui.runtime.web.search import search_rows

            result = event.server_tool_result
            _name, arguments = self.server_calls.pop(result.call_id, (result.name, ""))
            failed = kind is AgentEventType.SERVER_TOOL_FAILED
            error = (result.error_code or "failed") if failed else None
            return [Notice(search_rows(result.name, arguments, result.output, error), source="search")]
        return []

    def _tool_finished(self, event: AgentEvent) -> ToolFinished:
        call = event.tool_calls[0] if event.tool_calls else None
        message = event.message
        call_id = call.id if call else getattr(message, "tool_call_id", "")
        name = call.name if call else getattr(message, "name", "")
        output = _message_text(message.content) if message is not None else ""
        if event.type is AgentEventType.TOOL_SKIPPED:
            state = "skipped"
        elif event.type is AgentEventType.TOOL_COMPLETED:
            state = "done"
        elif "Request cancelled before tool completion" in output:
            state = "cancelled"
        elif isinstance(event.error, ToolRefused):
            state = "refused"
        else:
            state = "failed"
            if event.error is not None and not output:
                output = str(event.error)
        return ToolFinished(call_id, name, state, output)

    def _custom(self, event: AgentEvent) -> list[UIEvent]:
        name = event.name or ""
        payload = dict(event.payload or {})
        if name in DECISION_EVENTS:
            call = _call_info(event.tool_calls[0]) if event.tool_calls else None
            if name == "shell_approval_requested" and call is not None:
                payload["timeout_seconds"] = call.arguments.get("timeout_seconds", BASH_DEFAULT_TIMEOUT)
            return [DecisionRequested(name, event.session_id, payload, call)]
        if name == TOOL_OUTPUT_EVENT:
            lines = payload.get("lines")
            call_id = payload.get("tool_call_id")
            if isinstance(call_id, str) and isinstance(lines, list):
                return [ToolOutputLive(call_id, tuple(str(line) for line in lines))]
            return []
        if name == TODO_EVENT:
            try:
                return [TodoChanged(parse_todos(payload.get("todos")))]
            except ValueError:
                return []
        if name == "plan_mode_entered":
            return [PlanModeChanged(True)]
        if name == "plan_mode_exited":
            return [PlanModeChanged(False)]
        return []
