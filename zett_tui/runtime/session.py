"""One zett session without a screen: the turn queue, the permission mode and the queue of
pending decisions. No Textual here.

``entry/bootstrap.py``'s ``open_session`` opens a session once (workspace commands and skills,
the host with its extensions, the resumed history); ``SessionCore`` then runs its turns one at a time and puts the
runtime's questions to an ``Asker`` (``runtime.decisions``), one at a time, in the order asked:
a question that a rule saved meanwhile settles is answered without asking. Front ends read the
state (``activity``, ``queued``, ``mode``, ``context``) and listen to the events.

``zett -p`` and ``zett acp`` run on this; the chat screen shares the bootstrap's parts and still
drives its own turns (``ui/chat/turns.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from zett_tui.runtime.decisions import Asker, ShellReply, ShellRequest, parse_request
from zett_tui.runtime.events import (
    ContextMeasured,
    DecisionRequested,
    ModelCallStarted,
    ToolsStarted,
    TurnFinished,
    UIEvent,
)
from zett_tui.runtime.modes import PermissionMode

if TYPE_CHECKING:
    from zett_tui.core.images import PreparedImage
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.turn_model import TurnModel

log = logging.getLogger(__name__)

__all__ = ["Activity", "SessionBusy", "SessionCore"]


class SessionBusy(Exception):
    """A turn is already running in this session."""


class Activity(StrEnum):
    STARTING = "starting"
    IDLE = "idle"
    THINKING = "thinking"
    WORKING = "working"
    WAITING = "waiting for you"
    NOT_READY = "not ready"


@dataclass
class SessionCore:
    """A started host's turns, one at a time, and its questions, one at a time."""

    host: AgentHost
    asker: Asker
    #: Every event of every turn, after the core has seen it (cheap and synchronous).
    listeners: list[Callable[[UIEvent], None]] = field(default_factory=list)
    activity: Activity = Activity.IDLE
    #: Prompts waiting for the running turn to end (``queue``); taken back with ``take_back``.
    queued: deque[str] = field(default_factory=deque)
    context: ContextMeasured | None = None
    _turn: asyncio.Task[TurnFinished] | None = None
    _pending: deque[DecisionRequested] = field(default_factory=deque)
    _answering: asyncio.Task[None] | None = None

    @property
    def session_id(self) -> str:
        return self.host.session_id

    @property
    def mode(self) -> PermissionMode:
        return self.host.mode

    def set_mode(self, mode: PermissionMode) -> None:
        self.host.set_mode(mode)
        self._settle_pending()

    @property
    def busy(self) -> bool:
        return self._turn is not None and not self._turn.done()

    @property
    def pending_decisions(self) -> int:
        return len(self._pending)

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
            return TurnFinished("completed", answer="" if applied else "Nothing to compact yet.")

        return await self._run(compacting())

    async def _run(self, work: Coroutine[Any, Any, TurnFinished]) -> TurnFinished:
        if self.busy:
            work.close()
            raise SessionBusy("a turn is already running in this session")
        turn = self._turn = asyncio.create_task(work)
        self.activity = Activity.THINKING
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
            result = await self.prompt(self.queued.popleft())
            finished.append(result)
            if result.status != "completed":
                break
        return finished

    def queue(self, text: str) -> None:
        self.queued.append(text)

    def take_back(self) -> str | None:
        """The last queued prompt, out of the queue (None when it is empty)."""
        return self.queued.pop() if self.queued else None

    def steer(self, text: str) -> bool:
        """Send ``text`` to the running turn; False when none runs."""
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
            self.activity = Activity.THINKING
        elif isinstance(event, ToolsStarted):
            self.activity = Activity.WORKING
        elif isinstance(event, ContextMeasured):
            self.context = event
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:  # a front end's mistake must not stop the turn
                log.warning("a session listener failed on %s", type(event).__name__, exc_info=True)

    async def _answer_pending(self) -> None:
        while self._pending:
            decision = self._pending.popleft()
            request = parse_request(decision)
            settled = self._settled(request)
            if settled is not None:
                self.host.answer(decision, settled)
                continue
            self.activity = Activity.WAITING
            try:
                reply = await self.asker.ask(request)
            except asyncio.CancelledError:
                raise
            except Exception:  # a front end that cannot ask refuses: nothing runs unasked
                log.warning("asking about %s failed", decision.kind, exc_info=True)
                reply = request.refuse("zett could not ask the user")
            self.activity = Activity.WORKING
            if not self.host.answer(decision, reply):
                log.info("late or duplicate answer to %s ignored", decision.kind)

    def _settled(self, request: object) -> ShellReply | None:
        """A command a rule (or the mode) now allows runs without its question."""
        policy = self.host.shell_policy
        if policy is None or not isinstance(request, ShellRequest):
            return None
        if not policy.verdict(request.session_id, request.command).allowed:
            return None
        return ShellReply(request.tool_call_id, run=True)

    def _settle_pending(self) -> None:
        """After a mode change: the questions still queued that it settles are answered."""
        for decision in list(self._pending):
            settled = self._settled(parse_request(decision))
            if settled is not None:
                self._pending.remove(decision)
                self.host.answer(decision, settled)

    def _end_turn(self) -> None:
        self._pending.clear()
        if self._answering is not None and not self._answering.done():
            self._answering.cancel()
        self._answering = None
        self._turn = None
        self.activity = Activity.IDLE
