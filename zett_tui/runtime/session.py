"""One zett session without a screen: the turn queue, the permission mode and the queue of
pending decisions. No Textual here.

``entry/bootstrap.py``'s ``open_session`` opens a session once (workspace commands and skills,
the host with its extensions, the resumed history); ``SessionCore`` then runs its turns one at a time and puts the
runtime's questions to an ``Asker`` (``runtime.decisions``), one at a time, in the order asked:
a question that a rule saved meanwhile settles is answered without asking. Front ends read the
state (``activity``, ``queued``, ``mode``, ``context``; ``state_listeners`` hear each change)
and listen to the events. The core keeps a line for each answer the runtime took (asked, or
settled by a rule) with the running turn (``AgentHost.note_decision``), whichever front end gave
it, so a session reads the same resumed anywhere: in the front end's own words
(``describe_answer``) or in the shared ones (``runtime.decisions.answer_lines``);
``answer_listeners`` then hear of it.

The chat screen (``ui/chat/turns.py`` and its dialogs), ``zett -p`` and ``zett acp`` all run on
this.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from zett_tui.core.inert_text import encodable
from zett_tui.runtime import agent_compat
from zett_tui.runtime.activity import Activity, describe_activity
from zett_tui.runtime.decisions import Asker, Reply, ShellReply, ShellRequest, UnknownRequest, parse_request
from zett_tui.runtime.decisions.answer_lines import answer_line, settled_line
from zett_tui.runtime.events import (
    ContextMeasured,
    DecisionRequested,
    ModelCallStarted,
    PlanModeChanged,
    SteeringDelivered,
    TextChunk,
    ToolsStarted,
    TurnFinished,
    UIEvent,
)
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.prompt_queue import PromptQueue

if TYPE_CHECKING:
    from zett_tui.core.images import PreparedImage
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.turn_model import TurnModel

log = logging.getLogger(__name__)

__all__ = [
    "NOTHING_TO_COMPACT",
    "Activity",
    "DecisionAnswered",
    "SessionBusy",
    "SessionCore",
    "describe_activity",
]

#: ``compact``'s answer when there was nothing older than the latest turn to summarize.
NOTHING_TO_COMPACT = "Nothing to compact yet."


class SessionBusy(Exception):
    """A turn is already running in this session."""


@dataclass(frozen=True, slots=True)
class DecisionAnswered:
    """The runtime took an answer to ``decision``: the asker's, or one a rule (or the mode)
    settled while it waited (``settled_by`` says which; empty when someone was asked)."""

    decision: DecisionRequested
    reply: Reply
    settled_by: str = ""
    #: The line the session keeps for it (``describe_answer``, or ``runtime.decisions.answer_lines``).
    record: str = ""


@dataclass
class SessionCore:
    """A started host's turns, one at a time, and its questions, one at a time."""

    host: AgentHost
    asker: Asker
    #: Prompts waiting for the running turn to end (``queue``), taken back with ``take_back``, and
    #: the steering notes not yet delivered. A front end may pass the one it showed before the
    #: session opened (the chat queues prompts typed while the model starts).
    queued: PromptQueue = field(default_factory=PromptQueue)
    #: Every event of every turn, after the core has seen it (cheap and synchronous).
    listeners: list[Callable[[UIEvent], None]] = field(default_factory=list)
    #: Called after each change of ``activity``, ``tools``, ``context`` or ``mode``.
    state_listeners: list[Callable[[], None]] = field(default_factory=list)
    #: Every answer the runtime took, asked or settled (``DecisionAnswered``), after the core
    #: kept its line with the turn (so a resumed session shows it, whichever front end answered).
    answer_listeners: list[Callable[[DecisionAnswered], None]] = field(default_factory=list)
    #: A front end's own line for an answer it gave (None: the words of ``answer_lines``).
    describe_answer: Callable[[DecisionRequested, Reply], str | None] = field(default=lambda *_: None)
    context: ContextMeasured | None = None
    #: The question the asker is answering now (None between questions).
    asking: DecisionRequested | None = None
    _activity: Activity = Activity.IDLE
    #: The tools the running turn started last (``running bash, grep``).
    _tools: str = ""
    _turn: asyncio.Task[TurnFinished] | None = None
    _pending: deque[DecisionRequested] = field(default_factory=deque)
    _answering: asyncio.Task[None] | None = None

    @property
    def activity(self) -> Activity:
        return self._activity

    @property
    def tools(self) -> str:
        """The tools running now, by name (empty unless ``activity`` is WORKING)."""
        return self._tools

    def _set_activity(self, activity: Activity, tools: str = "") -> None:
        if (activity, tools) != (self._activity, self._tools):
            self._activity, self._tools = activity, tools
            self._state_changed()

    def _state_changed(self) -> None:
        for listener in list(self.state_listeners):
            try:
                listener()
            except Exception:
                log.warning("a session state listener failed", exc_info=True)

    @property
    def session_id(self) -> str:
        return self.host.session_id

    @property
    def mode(self) -> PermissionMode:
        return self.host.mode

    def set_mode(self, mode: PermissionMode) -> None:
        self.host.set_mode(mode)
        self.mode_changed()

    def mode_changed(self) -> None:
        """The host's mode changed (by ``set_mode``, or by the runtime's Plan Mode, which the core
        hears as ``PlanModeChanged``): the questions still queued that it settles are answered,
        and the state listeners hear of it."""
        self._settle_pending()
        self._state_changed()

    @property
    def busy(self) -> bool:
        return self._turn is not None and not self._turn.done()

    @property
    def pending_decisions(self) -> int:
        return len(self._pending)

    @property
    def waiting(self) -> Sequence[DecisionRequested]:
        """The questions queued behind the one being asked, oldest first."""
        return tuple(self._pending)

    async def prompt(
        self, text: str, *, model: TurnModel | None = None, images: Sequence[PreparedImage] = ()
    ) -> TurnFinished:
        """Run one turn now. Raises ``SessionBusy`` while another runs; cancelling the caller (or
        ``cancel``) cancels the turn, which the runtime records as cancelled. ``images`` go after
        the text; a model known not to read them gets nothing, and the turn fails saying why."""
        return await self._run(self.host.run_turn(text, self._sink, model=model, images=images))

    async def continue_turn(self) -> TurnFinished:
        """``/continue``: carry on the turn that was cut off, as a turn of its own."""
        if await self.host.resume_point() is None:
            return TurnFinished("completed", answer="Nothing to continue: the last turn ended.")
        return await self._run(self.host.continue_turn(self._sink))

    async def compact(self) -> TurnFinished:
        """``/compact``: summarize the older turns now, as a turn of its own."""

        async def compacting() -> TurnFinished:
            applied = await self.host.compact(self._sink)
            return TurnFinished("completed", answer="" if applied else NOTHING_TO_COMPACT)

        return await self._run(compacting(), Activity.COMPACTING)

    async def _run(
        self, work: Coroutine[Any, Any, TurnFinished], activity: Activity = Activity.THINKING
    ) -> TurnFinished:
        if self.busy:
            work.close()
            raise SessionBusy("a turn is already running in this session")
        turn = self._turn = asyncio.create_task(work)
        self._set_activity(activity)
        try:
            return await asyncio.shield(turn)
        except asyncio.CancelledError:
            turn.cancel()
            with contextlib.suppress(BaseException):
                await turn
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the caller itself was cancelled
            return TurnFinished("cancelled")  # ``cancel`` stopped the turn; the caller goes on
        finally:
            self._end_turn()

    async def run_queued(self) -> list[TurnFinished]:
        """Run the queued prompts, in order, until the queue is empty or a turn does not complete."""
        finished: list[TurnFinished] = []
        while self.queued and not self.busy:
            prompt = self.queued.pop_next()
            if prompt is None:
                break
            result = await self.prompt(prompt)
            finished.append(result)
            if result.status != "completed":
                break
        return finished

    def queue(self, text: str) -> None:
        self.queued.add(text)

    def take_back(self) -> str | None:
        """The last queued prompt, out of the queue (None when it is empty)."""
        return self.queued.take_back("")

    def steer(self, text: str) -> bool:
        """Send the user's ``text`` to the running turn; False when none runs. Until the runtime
        delivers it (at its next model call) it is listed in ``queued.pending_steers``."""
        if not self.tell(text):
            return False
        self.queued.steer_sent(encodable(text))  # as the runtime will say it was delivered
        return True

    def tell(self, text: str) -> bool:
        """Send a note to the running turn that is not the user's prompt (a dialog's note to the
        model): not listed with the steering notes. False when no turn runs."""
        return self.busy and self.host.steer(text)

    def cancel(self) -> bool:
        """Stop the running turn (its commands are killed); False when none runs."""
        if not self.busy or self._turn is None:
            return False
        self._turn.cancel()
        return True

    async def aclose(self) -> None:
        """Cancel a running turn, wait until it is recorded, and close the host."""
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
            with contextlib.suppress(BaseException):
                await self._turn
        await self.host.aclose()

    # -- inside a turn ----------------------------------------------------------------------------

    def _sink(self, event: UIEvent) -> None:
        if isinstance(event, DecisionRequested):
            self._pending.append(event)
            if self._answering is None or self._answering.done():
                self._answering = asyncio.create_task(self._answer_pending())
        elif isinstance(event, ModelCallStarted):
            self._set_activity(Activity.THINKING)
        elif isinstance(event, TextChunk):
            if self._activity is Activity.THINKING:
                self._set_activity(Activity.WRITING)
        elif isinstance(event, ToolsStarted):
            self._set_activity(Activity.WORKING, ", ".join(call.name for call in event.calls))
        elif isinstance(event, ContextMeasured):
            self.context = event
            self._state_changed()
        elif isinstance(event, SteeringDelivered):
            self.queued.steer_delivered(event.text)
        elif isinstance(event, PlanModeChanged):  # the host follows it right after the sink
            asyncio.get_running_loop().call_soon(self.mode_changed)
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:  # a front end's mistake must not stop the turn
                log.warning("a session listener failed on %s", type(event).__name__, exc_info=True)

    async def _answer_pending(self) -> None:
        while self._pending:
            decision = self._pending.popleft()
            request = parse_request(decision)
            if self._settle(decision, request):
                continue
            self._set_activity(Activity.WAITING)
            self.asking = decision
            record = ""
            try:
                reply = await self.asker.ask(request)
            except asyncio.CancelledError:
                raise
            except Exception:  # a front end that cannot ask refuses: nothing runs unasked
                log.warning("asking about %s failed", decision.kind, exc_info=True)
                reply = request.refuse("zett could not ask the user")
                record = "✗ Declined: zett could not ask you"
            finally:
                self.asking = None
            self._set_activity(Activity.WORKING)
            if self.host.answer(decision, reply):
                record = record or self._line(request, decision, reply)
                self._answered(DecisionAnswered(decision, reply, record=record))
            else:
                log.info("late or duplicate answer to %s ignored", decision.kind)

    def _settle(self, decision: DecisionRequested, request: object) -> bool:
        """A command a rule (or the mode) now allows runs without its question (True)."""
        policy = self.host.shell_policy
        if policy is None or not isinstance(request, ShellRequest):
            return False
        verdict = policy.verdict(request.session_id, request.command)
        if not verdict.allowed:
            return False
        reply = ShellReply(request.tool_call_id, run=True)
        settled_by = verdict.reason or "a rule"
        if self.host.answer(decision, reply):
            record = settled_line(request, settled_by)
            self._answered(DecisionAnswered(decision, reply, settled_by=settled_by, record=record))
        return True

    def _line(self, request: object, decision: DecisionRequested, reply: Reply) -> str:
        """The line for an answer someone gave: the front end's own, or the shared words."""
        if isinstance(request, UnknownRequest):
            return f"✗ Declined: zett cannot put the question '{request.kind_name}'"
        try:
            own = self.describe_answer(decision, reply)
        except Exception:
            log.warning("a front end could not describe its answer", exc_info=True)
            own = None
        return own or answer_line(request, reply)

    def _answered(self, answered: DecisionAnswered) -> None:
        """Keep the answer's line with the turn (a subagent's says which one asked), then tell
        the front ends."""
        decision = answered.decision
        if decision.asker:
            answered = replace(answered, record=f"{answered.record} (subagent {decision.asker})")
        call_id = decision.payload.get("tool_call_id")
        self.host.note_decision(
            answered.record,
            call_id if isinstance(call_id, str) else None,
            declined=answered.reply.declined,
            subagent_session=decision.session_id if decision.asker else None,
        )
        for listener in list(self.answer_listeners):
            try:
                listener(answered)
            except Exception:  # the answer has gone through; a front end's record of it failed
                log.warning("a session answer listener failed", exc_info=True)

    def _settle_pending(self) -> None:
        """After a mode change: the questions still queued that it settles are answered."""
        for decision in list(self._pending):
            if self._settle(decision, parse_request(decision)):
                self._pending.remove(decision)

    def _end_turn(self) -> None:
        self._pending.clear()
        if self._answering is not None and not self._answering.done():
            self._answering.cancel()
        self._answering = None
        self.asking = None
        self._turn = None
        self.queued.forget_steers()  # every note the turn took was delivered (the runtime answers each)
        agent = self.host.agent
        if agent is not None:  # its copy of the dialogue: the next turn restores its own
            agent_compat.release_finished_messages(agent, self.host.session_id)
        self._set_activity(Activity.IDLE)
