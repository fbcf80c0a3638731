"""The agent side of zett: owns the Agent, its model and extensions; runs, cancels and answers turns.

No Textual here. The UI hands ``run_turn`` a sink (a cheap, synchronous callable) and runs it in
a worker; cancelling that worker cancels the turn, and the runtime records it as cancelled.
Which extensions the agent runs, and in which order, is ``extension_stack``'s; reading a turn's
events into the UI's is ``turn_stream``'s, and how a cancelled turn is made to stop, ``turn_stop``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.model import AgentModel, ReasoningEffort
from zett_agent.resume import ResumePoint

from zett_tui import __version__
from zett_tui.checkpoints.journal import TurnRecord
from zett_tui.checkpoints.recording import CHANGES_LEVEL, CheckpointExtension, SessionCheckpoints
from zett_tui.core import paths
from zett_tui.core.images import PreparedImage
from zett_tui.core.inert_text import encodable
from zett_tui.runtime.agent_options import HostOptions, ModelFactory
from zett_tui.runtime.compaction import ContextCompaction
from zett_tui.runtime.context_gauge import ContextGauge
from zett_tui.runtime.conversation_rewinds import ConversationRewinds
from zett_tui.runtime.events import (
    ContextMeasured,
    DecisionRequested,
    Notice,
    TurnFinished,
)
from zett_tui.runtime.extension_stack import build_extension_stack
from zett_tui.runtime.extensions.registry import ExtensionReport
from zett_tui.runtime.files.read_access import ReadAccess
from zett_tui.runtime.files.read_gate import ReadGate
from zett_tui.runtime.hooks.host_events import prompt_submitted, session_started
from zett_tui.runtime.hooks.runner import SessionHooks
from zett_tui.runtime.image_prompt import user_message
from zett_tui.runtime.model_switch import ModelsInUse
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.recorder import Redactor, TurnRecorder
from zett_tui.runtime.runtime_answers import answer_decision, steer
from zett_tui.runtime.session_files import SessionFiles
from zett_tui.runtime.subagents.wiring import connect_subagents, subagent_extensions, subagent_runner
from zett_tui.runtime.todo import SessionTodos, TodoBoard
from zett_tui.runtime.turn_images import prepare_prompt
from zett_tui.runtime.turn_model import TurnModel, build_for_turn
from zett_tui.runtime.turn_notices import TurnNotices
from zett_tui.runtime.turn_stop import RunWatch
from zett_tui.runtime.turn_stream import Sink, TurnStream
from zett_tui.sessions.rewind_marks import RewoundTurns
from zett_tui.workspace.git_branch import git_branch

if TYPE_CHECKING:
    from zett_tui.runtime.decisions import Reply
    from zett_tui.runtime.extension_stack import EditGate, PlanGuard
    from zett_tui.runtime.shell.policy import ShellPolicy, ShellRules
    from zett_tui.runtime.shell.sandbox import ShellSandbox
    from zett_tui.runtime.storage_retry import LockSlot, StorageRetry
    from zett_tui.runtime.web.allowed_domains import DomainPermissions

log = logging.getLogger(__name__)


class AgentHost:
    """One zett process's agent: one session at a time, one turn at a time."""

    def __init__(self, options: HostOptions) -> None:
        self.options = options
        self.agent: Agent | None = None
        self.model: AgentModel | None = None
        #: The session's lock, transcript, history and their retry; set by ``start``.
        self.files: SessionFiles | None = None
        self.mode = options.permission_mode
        self.plan_guard: PlanGuard | None = None
        self.edit_gate: EditGate | None = None
        self.read_gate: ReadGate | None = None
        self.shell_rules: ShellRules | None = None
        self.shell_policy: ShellPolicy | None = None
        #: The shell sandbox (``runtime.sandbox.ShellSandbox``); its ``unavailable_reason`` is None
        #: when commands are confined, else why not. Set by ``start``.
        self.shell_sandbox: ShellSandbox | None = None
        #: The domains ``web_fetch`` reaches without asking (``runtime.web.allowed_domains``).
        self.web_permissions: DomainPermissions | None = None
        #: What loaded from where, what did not and why (``/extensions``); filled by ``start``.
        self.extension_report = ExtensionReport()
        #: What zett says outside the answer (extensions, the disk), until it can be said.
        self.notices = TurnNotices()
        self._session_id = options.session_id or new_session_id()
        self.reasoning_effort = options.reasoning_effort
        self.compaction: ContextCompaction | None = None
        #: How full the context is, and the window it fills (``runtime.context_gauge``).
        self.gauge = ContextGauge(options)
        #: Reads each turn's events into the UI's (``runtime.turn_stream``); set by ``start``.
        self.turns: TurnStream | None = None
        #: Which task runs the session's request, for stopping it (``runtime.turn_stop``).
        self._run_watch = RunWatch()
        #: Closes a replaced model once no request uses it (``runtime.model_switch``).
        self._models = ModelsInUse()
        #: The session's checkpoints (``zett_tui.checkpoints``); set by ``start``.
        self.checkpoints: SessionCheckpoints | None = None
        #: Which turns a conversation rewind took out of the model's context (``runtime.conversation_rewinds``).
        self.rewinds = ConversationRewinds(
            lambda: self.session_id,
            lambda: self.checkpoints.hidden_requests if self.checkpoints is not None else None,
        )
        #: The model's checklist (``runtime.todo``): kept across turns, restored on resume.
        self.checklist = SessionTodos(is_main_session=lambda session_id: session_id == self.session_id)
        #: The ``task`` tool's subagents (``runtime.subagents``): requests of this agent, child sessions.
        self.subagents = subagent_runner(
            options,
            model_label=lambda: self.options.model_label,
            describe=lambda error: self.options.describe_error(error),
        )
        #: The session's hooks (``runtime.hooks``); ``SessionStart`` has run once ``start`` returns.
        self.hooks = SessionHooks(
            options.hooks,
            cwd=options.cwd,
            report=self._storage_notice,
            session_id=lambda: self.session_id,
            transcript_path=lambda: self.files.transcript if self.files is not None else None,
            mode=lambda: self.mode.value,
        )

    @property
    def rewound(self) -> RewoundTurns:
        """The session's rewound turns (``sessions.rewind_marks``)."""
        return self.rewinds.turns

    @property
    def recorder(self) -> TurnRecorder | None:
        return self.files.recorder if self.files is not None else None

    @property
    def storage(self) -> StorageRetry | None:
        """Retries what could not be written (``runtime.storage_retry``)."""
        return self.files.storage if self.files is not None else None

    @property
    def _history(self) -> Any:
        return self.files.history if self.files is not None else None

    @property
    def _lock(self) -> LockSlot | None:
        return self.files.lock if self.files is not None else None

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
        from zett_tui.runtime.agent_compat import share_tool_schemas

        share_tool_schemas()  # the tools zett-agent builds per request reuse their schemas
        options = self.options
        files = SessionFiles(
            options.sessions_dir or paths.sessions_dir(),
            options.history_db or paths.history_db(),
            self.session_id,
            self._storage_notice,
        )
        self.files = files
        await files.claim()  # SessionBusy: another zett has the session
        self.model = await asyncio.to_thread(options.model_factory)
        self.gauge.adopt_window_finding(self.model)
        # Nothing reaches a file unredacted: without a redactor from startup, the built-in rules and
        # the provider keys in this process's environment are used.
        redact = _encodable_after(options.redact or redactor_from_environment(os.environ))
        for notice in await files.open(redact, resumed=options.session_id is not None):
            self.notices.add(notice)
        assert files.recorder is not None
        self.compaction = ContextCompaction(self.context_window)
        self.compaction.follow_effort(self.reasoning_effort)
        self.checkpoints = SessionCheckpoints(
            options.cwd,
            self.session_id,
            root=options.checkpoints_dir or paths.checkpoints_dir(),
            bounds=options.checkpoint_bounds,
            notify=self._storage_notice,
            redact=redact,
            on_changes=self._changes_notice,
            on_conversation_rewind=lambda record: self.rewinds.mark(record, self.recorder),
        )
        # A conversation rewind hides requests from the history: the session file says which.
        await self.rewinds.load(files.transcript)
        if options.session_id is not None:  # resumed: the checklist as the session left it
            await self.checklist.restore(files.transcript)
        files.history.storage.hidden_requests = lambda session_id: self.rewinds.hidden()
        await self.hooks.prepare()  # before the agent can write to a file a hook runs
        stack = await build_extension_stack(
            options,
            history=files.history,
            compaction=self.compaction,
            recorder=files.recorder,
            checkpoints=CheckpointExtension(self.checkpoints),
            redact=redact,
            mode_of=self.mode_of,
            notify=self._storage_notice,
            report_failure=self._extension_failed,
            hooks=self.hooks,
            todos=self.checklist.extension(),
            subagents=subagent_extensions(self.subagents, self._plan_active),
            reads_only=self.subagents.reads_only,
        )
        self.plan_guard = stack.plan_guard
        self.edit_gate = stack.edit_gate
        self.read_gate = stack.read_gate
        connect_subagents(self.subagents, files.recorder, (self.edit_gate, self.read_gate))
        self.shell_rules = stack.shell_rules
        self.shell_policy = stack.shell_policy
        self.shell_sandbox = stack.shell_sandbox
        self.web_permissions = stack.web_permissions
        self.extension_report = stack.report
        self.agent = await Agent.create(
            self.model,
            config=AgentRunConfig(session_id=self._session_id),
            system_prompt=options.system_prompt,
            extensions=[*stack.extensions, self._run_watch],
            reasoning_effort=options.reasoning_effort,
        )
        self.subagents.agent = self.agent
        self.turns = TurnStream(
            notices=self.notices,
            recorder=files.recorder,
            compaction=self.compaction,
            gauge=self.gauge,
            subagents=self.subagents,
            shell_policy=self.shell_policy,
            models=self._models,
            retry_storage=self._retry_storage,
            describe_error=lambda error: self.options.describe_error(error),
            plan_mode_changed=self._follow_plan_mode,
            run_watch=self._run_watch,
            session_id=lambda: self.session_id,
        )
        if stack.hooks is not None and self.hooks.has("SessionStart"):
            resumed = options.session_id is not None
            await session_started(self.hooks, stack.hooks, resumed=resumed, notify=self._storage_notice)
        log.info("agent ready: model=%s session=%s", options.model_label, self._session_id)

    async def run_turn(
        self,
        prompt: str,
        sink: Sink,
        *,
        model: TurnModel | None = None,
        images: Sequence[PreparedImage] = (),
    ) -> TurnFinished:
        """Run one turn, feeding UI events to ``sink``; cancelling the calling task cancels the turn.

        ``model``: answer this turn with another model (recorded as the turn's model). When it
        cannot be built, a line says why and the session's model answers. ``images``: prepared
        images (pasted, from the clipboard) sent after the prompt, with those ``@`` mentions attach;
        a model known not to read images gets nothing, and the turn says why (``turn_images``)."""
        agent = self._require_agent()
        if self.hooks.has("UserPromptSubmit"):
            submitted = await prompt_submitted(self.hooks, prompt, sink, self.notices)
            if isinstance(submitted, TurnFinished):
                return submitted
            prompt = submitted
        options = self._request_options()
        built = await build_for_turn(model, self.options.model_label, sink) if model is not None else None
        if built is not None and model is not None:
            options.update(model=built, reasoning_effort=ReasoningEffort(model.reasoning_effort))
        try:
            prepared = await prepare_prompt(
                prompt,
                images,
                sink,
                label=model.label if built is not None and model is not None else self.options.model_label,
                model=built if built is not None else self.model,
                read_access=self.read_access(),
                cwd=self.options.cwd,
                previews=self.options.image_previews,
            )
            if prepared.problem is not None:
                return TurnFinished("failed", error=prepared.problem)
            metadata = self._turn_metadata()
            if built is not None and model is not None:
                metadata["zett"]["model"] = model.label
            message = user_message(encodable(prepared.text), prepared.images)
            unvetted = bool(prepared.images) and prepared.reads_images is None
            stream = agent.stream(message, **options, metadata=metadata)
            return await self._turns().run(stream, sink, images_unvetted=unvetted)
        finally:
            if built is not None:
                await self._models.retire(built)

    def read_access(self) -> ReadAccess:
        """This session's read rules, with what the user allowed "for this session" in the read
        dialog: what the model's read tools and ``@`` attachments may read without asking."""
        if self.read_gate is not None:
            return self.read_gate.access(self._session_id)
        return ReadAccess(self.options.cwd)

    async def continue_turn(self, sink: Sink) -> TurnFinished:
        """Carry on a turn that was cut off (a crash, a kill, an output limit) without new input."""
        agent = self._require_agent()
        metadata = self._turn_metadata()
        metadata["zett"]["continues"] = True  # its line repeats the cut-off turn's messages first
        stream = agent.stream_resume(**self._request_options(), metadata=metadata)
        return await self._turns().run(stream, sink)

    async def compact(self, sink: Sink) -> bool:
        """Compact the conversation now (``/compact``); True when a summary replaced older turns.

        Call it between turns. The notices before and after go to ``sink``, and a failure ends as a
        ``TurnFinished("failed")`` like a turn's. Nothing happens (False) when there is not enough
        history to summarize.
        """
        agent = self._require_agent()
        before = self.compactions
        stream = agent.compact(config=self.config, model=self.model, metadata=self._turn_metadata())
        await self._turns().run(stream, sink)
        return self.compactions > before

    def _request_options(self) -> dict[str, Any]:
        return {"config": self.config, "model": self.model, "reasoning_effort": self.reasoning_effort}

    async def resume_point(self) -> ResumePoint | None:
        """What was cut off in this session's last turn (``description`` says it in words); None
        when it finished."""
        agent = self._require_agent()
        try:
            return await agent.resume_point(config=self.config, model=self.model)
        except Exception:
            log.warning("resume point unavailable", exc_info=True)
            return None

    async def _retry_storage(self) -> None:
        """What waits for the disk is tried at each turn's end (a cancelled turn leaves it to the timer)."""
        if self.files is not None:
            await self.files.retry_after_turn()

    def _extension_failed(self, message: str) -> None:
        """A guarded extension raised and switched itself off; the user hears of it in the turn."""
        self.notices.add(Notice(message, "error"))

    def _storage_notice(self, text: str, level: str) -> None:
        """The history or the transcript stopped (or started again) being saved (from any thread)."""
        self.notices.add(Notice(text, level))

    def _changes_notice(self, text: str, record: TurnRecord) -> None:
        """A turn changed files: its line, which expands to the files and their diff."""
        changes = (record.before, record.after) if record.before and record.after else None
        files = tuple(tuple(change) for change in record.changes)
        self.notices.add(Notice(text, CHANGES_LEVEL, changes=changes, files=files))

    def listen_between_turns(self, listener: Callable[[Notice], None]) -> None:
        """Pass ``listener`` the notices that arrive while no turn runs (``TurnNotices.listen``)."""
        self.notices.listen(listener)

    def take_notices(self) -> list[Notice]:
        """What the user should hear now (a damaged history set aside at start), and not again."""
        return self.notices.take()

    def plan_active(self, session_id: str) -> bool:
        """Plan Mode is on for ``session_id``: its commands run with the project read-only."""
        return self._plan_active(session_id)

    def _plan_active(self, session_id: str) -> bool:
        """Plan Mode is on for the main session (by the mode, or the runtime's Plan Mode)."""
        if self.mode is PermissionMode.PLAN:
            return True
        return self.plan_guard is not None and bool(self.plan_guard.is_active(session_id))

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
        return self.gauge.window

    @property
    def context_window_guessed(self) -> bool:
        """True while the window is only the table's guess (a local server that did not say)."""
        return self.gauge.window_guessed

    @property
    def last_context(self) -> ContextMeasured | None:
        """The last measurement of the context (None before the first model call or estimate)."""
        return self.gauge.last

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
        self.gauge.adopt_window_finding(model)
        if describe_error is not None:
            self.options.describe_error = describe_error
        if self.compaction is not None:
            self.compaction.set_context_window(self.context_window)
        self.set_reasoning_effort(effort)
        self.gauge.model_changed()
        if old is not None and old is not model:
            await self._models.retire(old)
        log.info("model switched: model=%s session=%s", model_label, self._session_id)

    def set_reasoning_effort(self, effort: ReasoningEffort | str) -> None:
        """The reasoning effort of the next requests (the summary for compaction follows it)."""
        self.reasoning_effort = ReasoningEffort(effort)
        if self.compaction is not None:
            self.compaction.follow_effort(self.reasoning_effort)

    async def estimate_context(self) -> ContextMeasured:
        """The context the next request starts from (``ContextGauge.estimate``)."""
        return await self.gauge.estimate(self.files, self.session_id)

    async def estimate_from_history(self) -> ContextMeasured:
        """The context the next request starts from, estimated from the stored history."""
        return await self.gauge.estimate_from_history(self._history, self.session_id)

    def note_decision(
        self, line: str, call_id: str | None, *, declined: bool = False, subagent_session: str | None = None
    ) -> None:
        """Keep the transcript's line for an answer with the running turn (shown again on resume);
        ``subagent_session``: the subagent's session that asked (None: the main agent)."""
        if self.turns is not None:
            self.turns.note_decision(line, call_id, declined=declined, subagent_session=subagent_session)

    def answer(self, decision: DecisionRequested, reply: Reply | Mapping[str, Any]) -> bool:
        """Send the user's answer back to the runtime (``runtime_answers``); False for a late or
        duplicate answer."""
        return self.agent is not None and answer_decision(self.agent, decision, reply, self.shell_sandbox)

    def steer(self, text: str) -> bool:
        """Add a note to the running turn (the runtime's steering message). False when none runs."""
        return self.agent is not None and steer(self.agent, self.config, text)

    async def aclose(self) -> None:
        """Close the provider and the history store; safe to call more than once."""
        model, self.model = self.model, None
        if model is not None and hasattr(model, "aclose"):
            with contextlib.suppress(Exception):
                await model.aclose()
        await self._models.close_retired()
        if self.shell_sandbox is not None:
            with contextlib.suppress(Exception):
                self.shell_sandbox.close()
        if self.files is not None:
            await self.files.aclose()  # the lock goes last

    @property
    def compactions(self) -> int:
        """How many compactions replaced older turns in this host's life."""
        return self.turns.compactions if self.turns is not None else 0

    def _turns(self) -> TurnStream:
        if self.turns is None:
            raise RuntimeError("the agent is not ready yet")
        return self.turns

    def _follow_plan_mode(self, active: bool) -> None:
        """The runtime's Plan Mode went on or off: the permission mode follows it."""
        if active:
            self.mode = PermissionMode.PLAN
        elif self.mode is PermissionMode.PLAN:
            self.mode = PermissionMode.ASK

    def _require_agent(self) -> Agent:
        if self.agent is None:
            raise RuntimeError("the agent is not ready yet")
        return self.agent

    @property
    def todos(self) -> TodoBoard:
        """The model's checklist as it stands (``runtime.todo``)."""
        return self.checklist.board

    async def clear_todos(self) -> bool:
        """``/todo clear``: the checklist is emptied, and the session file says so at once."""
        return await self.checklist.clear(self.recorder, self.session_id)

    def _turn_metadata(self) -> dict[str, Any]:
        cwd = self.options.cwd
        zett: dict[str, Any] = {
            "turn": new_session_id(),  # a UUIDv7 too; ties the turn's journal to its line (``sessions.live_turn``)
            "cwd": str(cwd),
            "branch": git_branch(cwd),
            "model": self.options.model_label,
            "version": __version__,
        }
        return {"zett": zett}


def _encodable_after(redact: Redactor) -> Redactor:
    """Redaction, then lone surrogates replaced: whatever is written can be encoded (issue 12)."""

    def redact_encodable(text: str) -> str:
        return encodable(redact(text))

    return redact_encodable


def new_session_id() -> str:
    """A new time-ordered session id (UUIDv7, as the runtime makes them)."""
    from zett_agent.ids import new_uuid7

    return new_uuid7()
