"""Stopping a turn: at its next event, else where its run waits; again only if the run goes on.

The turn stream (``runtime.turn_stream``) reads each turn in a task of its own and, when its caller
is cancelled, hands that task to ``stop_turn``. A run's teardown (the runtime's cancellation
notice, which the history, the transcript and the checkpoints answer) is never cut short for
being slow; a run that ignores a cancellation is. No Textual here.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.events import AgentPhase
from zett_agent.extensions.base import AgentExtension
from zett_agent.extensions.events import ExtensionEvent, PhaseTransitionEvent

from zett_tui.runtime.events import ToolFinished, ToolsStarted, UIEvent

log = logging.getLogger(__name__)

#: How long a stopped turn may take to reach its next event before its run is cancelled where it waits.
STOP_AT_EVENT_SECONDS = 0.05
#: A run cancelled where it waits that in this long has neither ended, sent an event nor begun its
#: teardown is cancelled again (see ``stop_turn``).
RECANCEL_SILENT_SECONDS = 1.0
#: A stopped turn not ended this long after the stop (an extension that hangs over the cancellation
#: notice) is cut short; the recorder then writes its line itself (``TurnRecorder.finish_cut_short``).
TEARDOWN_LIMIT_SECONDS = 5.0
#: How often ``stop_turn`` looks at a turn that is ending.
_POLL_SECONDS = 0.02


@dataclass
class TurnState:
    """What the turn's reading loop and ``stop_turn`` share."""

    stop_requested: bool = False
    #: The reading loop left the stream at an event: the run, parked between two events where a
    #: cancellation cannot be missed, is cancelled by the stream's closing and is tearing down.
    closing: bool = False
    tools_running: set[str] = field(default_factory=set)

    def observe(self, event: UIEvent) -> None:
        if isinstance(event, ToolsStarted):
            self.tools_running.update(call.call_id for call in event.calls)
        elif isinstance(event, ToolFinished):
            self.tools_running.discard(event.call_id)


@dataclass
class WatchedRun:
    """One request as the runtime runs it: its task, and whether it has taken a cancellation."""

    task: asyncio.Task[Any] | None
    #: The run entered CANCELLED: its teardown (the cancellation notice) is under way.
    tearing_down: bool = False


class RunWatch(AgentExtension):
    """Knows the task that runs each session's request, and when that request starts tearing down.

    zett-agent runs a request in a producer task of its own and hands its events out through a
    queue; the task is not public. Cancelling it directly (rather than the reader of the stream)
    lets the reader go on reading after the cancellation, so a run that ignores it shows itself
    by its next event. Lowest priority: it hears each notice before any other extension.
    """

    name = "zett-run-watch"
    priority = -(10**9)

    def __init__(self) -> None:
        super().__init__()
        self._runs: dict[str, WatchedRun] = {}

    async def on_event(self, context: AgentRunContext, event: ExtensionEvent) -> None:
        if not isinstance(event, PhaseTransitionEvent) or context.config.parent_session_id is not None:
            return  # a subagent's run is stopped through its parent's
        if event.current_phase is AgentPhase.LOADING_CONTEXT:  # a request's first step, in its task
            self._runs[context.session_id] = WatchedRun(asyncio.current_task())
        elif event.current_phase is AgentPhase.CANCELLED and (run := self._runs.get(context.session_id)):
            run.tearing_down = True

    def run_of(self, session_id: str) -> WatchedRun | None:
        """The latest request of ``session_id`` (None before its first)."""
        return self._runs.get(session_id)

    def forget(self, session_id: str) -> None:
        """``session_id``'s turn begins (the request found from now on is its own), or has ended."""
        self._runs.pop(session_id, None)


async def stop_turn(turn: asyncio.Future[Any], state: TurnState, run: WatchedRun | None = None) -> None:
    """Wait for ``turn`` to stop at its next event; if none comes, cancel its run where it waits.

    On Python 3.11, ``asyncio.wait_for`` (which zett-agent uses to bound each wait for the model's
    next chunk) drops a cancellation that arrives just as the chunk does (CPython gh-86296, fixed
    in 3.12), and the run goes on as if it had not been cancelled. So the run's own task (``run``,
    from ``RunWatch``) is cancelled while ``turn`` keeps reading: a run that took the cancellation
    tears down and ends the stream; one that dropped it sends its next event, and the reading loop
    leaves the stream there, which cancels the run between two events, where nothing drops it.
    A run that drops it and goes quiet is cancelled again after ``RECANCEL_SILENT_SECONDS``,
    unless it has begun its teardown or a tool is running (a tool's clean-up, stopping its
    process, may take a while). A teardown is never hurried before ``TEARDOWN_LIMIT_SECONDS``.
    """
    if await _ended(turn, STOP_AT_EVENT_SECONDS):
        return
    loop = asyncio.get_running_loop()
    cancelled_at = loop.time()
    cut_at = cancelled_at + TEARDOWN_LIMIT_SECONDS
    # Without its run's task (a run not watched), the reader is cancelled, which cancels the run
    # through the stream; a dropped cancellation then waits for the limit.
    producer = run.task if run is not None and run.task is not None and not run.task.done() else None
    if not state.closing:
        (producer or turn).cancel()
    while not await _ended(turn, _POLL_SECONDS):
        now = loop.time()
        if state.tools_running:
            continue
        if now >= cut_at:
            log.warning("a stopped turn is still tearing down; cutting it short")
            turn.cancel()
            cut_at = now + RECANCEL_SILENT_SECONDS
        elif (
            producer is not None
            and run is not None
            and not (state.closing or run.tearing_down)
            and now - cancelled_at >= RECANCEL_SILENT_SECONDS
        ):
            log.warning("the turn ignored a cancellation and went quiet; cancelling it again")
            producer.cancel()
            cancelled_at = now


async def _ended(turn: asyncio.Future[Any], seconds: float) -> bool:
    return bool((await asyncio.wait({turn}, timeout=seconds))[0])
