"""A turn's stream: one request's events, read as they come and turned into the UI's.

The host starts a request (a prompt, a continuation, ``/compact``) and hands its event stream to
``TurnStream.run`` with the UI's sink. The stream is read in a task of its own, so cancelling the
caller always ends the turn (``runtime.turn_stop`` says how); each event is journaled, translated,
measured and passed on, and the turn ends in exactly one ``TurnFinished``. No Textual here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from zett_agent.events import AgentEvent, AgentEventType

from zett_tui.runtime.empty_answer import EmptyAnswerReporter
from zett_tui.runtime.events import (
    ContextMeasured,
    EventTranslator,
    Notice,
    PlanModeChanged,
    ToolFinished,
    ToolsStarted,
    TurnFinished,
    UIEvent,
)
from zett_tui.runtime.turn_images import with_image_hint
from zett_tui.runtime.turn_stop import RunWatch, TurnState, stop_turn

if TYPE_CHECKING:
    from zett_tui.runtime.compaction import ContextCompaction
    from zett_tui.runtime.context_gauge import ContextGauge
    from zett_tui.runtime.model_switch import ModelsInUse
    from zett_tui.runtime.recorder import TurnRecorder
    from zett_tui.runtime.shell.policy import ShellPolicy
    from zett_tui.runtime.subagents.runner import SubagentRunner
    from zett_tui.runtime.turn_notices import TurnNotices

log = logging.getLogger(__name__)

Sink = Callable[[UIEvent], None]


class TurnStream:
    """Reads the host's turns: one at a time, each from its request's first event to its end."""

    def __init__(
        self,
        *,
        notices: TurnNotices,
        recorder: TurnRecorder | None,
        compaction: ContextCompaction | None,
        gauge: ContextGauge,
        subagents: SubagentRunner,
        shell_policy: ShellPolicy | None,
        models: ModelsInUse,
        retry_storage: Callable[[], Awaitable[None]],
        describe_error: Callable[[BaseException], str],
        plan_mode_changed: Callable[[bool], None],
        run_watch: RunWatch,
        session_id: Callable[[], str],
    ) -> None:
        """``retry_storage``: what waits for the disk, tried at a turn's end. ``describe_error``: a
        failure in one human line. ``plan_mode_changed``: the runtime's Plan Mode went on or off.
        ``run_watch``: the agent's extension that knows which task runs the turn's request, for
        ``session_id``'s turns."""
        self._notices = notices
        self._recorder = recorder
        self._compaction = compaction
        self._gauge = gauge
        self._subagents = subagents
        self._shell_policy = shell_policy
        self._models = models
        self._retry_storage = retry_storage
        self._describe_error = describe_error
        self._plan_mode_changed = plan_mode_changed
        self._run_watch = run_watch
        self._session_id = session_id
        self._empty_answers = EmptyAnswerReporter()
        #: How many compactions replaced older turns in this stream's life.
        self.compactions = 0

    async def run(
        self, stream: AsyncIterator[AgentEvent], sink: Sink, *, images_unvetted: bool = False
    ) -> TurnFinished:
        """Read ``stream`` to its end, feeding ``sink``; cancelling the caller cancels the turn.

        Counted as a running request, so a replaced model is closed only after it.
        ``images_unvetted``: the turn sent images to a model not known to read them (a refusal
        says so)."""
        async with self._models.request():
            return await self._consume(stream, sink, images_unvetted)

    async def _consume(
        self, stream: AsyncIterator[AgentEvent], sink: Sink, images_unvetted: bool
    ) -> TurnFinished:
        """Run the turn in a task of its own, so that cancelling the caller always ends it.

        A cancellation first asks the turn to stop at the next event: the runtime is then parked
        between two events, where it expects to be stopped. Only a turn that sends no event for
        a moment (a tool running, the model silent) has its run cancelled where it waits, and is
        read on: its teardown is left to finish (``runtime.turn_stop``).
        """
        state = TurnState()
        session_id = self._session_id()
        self._run_watch.forget(session_id)
        turn = asyncio.ensure_future(self._translate(stream, sink, state, images_unvetted))
        with self._notices.during_turn():
            try:
                return await asyncio.shield(turn)
            except asyncio.CancelledError:
                state.stop_requested = True
                await stop_turn(turn, state, self._run_watch.run_of(session_id))
                if self._recorder is not None:
                    await self._recorder.finish_cut_short()
                raise
            finally:
                self._run_watch.forget(session_id)

    async def _translate(
        self, stream: AsyncIterator[AgentEvent], sink: Sink, state: TurnState, images_unvetted: bool
    ) -> TurnFinished:
        notes = self._compaction.notice_text if self._compaction is not None else None
        translator = EventTranslator(compaction_notes=notes)
        commands: dict[str, str] = {}
        answer = ""
        sink = _never_raising(sink)
        self._subagents.attach(sink)  # the children's events go where the turn's go
        try:
            async with contextlib.aclosing(stream) as events:  # type: ignore[type-var]
                async for event in events:
                    self._journal(event)
                    self._notices.pass_to(sink)
                    for ui_event in self._ui_events(translator, event):
                        sink(ui_event)
                        self._observe(ui_event, commands, sink)
                        state.observe(ui_event)
                    if event.type is AgentEventType.RUN_COMPLETED and event.message is not None:
                        answer = _content_text(event.message.content)
                    if state.stop_requested:
                        state.closing = True  # leaving the loop closes the stream: the run is cancelled here
                        break
            if state.stop_requested:
                raise asyncio.CancelledError
        except asyncio.CancelledError:
            self._notices.pass_to(sink)
            sink(TurnFinished("cancelled"))
            raise
        except Exception as error:  # every failure becomes one human line; details go to the log
            log.warning("turn failed: %s", type(error).__name__, exc_info=True)
            await self._retry_storage()
            self._notices.pass_to(sink)
            text = _describe_turn_error(error, self._describe_error)
            if images_unvetted:
                text = with_image_hint(text, error)
            finished = TurnFinished("failed", text)
            sink(finished)
            return finished
        finally:
            self._subagents.attach(None)
        await self._retry_storage()
        self._notices.pass_to(sink)
        finished = TurnFinished("completed", answer=answer)
        sink(finished)
        return finished

    def _journal(self, event: AgentEvent) -> None:
        """The turn in progress is kept on disk as it streams (``runtime.turn_journal``)."""
        if self._recorder is not None:
            try:
                self._recorder.journal.observe(event)
            except Exception:  # the journal is a safety net; the turn must not fall with it
                log.warning("the turn journal failed on %s", event.type, exc_info=True)

    def _ui_events(self, translator: EventTranslator, event: AgentEvent) -> list[UIEvent]:
        """The translated events, followed by a new measure of the context when ``event`` gives one."""
        ui_events = self._empty_answers.review(event, translator.translate(event), self._gauge.window_finding)
        if event.type is AgentEventType.COMPACTION_COMPLETED and event.applied:
            self.compactions += 1
        measured = self._gauge.measure(event, self._compaction)
        return [*ui_events, measured] if measured is not None else ui_events

    def _observe(self, event: UIEvent, commands: dict[str, str], sink: Sink) -> None:
        """Follow Plan Mode, and say which rule let a command run unasked."""
        if isinstance(event, PlanModeChanged):
            self._plan_mode_changed(event.active)
        elif isinstance(event, ToolsStarted):
            for call in event.calls:
                if call.name == "bash" and isinstance(call.arguments.get("command"), str):
                    commands[call.call_id] = call.arguments["command"].strip()
        elif isinstance(event, ToolFinished) and event.call_id in commands and self._shell_policy is not None:
            reason = self._shell_policy.allowed_by(commands.pop(event.call_id))
            if reason:
                line = f"Ran without asking: allowed by {reason}."
                sink(Notice(line, "decision"))
                self.note_decision(line, event.call_id)
        elif isinstance(event, ContextMeasured) and self._recorder is not None:
            self._recorder.journal.note_context(event.tokens, event.window, event.estimated)
        elif isinstance(event, Notice) and event.source == "search" and self._recorder is not None:
            self._recorder.journal.note_search(event.text)

    def note_decision(
        self, line: str, call_id: str | None, *, declined: bool = False, subagent_session: str | None = None
    ) -> None:
        """Keep the transcript's line for an answer with the running turn (shown again on resume);
        ``subagent_session``: the subagent's session that asked (None: the main agent)."""
        if self._recorder is not None:
            try:
                self._recorder.journal.note_decision(
                    line, call_id, declined=declined, subagent_session=subagent_session
                )
            except Exception:  # a record of the answer; the answer itself has gone through
                log.warning("the decision line was not kept", exc_info=True)


def _never_raising(sink: Sink) -> Sink:
    """``sink``, with its failures logged instead of raised: a UI that breaks (or is gone, when the
    app crashed mid-turn) must not stop the turn from ending the way the runtime records it."""

    def guarded(event: UIEvent) -> None:
        try:
            sink(event)
        except Exception:
            log.warning("the UI failed to take %s", type(event).__name__, exc_info=True)

    return guarded


def _describe_turn_error(error: BaseException, describe: Callable[[BaseException], str]) -> str:
    """A hook that ended the turn says so in its own words; anything else is ``describe``'s."""
    from zett_tui.runtime.hooks.extension import HookStoppedTurn

    return str(error) if isinstance(error, HookStoppedTurn) else describe(error)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") for part in content or ())
