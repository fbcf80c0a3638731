"""What ``zett -p`` prints: the answer as plain text, or one JSON event per line.

Text (the default): the answer's text goes to standard output as it streams; tool activity,
refusals, warnings and failures are short ``zett: ...`` lines on standard error.

JSON (``--output json``): standard output carries only JSON objects, one per line, flushed per
line; warnings (``notice`` events of level warning or error too) and the failure reason also go
to standard error as text. The schema:

====================  ===========================================================================
``type``              other keys
====================  ===========================================================================
``session``           ``session_id``, ``model``, ``resumed`` (bool): first line, once the model runs
``text``              ``text``: a piece of the answer
``reasoning``         ``text``: a piece of the model's visible reasoning
``tool_started``      ``call_id``, ``name``, ``arguments`` (object): one line per call
``tool_finished``     ``call_id``, ``name``, ``state`` (done/failed/cancelled/skipped), ``output``;
                      a subagent's calls also ``parent_call_id`` (its ``task`` call) and
                      ``session_id`` (the subagent's: call ids repeat across sessions)
``approved``          ``kind`` (shell/edit), ``call_id``, ``session_id`` (whose call), ``target``,
                      ``reason`` (the flag)
``refused``           ``kind`` (shell/edit/question/plan_mode), ``call_id``, ``session_id``,
                      ``target``, ``reason``, ``hint`` (or null)
``subagent_started``  ``call_id`` (the ``task`` call), ``session_id`` (the subagent's),
                      ``parent_session_id`` (the session of the ``task`` call), ``description``,
                      ``agent_type``
``subagent_finished`` ``call_id``, ``session_id``, ``status``, ``input_tokens``, ``output_tokens``
``usage``             ``input_tokens``, ``output_tokens``: one model call's usage
``model_stopped``     ``reason``, ``message``: the model stopped early (output limit...)
``notice``            ``level``, ``text``
``plan_mode``         ``active`` (bool)
``turn_finished``     ``status`` (completed/failed/cancelled), ``error`` (or null), ``session_id``:
                      always the last line
====================  ===========================================================================

A closed standard output (``zett -p ... | head -1``) sets ``broken`` and calls ``on_broken``
once; nothing is written after that.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from zett_tui.core.inert_text import inert_json, make_inert
from zett_tui.runtime.events import (
    ModelCallStarted,
    ModelStopped,
    Notice,
    PlanModeChanged,
    ReasoningChunk,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    TextChunk,
    ToolCallInfo,
    ToolFinished,
    ToolsStarted,
    TurnFinished,
    UIEvent,
    UsageReported,
)

if TYPE_CHECKING:
    from zett_tui.runtime.unattended import AutoAnswer

PREFIX = "zett: "


def _first_line(text: str, limit: int = 160) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


class HeadlessOutput:
    """Shared plumbing: safe writes, the session id, and whether the turn's end was reported."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self.broken = False
        self.finished = False
        self.session_id: str | None = None
        self.on_broken: Callable[[], None] | None = None

    def write_out(self, text: str) -> None:
        if self.broken or not text:
            return
        try:
            self.out.write(make_inert(text))  # model text: no escape sequence reaches the terminal
            self.out.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the stream was closed
            self.broken = True
            if self.on_broken is not None:
                self.on_broken()

    def say(self, text: str) -> None:
        """One ``zett: ...`` line on standard error."""
        try:
            self.err.write(PREFIX + make_inert(text) + "\n")
            self.err.flush()
        except (OSError, ValueError):
            pass

    # -- what the runner reports --------------------------------------------------------------

    def warning(self, text: str) -> None:
        for line in text.splitlines():
            if line.strip():
                self.say(line)

    def session(self, session_id: str, model: str, *, resumed: bool) -> None:
        self.session_id = session_id

    def event(self, event: UIEvent) -> None:
        raise NotImplementedError

    def answered(self, answer: AutoAnswer, session_id: str = "") -> None:
        """What the flags answered to a question of ``session_id`` (a subagent's, or the main one's)."""
        raise NotImplementedError

    def failed_to_start(self, reason: str) -> None:
        """The turn never ran; ``reason`` is the whole line."""
        self.event(TurnFinished("failed", reason))


class TextOutput(HeadlessOutput):
    """The answer on standard output, everything else as ``zett:`` lines on standard error."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        super().__init__(out, err)
        #: The calls started and refused, by session and call id (ids repeat across sessions: a
        #: subagent's ``c1`` is not the main agent's).
        self.calls: dict[tuple[str, str], ToolCallInfo] = {}
        self.refused: set[tuple[str, str]] = set()
        #: The last two characters written to standard output ("" before any).
        self.tail = ""
        self.new_model_call = False
        #: Put before a subagent's tool lines.
        self.subagent_prefix = ""

    def put(self, text: str) -> None:
        self.write_out(text)
        self.tail = (self.tail + text)[-2:]

    def write_answer(self, text: str) -> None:
        """Answer text; the text of a later model call starts a new paragraph."""
        if self.new_model_call and self.tail:
            trailing_newlines = len(self.tail) - len(self.tail.rstrip("\n"))
            self.put("\n\n"[trailing_newlines:])
        self.new_model_call = False
        self.put(text)

    def line(self, text: str) -> None:
        """A status line on standard error, starting on a fresh line when both share a terminal."""
        if self.tail and not self.tail.endswith("\n"):
            self.put("\n")
        self.say(self.subagent_prefix + text)

    def event(self, event: UIEvent) -> None:
        if isinstance(event, TextChunk):
            self.write_answer(event.text)
        elif isinstance(event, ModelCallStarted):
            self.new_model_call = True
        elif isinstance(event, ToolsStarted):
            self.calls.update(((self.session_id or "", call.call_id), call) for call in event.calls)
        elif isinstance(event, ToolFinished):
            self._tool_finished(event, self.session_id or "")
        elif isinstance(event, ModelStopped):
            self.line(
                event.sentence or f"the model stopped early: {_first_line(event.message) or event.reason}"
            )
        elif isinstance(event, Notice):
            if event.level != "changes":  # the TUI's "N files changed" line; -p has no /diff
                self.line(event.text)
        elif isinstance(event, TurnFinished):
            self._finish(event)
        elif isinstance(event, SubagentActivity):
            self._subagent_activity(event)
        # Reasoning, usage, Plan Mode changes and a subagent's start are not shown in text mode.

    def _subagent_activity(self, event: SubagentActivity) -> None:
        """A subagent's tool lines, as the main agent's, marked as its (``runtime.subagents``)."""
        inner = event.event
        if isinstance(inner, ToolsStarted):
            self.calls.update(((event.session_id, call.call_id), call) for call in inner.calls)
        elif isinstance(inner, ToolFinished):
            self.subagent_prefix = "  ↳ "
            try:
                self._tool_finished(inner, event.session_id)
            finally:
                self.subagent_prefix = ""

    def answered(self, answer: AutoAnswer, session_id: str = "") -> None:
        if answer.allowed:
            return  # the tool's own line follows when it ends
        self.refused.add((session_id or self.session_id or "", answer.reply.tool_call_id))
        self.line(answer.describe())

    def _tool_finished(self, event: ToolFinished, session_id: str) -> None:
        if (session_id, event.call_id) in self.refused:
            return  # already said why
        call = self.calls.get((session_id, event.call_id))
        key = call.key_argument if call else ""
        if event.name == "bash":
            what = f"`{key}`"
            done = f"ran {what}"
        else:
            what = f"{event.name} {key}".strip()
            done = what
        if event.state == "done":
            self.line(done)
        elif event.state in ("failed", "refused"):
            self.line(f"{what} {event.state}: {_first_line(event.output) or 'no details'}")
        else:
            self.line(f"{what} was {'cancelled' if event.state == 'cancelled' else 'skipped'}")

    def _finish(self, event: TurnFinished) -> None:
        if self.finished:
            return
        self.finished = True
        if self.tail and not self.tail.endswith("\n"):
            self.put("\n")
        if event.status == "failed":
            self.say(event.error or "the turn failed")
        elif event.status == "cancelled" and not self.broken:
            self.say("cancelled")


class JsonOutput(HeadlessOutput):
    """One JSON object per line on standard output; the failure reason also on standard error."""

    def _subagent_tool(self, activity: SubagentActivity, event: ToolsStarted | ToolFinished) -> None:
        """A subagent's tool call, as the main agent's with the ``task`` call it runs under and the
        subagent's session (call ids are unique only within a session: a subagent's own subagent's
        ``parent_call_id`` is a call of the ``subagent_started`` whose ``session_id`` is its
        ``parent_session_id``)."""
        where = {"parent_call_id": activity.call_id, "session_id": activity.session_id}
        if isinstance(event, ToolsStarted):
            for call in event.calls:
                self.emit(
                    "tool_started", call_id=call.call_id, name=call.name, arguments=call.arguments, **where
                )
        else:
            self.emit(
                "tool_finished",
                call_id=event.call_id,
                name=event.name,
                state=event.state,
                output=event.output,
                **where,
            )

    def emit(self, event_type: str, /, **fields: Any) -> None:
        self.write_out(inert_json(json.dumps({"type": event_type, **fields}, ensure_ascii=False)) + "\n")

    def session(self, session_id: str, model: str, *, resumed: bool) -> None:
        super().session(session_id, model, resumed=resumed)
        self.emit("session", session_id=session_id, model=model, resumed=resumed)

    def event(self, event: UIEvent) -> None:
        if isinstance(event, TextChunk):
            self.emit("text", text=event.text)
        elif isinstance(event, ReasoningChunk):
            self.emit("reasoning", text=event.text)
        elif isinstance(event, ToolsStarted):
            for call in event.calls:
                self.emit("tool_started", call_id=call.call_id, name=call.name, arguments=call.arguments)
        elif isinstance(event, ToolFinished):
            self.emit(
                "tool_finished",
                call_id=event.call_id,
                name=event.name,
                state=event.state,
                output=event.output,
            )
        elif isinstance(event, UsageReported):
            self.emit("usage", input_tokens=event.input_tokens, output_tokens=event.output_tokens)
        elif isinstance(event, ModelStopped):
            self.emit("model_stopped", reason=event.reason, message=event.message, sentence=event.sentence)
        elif isinstance(event, Notice):
            self.emit("notice", level=event.level, text=event.text)
            if event.level in ("warning", "error"):  # a data folder zett cannot write, for one
                self.say(event.text)
        elif isinstance(event, PlanModeChanged):
            self.emit("plan_mode", active=event.active)
        elif isinstance(event, SubagentStarted):
            self.emit(
                "subagent_started",
                call_id=event.call_id,
                session_id=event.session_id,
                parent_session_id=event.parent_session_id,
                description=event.description,
                agent_type=event.agent_type,
            )
        elif isinstance(event, SubagentFinished):
            self.emit(
                "subagent_finished",
                call_id=event.call_id,
                status=event.status,
                input_tokens=event.input_tokens,
                output_tokens=event.output_tokens,
                session_id=event.session_id,
            )
        elif isinstance(event, SubagentActivity) and isinstance(event.event, ToolsStarted | ToolFinished):
            self._subagent_tool(event, event.event)
        elif isinstance(event, TurnFinished):
            self._finish(event)

    def answered(self, answer: AutoAnswer, session_id: str = "") -> None:
        fields: dict[str, Any] = {
            "kind": answer.kind,
            "call_id": answer.reply.tool_call_id,
            "session_id": session_id or self.session_id,
            "target": answer.target,
            "reason": answer.reason,
        }
        if answer.allowed:
            self.emit("approved", **fields)
        else:
            self.emit("refused", **fields, hint=answer.hint)

    def _finish(self, event: TurnFinished) -> None:
        if self.finished:
            return
        self.finished = True
        self.emit("turn_finished", status=event.status, error=event.error, session_id=self.session_id)
        if event.status == "failed":
            self.say(event.error or "the turn failed")
