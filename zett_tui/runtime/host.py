"""The agent side of zett: owns the Agent, its model and extensions; runs, cancels and answers turns.

No Textual here. The UI hands ``run_turn`` a sink (a cheap, synchronous callable) and runs it in
a worker; cancelling that worker cancels the turn, and the runtime records it as cancelled.
Which extensions the agent runs, and in which order, is ``extension_stack``'s; how a cancelled
turn is made to stop is ``turn_stop``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.base import AgentExtension
from zett_agent.extensions.external import ExternalEvent
from zett_agent.model import AgentModel, ReasoningEffort

from zett_tui import __version__
from zett_tui.config.schema import ExtensionConfig, SandboxSettings
from zett_tui.core import paths
from zett_tui.core.inert_text import encodable
from zett_tui.providers.context_window import context_window_for
from zett_tui.providers.errors import describe_error
from zett_tui.runtime.compaction import ContextCompaction, estimate_text_tokens, estimate_tokens
from zett_tui.runtime.empty_answer import EmptyAnswerReporter
from zett_tui.runtime.events import (
    ContextMeasured,
    DecisionRequested,
    EventTranslator,
    Notice,
    PlanModeChanged,
    ToolFinished,
    ToolsStarted,
    TurnFinished,
    UIEvent,
)
from zett_tui.runtime.extension_stack import build_extension_stack
from zett_tui.runtime.extensions.registry import ExtensionReport
from zett_tui.runtime.files.read_gate import ReadGate
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.recorder import Redactor, TurnRecorder
from zett_tui.runtime.turn_stop import TurnState, stop_turn
from zett_tui.workspace.git_branch import git_branch

if TYPE_CHECKING:
    from zett_tui.providers.server_info import ContextWindowFinding
    from zett_tui.runtime.storage_retry import StorageRetry

log = logging.getLogger(__name__)

Sink = Callable[[UIEvent], None]
ModelFactory = Callable[[], AgentModel]

SYSTEM_PROMPT = """\
You are zett, a coding assistant working in the user's terminal, in their project folder.
Answer in Markdown. Be direct and concise. Read files before changing them, prefer small
focused edits, and explain what you changed. Shell commands and edits need the user's approval;
when one is refused, take the user's note into account instead of retrying the same thing."""


@dataclass
class HostOptions:
    """What the host needs to build an agent. Paths default to zett's data directory."""

    model_factory: ModelFactory
    model_label: str
    session_id: str | None = None
    cwd: Path = field(default_factory=Path.cwd)
    reasoning_effort: ReasoningEffort = ReasoningEffort.MEDIUM
    sessions_dir: Path | None = None
    history_db: Path | None = None
    tool_output_dir: Path | None = None
    redact: Redactor | None = None
    extra_extensions: Sequence[AgentExtension] = ()
    #: The ``[extensions.NAME]`` tables of the user's config (and of a trusted project's).
    extensions: Sequence[ExtensionConfig] = ()
    system_prompt: str = SYSTEM_PROMPT
    permission_mode: PermissionMode = PermissionMode.ASK
    #: Turns a failure into one human line; startup passes one that knows the provider and key names.
    describe_error: Callable[[BaseException], str] = describe_error
    #: The model's context window in tokens; None: looked up from ``model_label`` (``context_window``).
    context_window: int | None = None
    #: The ``[sandbox]`` table of the user's config: how shell commands are confined.
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)


class AgentHost:
    """One zett process's agent: one session at a time, one turn at a time."""

    def __init__(self, options: HostOptions) -> None:
        self.options = options
        self.agent: Agent | None = None
        self.model: AgentModel | None = None
        self.recorder: TurnRecorder | None = None
        self._history: Any = None
        self._lock: Any = None
        #: Retries what could not be written (``runtime.storage_retry``); set by ``start``.
        self.storage: StorageRetry | None = None
        self.mode = options.permission_mode
        self.plan_guard: Any = None
        self.edit_gate: Any = None
        self.read_gate: ReadGate | None = None
        self.shell_rules: Any = None
        self.shell_policy: Any = None
        #: The shell sandbox (``runtime.sandbox.ShellSandbox``); its ``unavailable_reason`` is None
        #: when commands are confined, else why not. Set by ``start``.
        self.shell_sandbox: Any = None
        #: What loaded from where, what did not and why (``/extensions``); filled by ``start``.
        self.extension_report = ExtensionReport()
        #: What a failing extension said between events; passed on with the turn's next event.
        self._extension_notices: list[Notice] = []
        #: Hears the notices that come while no turn runs (``listen_between_turns``).
        self._between_turns: Callable[[Notice], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._turns_running = 0
        self._session_id = options.session_id or new_session_id()
        self.reasoning_effort = options.reasoning_effort
        self.compaction: ContextCompaction | None = None
        #: The last measurement of the context (None before the first model call or estimate).
        self.last_context: ContextMeasured | None = None
        #: The window a local server's model was built with (``providers.server_info``); None
        #: for a hosted provider or a model built otherwise.
        self.window_finding: ContextWindowFinding | None = None
        self._empty_answers = EmptyAnswerReporter()
        #: How many compactions replaced older turns in this host's life.
        self.compactions = 0
        self._running = 0
        self._retired_models: list[AgentModel] = []

    @property
    def ready(self) -> bool:
        return self.agent is not None

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def config(self) -> AgentRunConfig:
        return AgentRunConfig(session_id=self.session_id)

    async def start(self) -> None:
        """Build the model and the agent. Slow provider imports happen here, off the first frame."""
        from zett_tui.core.redact import redactor_from_environment
        from zett_tui.runtime.history_open import open_history
        from zett_tui.runtime.storage_retry import LockSlot, StorageRetry, retry_session_writes

        options = self.options
        sessions = options.sessions_dir or paths.sessions_dir()
        self.storage = StorageRetry(sessions.parent, self._storage_notice)
        self._lock = LockSlot(sessions, self.session_id)
        unavailable = self._lock.claim()  # SessionBusy: another zett has the session
        if unavailable is not None:  # the folder cannot be written: the session runs in memory
            self.storage.report(unavailable)
        self.storage.guard_with(self._lock)
        self.model = await asyncio.to_thread(options.model_factory)
        self._adopt_window_finding(self.model)
        # Nothing reaches a file unredacted: without a redactor from startup, the built-in rules and
        # the provider keys in this process's environment are used.
        redact = _encodable_after(options.redact or redactor_from_environment(os.environ))
        self._history = await open_history(
            options.history_db or paths.history_db(),
            redact=redact,
            notify=self._storage_notice,
            store_notify=self.storage.relay,
        )
        self.recorder = TurnRecorder(sessions, redact, notify=self.storage.relay)
        if options.session_id is not None:  # a resumed session: the model remembers its turns
            await self._rebuild_history_if_lost()
        retry_session_writes(self.storage, sessions, recorder=self.recorder, history=self._history.storage)
        self.storage.start()
        self.compaction = ContextCompaction(self.context_window)
        self.compaction.follow_effort(self.reasoning_effort)
        stack = await build_extension_stack(
            options,
            history=self._history,
            compaction=self.compaction,
            recorder=self.recorder,
            redact=redact,
            mode_of=self.mode_of,
            notify=self._storage_notice,
            report_failure=self._extension_failed,
        )
        self.plan_guard = stack.plan_guard
        self.edit_gate = stack.edit_gate
        self.read_gate = stack.read_gate
        self.shell_rules = stack.shell_rules
        self.shell_policy = stack.shell_policy
        self.shell_sandbox = stack.shell_sandbox
        self.extension_report = stack.report
        self.agent = await Agent.create(
            self.model,
            config=AgentRunConfig(session_id=self._session_id),
            system_prompt=options.system_prompt,
            extensions=stack.extensions,
            reasoning_effort=options.reasoning_effort,
        )
        log.info("agent ready: model=%s session=%s", options.model_label, self._session_id)

    async def run_turn(self, prompt: str, sink: Sink) -> TurnFinished:
        """Run one turn, feeding UI events to ``sink``; cancelling the calling task cancels the turn."""
        agent = self._require_agent()
        stream = agent.stream(encodable(prompt), **self._request_options(), metadata=self._turn_metadata())
        return await self._run(stream, sink)

    async def continue_turn(self, sink: Sink) -> TurnFinished:
        """Carry on a turn that was cut off (a crash, a kill, an output limit) without new input."""
        agent = self._require_agent()
        metadata = self._turn_metadata()
        metadata["zett"]["continues"] = True  # its line repeats the cut-off turn's messages first
        stream = agent.stream_resume(**self._request_options(), metadata=metadata)
        return await self._run(stream, sink)

    async def compact(self, sink: Sink) -> bool:
        """Compact the conversation now (``/compact``); True when a summary replaced older turns.

        Call it between turns. The notices before and after go to ``sink``, and a failure ends as a
        ``TurnFinished("failed")`` like a turn's. Nothing happens (False) when there is not enough
        history to summarize.
        """
        agent = self._require_agent()
        before = self.compactions
        stream = agent.compact(config=self.config, model=self.model, metadata=self._turn_metadata())
        await self._run(stream, sink)
        return self.compactions > before

    async def _run(self, stream: AsyncIterator[AgentEvent], sink: Sink) -> TurnFinished:
        """``_consume`` while counting running requests, so a replaced model is closed only after them."""
        self._running += 1
        try:
            return await self._consume(stream, sink)
        finally:
            self._running -= 1
            if not self._running:
                await self._close_retired_models()

    def _request_options(self) -> dict[str, Any]:
        return {"config": self.config, "model": self.model, "reasoning_effort": self.reasoning_effort}

    async def resume_point(self) -> str | None:
        """What was cut off in this session's last turn, in words; None when it finished."""
        agent = self._require_agent()
        try:
            point = await agent.resume_point(config=self.config, model=self.model)
        except Exception:
            log.warning("resume point unavailable", exc_info=True)
            return None
        if point is None:
            return None
        return point.description or str(point.kind)

    async def _consume(self, stream: AsyncIterator[AgentEvent], sink: Sink) -> TurnFinished:
        """Run the turn in a task of its own, so that cancelling the caller always ends it.

        A cancellation first asks the turn to stop at the next event: the runtime is then parked
        between two events, where it expects to be stopped. Only a turn that sends no event for
        a moment (a tool running, the model silent) is cancelled where it waits.
        """
        state = TurnState()
        turn = asyncio.ensure_future(self._translate(stream, sink, state))
        self._turns_running += 1
        try:
            return await asyncio.shield(turn)
        except asyncio.CancelledError:
            state.stop_requested = True
            await stop_turn(turn, state)
            raise
        finally:
            self._turns_running -= 1
            self._call_between_turns()  # what came after the turn's last notices were passed

    async def _translate(
        self, stream: AsyncIterator[AgentEvent], sink: Sink, state: TurnState
    ) -> TurnFinished:
        notes = self.compaction.notice_text if self.compaction is not None else None
        translator = EventTranslator(compaction_notes=notes)
        commands: dict[str, str] = {}
        answer = ""
        sink = _never_raising(sink)
        try:
            async with contextlib.aclosing(stream) as events:  # type: ignore[type-var]
                async for event in events:
                    self._journal(event)
                    self._pass_extension_notices(sink)
                    for ui_event in self._ui_events(translator, event):
                        sink(ui_event)
                        self._observe(ui_event, commands, sink)
                        state.observe(ui_event)
                    if event.type is AgentEventType.RUN_COMPLETED and event.message is not None:
                        answer = _content_text(event.message.content)
                    if state.stop_requested:
                        break
            if state.stop_requested:
                raise asyncio.CancelledError
        except asyncio.CancelledError:
            self._pass_extension_notices(sink)
            sink(TurnFinished("cancelled"))
            raise
        except Exception as error:  # every failure becomes one human line; details go to the log
            log.warning("turn failed: %s", type(error).__name__, exc_info=True)
            await self._retry_storage()
            self._pass_extension_notices(sink)
            finished = TurnFinished("failed", self.options.describe_error(error))
            sink(finished)
            return finished
        await self._retry_storage()
        self._pass_extension_notices(sink)
        finished = TurnFinished("completed", answer=answer)
        sink(finished)
        return finished

    async def _rebuild_history_if_lost(self) -> None:
        """A history that has no record of this session (set aside when damaged, deleted) is filled
        from the session's transcript, so the model still knows what happened."""
        from zett_tui.runtime.history_rebuild import rebuild_history, rebuilt_message

        assert self.recorder is not None and self._history is not None
        try:
            turns = await rebuild_history(
                self._history.storage, self.session_id, self.recorder.session_path(self.session_id)
            )
        except Exception:  # the session still runs; the model starts without its earlier turns
            log.warning("the history could not be rebuilt from the transcript", exc_info=True)
            return
        if turns:
            self._extension_notices.append(Notice(rebuilt_message(turns), "info"))

    def _journal(self, event: AgentEvent) -> None:
        """The turn in progress is kept on disk as it streams (``runtime.turn_journal``)."""
        if self.recorder is not None:
            try:
                self.recorder.journal.observe(event)
            except Exception:  # the journal is a safety net; the turn must not fall with it
                log.warning("the turn journal failed on %s", event.type, exc_info=True)

    async def _retry_storage(self) -> None:
        """What waits for the disk is tried at each turn's end (a cancelled turn leaves it to the timer)."""
        if self.storage is not None and self.storage.failing:
            await self.storage.retry_now()

    def _extension_failed(self, message: str) -> None:
        """A guarded extension raised and switched itself off; the user hears of it in the turn."""
        self._extension_notices.append(Notice(message, "error"))

    def _storage_notice(self, text: str, level: str) -> None:
        """The history or the transcript stopped (or started again) being saved; said in the turn.

        Called from the recorder's writing thread too, while the turn awaits it: a list append.
        Between turns (the retry timer saved the session) it goes to ``listen_between_turns``.
        """
        self._extension_notices.append(Notice(text, level))
        if self._between_turns is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is there to hear it
                self._loop.call_soon_threadsafe(self._call_between_turns)

    def listen_between_turns(self, listener: Callable[[Notice], None]) -> None:
        """Pass ``listener`` (on this event loop) the notices that arrive while no turn runs,
        such as the note that a session kept in memory was saved after all."""
        self._loop = asyncio.get_running_loop()
        self._between_turns = listener
        self._call_between_turns()

    def _call_between_turns(self) -> None:
        listener = self._between_turns
        if listener is None or self._turns_running:
            return
        for notice in self.take_notices():
            try:
                listener(notice)
            except Exception:  # a listener's fault must not stop the retry timer
                log.warning("a between-turns notice listener failed", exc_info=True)

    def take_notices(self) -> list[Notice]:
        """What the user should hear now (a damaged history set aside at start), and not again."""
        notices, self._extension_notices = self._extension_notices, []
        return notices

    def _pass_extension_notices(self, sink: Sink) -> None:
        notices, self._extension_notices = self._extension_notices, []
        for notice in notices:
            sink(notice)

    def mode_of(self, session_id: str) -> PermissionMode:
        """The permission mode the extensions consult (one session per host)."""
        return self.mode

    def set_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode; entering or leaving PLAN turns Plan Mode on or off."""
        previous, self.mode = self.mode, mode
        if self.plan_guard is not None and (mode is PermissionMode.PLAN) != (previous is PermissionMode.PLAN):
            self.plan_guard.set_plan_mode(self.session_id, mode is PermissionMode.PLAN)
        if mode is PermissionMode.ASK and self.edit_gate is not None:
            self.edit_gate.reset(self.session_id)

    # -- the model, its reasoning effort and its context window ---------------------------------

    @property
    def model_label(self) -> str:
        return self.options.model_label

    @property
    def context_window(self) -> int:
        return self.options.context_window or context_window_for(self.options.model_label)

    def _adopt_window_finding(self, model: object) -> None:
        """Use the window found when ``model`` was built (``providers.server_info``), if any."""
        from zett_tui.providers.server_info import finding_for

        self.window_finding = finding = finding_for(model)
        if finding is not None:
            self.options.context_window = finding.tokens

    @property
    def context_window_guessed(self) -> bool:
        """True while the window is only the table's guess (a local server that did not say)."""
        return self.window_finding is not None and self.window_finding.guessed

    async def switch_model(
        self,
        model_label: str,
        model_factory: ModelFactory,
        reasoning_effort: ReasoningEffort | str,
        *,
        context_window: int | None = None,
        describe_error: Callable[[BaseException], str] | None = None,
    ) -> None:
        """Use another model from the next request on; the conversation (the stored history) stays.

        The new provider is built off the event loop; if that raises, nothing changes. The old one
        is closed once no request is using it (a turn that is running finishes with it).
        """
        effort = ReasoningEffort(reasoning_effort)
        model = await asyncio.to_thread(model_factory)
        old, self.model = self.model, model
        if self.agent is not None:
            self.agent.model = model  # the default for anything that does not pass model=
        self.options.model_factory = model_factory
        self.options.model_label = model_label
        self.options.context_window = context_window
        self._adopt_window_finding(model)
        if describe_error is not None:
            self.options.describe_error = describe_error
        if self.compaction is not None:
            self.compaction.set_context_window(self.context_window)
        self.set_reasoning_effort(effort)
        if self.last_context is not None:  # counted by another model's tokenizer: now an estimate
            self.last_context = ContextMeasured(self.last_context.tokens, self.context_window, estimated=True)
        if old is not None and old is not model:
            self._retired_models.append(old)
            if not self._running:
                await self._close_retired_models()
        log.info("model switched: model=%s session=%s", model_label, self._session_id)

    def set_reasoning_effort(self, effort: ReasoningEffort | str) -> None:
        """The reasoning effort of the next requests (the summary for compaction follows it)."""
        self.reasoning_effort = ReasoningEffort(effort)
        if self.compaction is not None:
            self.compaction.follow_effort(self.reasoning_effort)

    async def estimate_context(self) -> ContextMeasured:
        """The context the next request starts from: as the status line said after the session's
        last turn (a resumed session shows the figure it was left with), else estimated from the
        stored history (no model call)."""
        recorded = await asyncio.to_thread(self._recorded_context)
        if recorded is not None:
            self.last_context = recorded
            return recorded
        return await self.estimate_from_history()

    async def estimate_from_history(self) -> ContextMeasured:
        """The context the next request starts from, estimated from the stored history."""
        messages: list[Any] = []
        if self._history is not None:
            try:
                view = await self._history.storage.load(self.session_id)
                messages = list(view.messages)
            except Exception:
                log.warning("stored history unavailable for the context estimate", exc_info=True)
        tokens = estimate_text_tokens(self.options.system_prompt) + estimate_tokens(messages)
        self.last_context = ContextMeasured(tokens, self.context_window, estimated=True)
        return self.last_context

    def _recorded_context(self) -> ContextMeasured | None:
        """The context figure the session's last recorded turn kept (``sessions.recorded_turns``);
        counted by another model's tokenizer, it is an estimate now. Blocking: it reads the file."""
        from zett_tui.sessions.reader import ReadNotice, read_last_records
        from zett_tui.sessions.recorded_turns import turn_view

        if self.recorder is None:
            return None
        notices: list[ReadNotice] = []
        try:
            tail = read_last_records(self.recorder.session_path(self.session_id), 1, notices)
        except OSError:
            return None
        if not tail.records:
            return None
        record = tail.records[-1]
        figure = turn_view(record).context
        if figure is None:
            return None
        tokens, estimated = figure
        same_model = record.zett.get("model") == self.options.model_label
        return ContextMeasured(tokens, self.context_window, estimated=estimated or not same_model)

    def _ui_events(self, translator: EventTranslator, event: AgentEvent) -> list[UIEvent]:
        """The translated events, followed by a new measure of the context when ``event`` gives one."""
        ui_events = self._empty_answers.review(event, translator.translate(event), self.window_finding)
        measured = self._measure(event)
        return [*ui_events, measured] if measured is not None else ui_events

    def _measure(self, event: AgentEvent) -> ContextMeasured | None:
        if event.type is AgentEventType.MODEL_COMPLETED and event.response is not None:
            usage = event.response.usage
            if not usage.input_tokens:
                return None  # the provider reported no usage
            self.last_context = ContextMeasured(
                usage.input_tokens + (usage.output_tokens or 0), self.context_window
            )
            return self.last_context
        if event.type is AgentEventType.COMPACTION_COMPLETED and event.applied:
            self.compactions += 1
            after = self.compaction.tokens_after(event) if self.compaction is not None else None
            if after is not None:
                self.last_context = ContextMeasured(after, self.context_window, estimated=True)
                return self.last_context
        return None

    async def _close_retired_models(self) -> None:
        retired, self._retired_models = self._retired_models, []
        for model in retired:
            if hasattr(model, "aclose"):
                with contextlib.suppress(Exception):
                    await model.aclose()

    def _observe(self, event: UIEvent, commands: dict[str, str], sink: Sink) -> None:
        """Keep the mode in step with Plan Mode, and say which rule let a command run unasked."""
        if isinstance(event, PlanModeChanged):
            if event.active:
                self.mode = PermissionMode.PLAN
            elif self.mode is PermissionMode.PLAN:
                self.mode = PermissionMode.ASK
        elif isinstance(event, ToolsStarted):
            for call in event.calls:
                if call.name == "bash" and isinstance(call.arguments.get("command"), str):
                    commands[call.call_id] = call.arguments["command"].strip()
        elif isinstance(event, ToolFinished) and event.call_id in commands and self.shell_policy is not None:
            reason = self.shell_policy.allowed_by(commands.pop(event.call_id))
            if reason:
                line = f"Ran without asking: allowed by {reason}."
                sink(Notice(line, "decision"))
                self.note_decision(line, event.call_id)
        elif isinstance(event, ContextMeasured) and self.recorder is not None:
            self.recorder.journal.note_context(event.tokens, event.window, event.estimated)

    def note_decision(self, line: str, call_id: str | None) -> None:
        """Keep the transcript's line for an answer with the running turn (shown again on resume)."""
        if self.recorder is not None:
            try:
                self.recorder.journal.note_decision(line, call_id)
            except Exception:  # a record of the answer; the answer itself has gone through
                log.warning("the decision line was not kept", exc_info=True)

    def answer(self, decision: DecisionRequested, payload: dict[str, Any]) -> bool:
        """Send the user's answer back to the runtime. False for a late or duplicate answer."""
        if self.agent is None:
            return False
        response_event = decision.payload.get("response_event")
        if not isinstance(response_event, str):
            return False
        call_id = str(decision.payload.get("tool_call_id"))
        network_once = payload.get("network") is True and self.shell_sandbox is not None
        if network_once:  # "Run once with network": granted before the command can run
            self.shell_sandbox.allow_network_once(decision.session_id, call_id)
        try:
            accepted = self.agent.emit_external_event(
                ExternalEvent(response_event, payload),
                config=AgentRunConfig(session_id=decision.session_id),
            )
        except Exception:
            log.warning("answer to %s was refused", decision.kind, exc_info=True)
            accepted = []
        if network_once and not accepted:
            self.shell_sandbox.forget_network_once(decision.session_id, call_id)
        return bool(accepted)

    def steer(self, text: str) -> bool:
        """Add a note to the running turn (the runtime's steering message). False when none runs."""
        if self.agent is None:
            return False
        try:
            accepted = self.agent.emit_external_event(
                ExternalEvent("steering_message", {"content": text}), config=self.config
            )
        except Exception:
            log.warning("steering message refused", exc_info=True)
            return False
        return bool(accepted)

    async def aclose(self) -> None:
        """Close the provider and the history store; safe to call more than once."""
        model, self.model = self.model, None
        storage, self.storage = self.storage, None
        if storage is not None and not await storage.aclose():
            log.error("zett could not save everything of session %s before closing", self._session_id)
        history, self._history = self._history, None
        locked = self._lock is None or self._lock.settled  # else another zett may write the session
        if self.recorder is not None and self.recorder.unsaved and locked:
            await asyncio.to_thread(self.recorder.flush)
        if model is not None and hasattr(model, "aclose"):
            with contextlib.suppress(Exception):
                await model.aclose()
        if history is not None:
            with contextlib.suppress(Exception):
                await history.close()
        await self._close_retired_models()
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()

    def _require_agent(self) -> Agent:
        if self.agent is None:
            raise RuntimeError("the agent is not ready yet")
        return self.agent

    def _turn_metadata(self) -> dict[str, Any]:
        cwd = self.options.cwd
        return {
            "zett": {
                "turn": new_session_id(),  # a UUIDv7 too; ties the turn's journal to its line (``sessions.live_turn``)
                "cwd": str(cwd),
                "branch": git_branch(cwd),
                "model": self.options.model_label,
                "version": __version__,
            }
        }


def _never_raising(sink: Sink) -> Sink:
    """``sink``, with its failures logged instead of raised: a UI that breaks (or is gone, when the
    app crashed mid-turn) must not stop the turn from ending the way the runtime records it."""

    def guarded(event: UIEvent) -> None:
        try:
            sink(event)
        except Exception:
            log.warning("the UI failed to take %s", type(event).__name__, exc_info=True)

    return guarded


def _encodable_after(redact: Redactor) -> Redactor:
    """Redaction, then lone surrogates replaced: whatever is written can be encoded (issue 12)."""

    def redact_encodable(text: str) -> str:
        return encodable(redact(text))

    return redact_encodable


def new_session_id() -> str:
    """A new time-ordered session id (UUIDv7, as the runtime makes them)."""
    from zett_agent.ids import new_uuid7

    return new_uuid7()


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") for part in content or ())
