"""One subagent's run: a request of the parent's own Agent under a child session.

The child is not a second agent with a second set of extensions: it is a request of the same
``Agent`` under its own session id (``parent_session_id`` set). So every gate, the sandbox, the
read rules, redaction, hooks and the checkpoints of the parent see its calls exactly as they see
the parent's, by construction. Its context is its own: the history store keys it by the child
session, so its first request holds the system prompt, the project instructions, its kind's
instructions and the task prompt, and nothing of the parent's conversation.

Its events reach the parent's UI: a question (an approval, a dialog) as the same
``DecisionRequested`` the parent's would be, with ``asker`` naming the child; everything else
wrapped in ``SubagentActivity`` for its block under the ``task`` row. Its streamed text is passed
on in batches (at most ``TEXT_HZ`` a second per child, and before its next other event), so four
children streaming cost the parent's screen a few events a second. Its token use is passed on as
the parent's ``UsageReported`` too, so it counts toward the turn. Its messages go into the parent
turn's line of the session file (``metadata.zett.subagents[call_id]``), redacted with that line;
while it runs, what it has done so far is kept with the turn in progress (``live_records``, which
the turn journal writes), so a zett killed mid-run keeps it too.

Cancelling the parent's tool call (Esc) cancels the child's stream where it waits: the runtime
then stops its tool calls and their commands. A child that fails raises ``SubagentFailed``: the
parent model reads why as the tool's result.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zett_agent.agent import Agent, AgentRunConfig, AgentRunContext
from zett_agent.events import AgentEventType
from zett_agent.ids import new_uuid7
from zett_agent.messages import UserMessage
from zett_agent.model import AgentModel

from zett_tui.providers.errors import describe_error
from zett_tui.runtime import agent_compat
from zett_tui.runtime.events import (
    DecisionRequested,
    EventTranslator,
    Notice,
    ReasoningChunk,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    TextChunk,
    UIEvent,
    UsageReported,
)
from zett_tui.runtime.subagents.types import AgentType

if TYPE_CHECKING:
    from zett_tui.runtime.turn_model import TurnModel

log = logging.getLogger(__name__)

Sink = Callable[[UIEvent], None]

#: How many subagents run at once by default (more ``task`` calls in a step wait for a slot).
DEFAULT_PARALLEL = 4
#: How deep delegation goes by default: the main agent's children cannot start their own.
DEFAULT_DEPTH = 1
#: How many times a second one subagent's streamed text is passed to the UI at most.
TEXT_HZ = 4
#: The status a run has in the turn in progress's record until it ends.
RUNNING = "running"


class SubagentFailed(RuntimeError):
    """The subagent could not finish; ``str()`` is what the parent model reads."""


@dataclass(frozen=True, slots=True)
class Child:
    """A running (or finished) subagent's session."""

    call_id: str
    kind: AgentType
    parent_session_id: str
    depth: int
    description: str = ""
    #: Its tokens so far, input and output (its model calls' sum): what the turn in progress
    #: records for it while it runs.
    usage: list[int] = field(default_factory=lambda: [0, 0])


class _TextBatch:
    """A subagent's streamed text, held back until it is passed on as one ``TextChunk``."""

    __slots__ = ("due", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.due = 0.0

    def add(self, text: str, now: float) -> str | None:
        """Keep ``text``; the whole batch when it is due (then it starts again)."""
        self.parts.append(text)
        if now < self.due:
            return None
        self.due = now + 1 / TEXT_HZ
        return self.take()

    def take(self) -> str | None:
        text, self.parts = "".join(self.parts), []
        return text or None


class SubagentRunner:
    """Runs the host's subagents and knows which sessions are children."""

    def __init__(
        self,
        kinds: Sequence[AgentType],
        *,
        max_parallel: int = DEFAULT_PARALLEL,
        max_depth: int = DEFAULT_DEPTH,
        model_label: Callable[[], str] = lambda: "",
        describe: Callable[[BaseException], str] = describe_error,
        model_for: Callable[[str], tuple[TurnModel | None, str]] | None = None,
    ) -> None:
        self.kinds = {kind.name: kind for kind in kinds}
        self.max_parallel = max(1, max_parallel)
        self.max_depth = max(0, max_depth)
        self.agent: Agent | None = None
        self._model_label = model_label
        self._describe = describe
        self._model_for = model_for
        self._sink: Sink | None = None
        self._slots: asyncio.Semaphore | None = None
        self.children: dict[str, Child] = {}
        #: Called when a running subagent finished a step: the turn in progress is written again
        #: (``TurnJournal.note_subagents``), so a kill keeps what the subagent did so far.
        self.on_progress: Callable[[], None] = lambda: None
        #: Finished runs by the session that started them, then by its ``task`` call: taken into
        #: that session's turn line when it ends (``take_records``), a subagent's into its own.
        self._records: dict[str, dict[str, dict[str, Any]]] = {}

    def use(self, kinds: Sequence[AgentType]) -> None:
        """Offer ``kinds`` from the next request on (a project trusted mid-session adds its own)."""
        self.kinds = {kind.name: kind for kind in kinds}

    # -- what the extensions ask -----------------------------------------------------------------

    def child(self, session_id: str) -> Child | None:
        return self.children.get(session_id)

    def root_session(self, session_id: str) -> str:
        """The main session a subagent's session belongs to (a session that is none's: itself):
        what the user allowed "for this session" holds for its subagents too."""
        seen = 0
        while (child := self.children.get(session_id)) is not None and seen < 64:
            session_id, seen = child.parent_session_id, seen + 1
        return session_id

    def reads_only(self, session_id: str) -> bool:
        """Whether ``session_id`` is a read-only subagent's (``explore``): its shell commands run
        with the project read-only and the network off (``runtime.shell.bash_tool``)."""
        child = self.children.get(session_id)
        return child is not None and child.kind.read_only_shell

    def may_delegate(self, session_id: str) -> bool:
        """Whether a request of ``session_id`` gets the ``task`` tool (depth below the limit)."""
        child = self.children.get(session_id)
        depth = child.depth if child is not None else 0
        return bool(self.kinds) and depth < self.max_depth

    def take_records(self, session_id: str) -> dict[str, dict[str, Any]]:
        """The runs the turn of ``session_id`` started, for its line (and forgotten here). They are
        not in the request's metadata while it runs: the history stores that with every message."""
        return self._records.pop(session_id, {})

    def live_records(self, session_id: str) -> dict[str, dict[str, Any]]:
        """The runs the turn of ``session_id`` started so far, finished or not (a running one with
        status ``running`` and its messages up to now): what the turn in progress keeps on disk."""
        agent = self.agent
        records = dict(self._records.get(session_id, {}))
        if agent is None:
            return records
        for child_session, child in list(self.children.items()):
            if child.parent_session_id != session_id or child.call_id in records:
                continue
            record = _record(agent, child_session, child.kind, child.description, RUNNING, child.usage, "")
            nested = self.live_records(child_session)
            if nested:
                record["subagents"] = nested
            records[child.call_id] = record
        return records

    # -- the turn's UI ---------------------------------------------------------------------------

    def attach(self, sink: Sink | None) -> None:
        """Where the children's events go during the parent's turn (None between turns)."""
        self._sink = sink

    def _emit(self, event: UIEvent) -> None:
        sink = self._sink
        if sink is None:
            return
        try:
            sink(event)
        except Exception:  # the UI must not end the child
            log.warning("the UI failed to take %s", type(event).__name__, exc_info=True)

    # -- one child -------------------------------------------------------------------------------

    async def run(
        self, parent: AgentRunContext, call_id: str, description: str, prompt: str, type_name: str
    ) -> str:
        """Run one subagent to its end; its report (the tool's result), or ``SubagentFailed``."""
        agent = self.agent
        if agent is None:
            raise SubagentFailed("subagents are not ready yet")
        kind = self.kinds.get(type_name or "general")
        if kind is None:
            raise SubagentFailed(f"unknown subagent_type {type_name!r}; use one of: {', '.join(self.kinds)}")
        parent_child = self.children.get(parent.session_id)
        depth = (parent_child.depth if parent_child is not None else 0) + 1
        session_id = new_uuid7()
        child = self.children[session_id] = Child(call_id, kind, parent.session_id, depth, description)
        label = f"{kind.name}: {' '.join(description.split())}"
        model, model_label = await self._model(kind, parent)
        self._emit(
            SubagentStarted(call_id, session_id, description, kind.name, model_label, parent.session_id)
        )
        translator = EventTranslator()
        text = _TextBatch()
        usage = child.usage
        answer, stop, status, error = "", None, "completed", ""
        try:
            if self._slots is None:
                self._slots = asyncio.Semaphore(self.max_parallel)
            async with self._slots:
                config = AgentRunConfig(session_id=session_id, parent_session_id=parent.session_id)
                metadata: dict[str, Any] = {
                    "zett": {"subagent": {"type": kind.name, "parent_call_id": call_id}}
                }
                stream = agent.stream(prompt, config=config, model=model or parent.model, metadata=metadata)
                async with contextlib.aclosing(stream) as events:  # type: ignore[type-var]
                    async for event in events:
                        for ui_event in translator.translate(event):
                            self._pass_on(child, session_id, label, ui_event, text)
                        if event.type in _STEP_ENDS:
                            self._progress()
                        if event.type is AgentEventType.RUN_COMPLETED and event.message is not None:
                            answer = _text(event.message.content)
                            stop = getattr(event.message, "stop", None)
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except Exception as failure:
            status, error = "failed", self._describe(failure)
            log.warning("subagent %s failed", kind.name, exc_info=True)
        finally:
            if model is not None and hasattr(model, "aclose"):
                with contextlib.suppress(Exception):
                    await model.aclose()
            rest = text.take()
            if rest is not None:
                self._emit(SubagentActivity(call_id, TextChunk(rest), session_id))
            self._emit(SubagentFinished(call_id, status, usage[0], usage[1], error, session_id))
            record = _record(agent, session_id, kind, description, status, usage, error)
            nested = self.take_records(session_id)
            if nested:
                record["subagents"] = nested
            self._records.setdefault(parent.session_id, {})[call_id] = record
            agent_compat.forget_session(agent, session_id)  # its messages are in the record now
            self.children.pop(session_id, None)  # its requests are over: nothing asks about it again
            self._progress()
        if status == "failed":
            raise SubagentFailed(f"The {kind.name} subagent failed: {error}")
        if stop is not None and not stop.ok:
            notice = f"[The subagent stopped before finishing: {stop.describe()}. Treat this report as incomplete.]"
            return f"{notice}\n\n{answer}" if answer else notice
        return answer or "(the subagent gave no report)"

    async def _model(self, kind: AgentType, parent: AgentRunContext) -> tuple[AgentModel | None, str]:
        """The model the kind names, built for this run (None: the parent request's), and its label."""
        zett = parent.metadata.get("zett")
        answering = zett.get("model") if isinstance(zett, dict) else None  # the turn's, if another
        if not kind.model or self._model_for is None:
            return None, answering if isinstance(answering, str) and answering else self._model_label()
        from zett_tui.runtime.turn_model import build_for_turn

        wanted, line = self._model_for(kind.model)
        if line:
            self._emit(Notice(line.replace("/agent:", f"Subagent {kind.name}:"), "warning"))
        if wanted is None:
            return None, self._model_label()
        built = await build_for_turn(wanted, self._model_label(), self._emit)
        return (built, wanted.label) if built is not None else (None, self._model_label())

    def _progress(self) -> None:
        try:
            self.on_progress()
        except Exception:  # the turn in progress's copy; the run goes on
            log.warning("the subagent's progress could not be noted", exc_info=True)

    def _pass_on(self, child: Child, session_id: str, label: str, event: UIEvent, text: _TextBatch) -> None:
        call_id = child.call_id
        if isinstance(event, ReasoningChunk):
            return  # its thinking is not shown under the task row
        if isinstance(event, TextChunk):
            batch = text.add(event.text, time.monotonic())
            if batch is not None:
                self._emit(SubagentActivity(call_id, TextChunk(batch), session_id))
            return
        rest = text.take()  # what it said before this event, first
        if rest is not None:
            self._emit(SubagentActivity(call_id, TextChunk(rest), session_id))
        if isinstance(event, DecisionRequested):
            self._emit(dataclasses.replace(event, asker=label))
            return
        if isinstance(event, UsageReported):
            child.usage[0] += event.input_tokens
            child.usage[1] += event.output_tokens
            self._emit(event)  # the child's tokens count toward the turn's
        self._emit(SubagentActivity(call_id, event, session_id))


#: The events after which a subagent's run so far is written with the turn in progress.
_STEP_ENDS = frozenset(
    {AgentEventType.MODEL_COMPLETED, AgentEventType.TOOL_COMPLETED, AgentEventType.TOOL_FAILED}
)


def _record(
    agent: Agent,
    session_id: str,
    kind: AgentType,
    description: str,
    status: str,
    usage: list[int],
    error: str,
) -> dict[str, Any]:
    """The child's run as its parent turn's line keeps it (``metadata.zett.subagents[call_id]``)."""
    from zett_agent.storage import encode_messages

    try:
        state = agent.get_state(session_id)
        messages = list(state.messages) if state is not None else []
        start = next(
            (index for index, item in enumerate(messages) if isinstance(item, UserMessage)), len(messages)
        )
        encoded = json.loads(encode_messages(messages[start:]))
    except Exception:  # the record is a copy; the child's run itself is over
        log.warning("the subagent's messages could not be recorded", exc_info=True)
        encoded = []
    return {
        "session_id": session_id,
        "type": kind.name,
        "description": description,
        "status": status,
        "input_tokens": usage[0],
        "output_tokens": usage[1],
        **({"error": error} if error else {}),
        "messages": encoded,
    }


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") for part in content or ())
