"""The agent side of zett: owns the Agent, its model and extensions; runs, cancels and answers turns.

No Textual here. The UI hands ``run_turn`` a sink (a cheap, synchronous callable) and runs it in
a worker; cancelling that worker cancels the turn, and the runtime records it as cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.base import AgentExtension
from zett_agent.extensions.external import ExternalEvent
from zett_agent.model import AgentModel, ReasoningEffort

from zett_tui import __version__, paths
from zett_tui.runtime.errors import describe_error
from zett_tui.runtime.events import (
    DecisionRequested,
    EventTranslator,
    Notice,
    PlanModeChanged,
    ToolFinished,
    ToolsStarted,
    TurnFinished,
    UIEvent,
)
from zett_tui.runtime.extension_loader import load_bundled
from zett_tui.runtime.permissions import PermissionMode
from zett_tui.runtime.recorder import Redactor, TurnRecorder

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
    system_prompt: str = SYSTEM_PROMPT
    permission_mode: PermissionMode = PermissionMode.ASK
    #: Turns a failure into one human line; startup passes one that knows the provider and key names.
    describe_error: Callable[[BaseException], str] = describe_error


class AgentHost:
    """One zett process's agent: one session at a time, one turn at a time."""

    def __init__(self, options: HostOptions) -> None:
        self.options = options
        self.agent: Agent | None = None
        self.model: AgentModel | None = None
        self.recorder: TurnRecorder | None = None
        self._history: Any = None
        self._lock: Any = None
        self.mode = options.permission_mode
        self.plan_guard: Any = None
        self.edit_gate: Any = None
        self.shell_rules: Any = None
        self.shell_policy: Any = None
        self._session_id = options.session_id or new_session_id()

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
        from zett_agent.extensions import (
            AgentsMdExtension,
            AskUserExtension,
            FileSystemExtension,
            PlanModeExtension,
            ShellApprovalExtension,
            SQLiteSessionExtension,
            ToolGuidelinesExtension,
        )

        from zett_tui.runtime.permissions import ShellPolicy, ShellRules

        from zett_tui.sessions.lock import claim_session

        options = self.options
        self._lock = claim_session(options.sessions_dir or paths.sessions_dir(), self.session_id)
        self.model = await asyncio.to_thread(options.model_factory)
        history_db = options.history_db or paths.history_db()
        _prepare_private_file(history_db)
        self._history = SQLiteSessionExtension(history_db)
        self.recorder = TurnRecorder(options.sessions_dir or paths.sessions_dir(), options.redact)
        tool_output = load_bundled("tool_output", "ToolOutputOutsideProject")
        plan_mode = PlanModeExtension()
        self.plan_guard = load_bundled("plan_guard", "PlanGuardExtension")(plan_mode)
        self.shell_rules = ShellRules(options.cwd)
        self.shell_policy = ShellPolicy(self.shell_rules, options.cwd, self.mode_of, self.plan_guard.is_active)
        self.edit_gate = load_bundled("edit_approval", "EditApprovalExtension")(
            self.mode_of, project_root=options.cwd, is_exempt=self.plan_guard.is_plan_file
        )
        # The first extension is the outermost tool middleware: the Plan Mode guard must refuse a
        # write before the edit gate asks about it.
        extensions: list[AgentExtension] = [
            self._history,
            ToolGuidelinesExtension(),
            AgentsMdExtension(),
            FileSystemExtension(read_only=False),
            _bash_extension(),
            ShellApprovalExtension(storage=self.shell_policy),
            self.plan_guard,
            self.edit_gate,
            AskUserExtension(),
            tool_output(options.tool_output_dir or paths.tool_output_dir()),
            plan_mode,
            *options.extra_extensions,
            self.recorder,
        ]
        self.agent = await Agent.create(
            self.model,
            config=AgentRunConfig(session_id=self._session_id),
            system_prompt=options.system_prompt,
            extensions=extensions,
            reasoning_effort=options.reasoning_effort,
        )
        log.info("agent ready: model=%s session=%s", options.model_label, self._session_id)

    async def run_turn(self, prompt: str, sink: Sink) -> TurnFinished:
        """Run one turn, feeding UI events to ``sink``; cancelling the calling task cancels the turn."""
        agent = self._require_agent()
        return await self._consume(agent.stream(prompt, config=self.config, metadata=self._turn_metadata()), sink)

    async def continue_turn(self, sink: Sink) -> TurnFinished:
        """Carry on a turn that was cut off (a crash, a kill, an output limit) without new input."""
        agent = self._require_agent()
        return await self._consume(agent.stream_resume(config=self.config, metadata=self._turn_metadata()), sink)

    async def resume_point(self) -> str | None:
        """What was cut off in this session's last turn, in words; None when it finished."""
        agent = self._require_agent()
        try:
            point = await agent.resume_point(config=self.config)
        except Exception:
            log.warning("resume point unavailable", exc_info=True)
            return None
        if point is None:
            return None
        return point.description or str(point.kind)

    async def _consume(self, stream: AsyncIterator[AgentEvent], sink: Sink) -> TurnFinished:
        translator = EventTranslator()
        commands: dict[str, str] = {}
        answer = ""
        try:
            async with contextlib.aclosing(stream) as events:  # type: ignore[type-var]
                async for event in events:
                    for ui_event in translator.translate(event):
                        sink(ui_event)
                        self._observe(ui_event, commands, sink)
                    if event.type is AgentEventType.RUN_COMPLETED and event.message is not None:
                        answer = _content_text(event.message.content)
        except asyncio.CancelledError:
            sink(TurnFinished("cancelled"))
            raise
        except Exception as error:  # every failure becomes one human line; details go to the log
            log.warning("turn failed: %s", type(error).__name__, exc_info=True)
            finished = TurnFinished("failed", self.options.describe_error(error))
            sink(finished)
            return finished
        finished = TurnFinished("completed", answer=answer)
        sink(finished)
        return finished

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
                sink(Notice(f"Ran without asking: allowed by {reason}.", "decision"))

    def answer(self, decision: DecisionRequested, payload: dict[str, Any]) -> bool:
        """Send the user's answer back to the runtime. False for a late or duplicate answer."""
        if self.agent is None:
            return False
        response_event = decision.payload.get("response_event")
        if not isinstance(response_event, str):
            return False
        try:
            accepted = self.agent.emit_external_event(
                ExternalEvent(response_event, payload),
                config=AgentRunConfig(session_id=decision.session_id),
            )
        except Exception:
            log.warning("answer to %s was refused", decision.kind, exc_info=True)
            return False
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
        history, self._history = self._history, None
        if model is not None and hasattr(model, "aclose"):
            with contextlib.suppress(Exception):
                await model.aclose()
        if history is not None:
            with contextlib.suppress(Exception):
                await history.close()
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
                "cwd": str(cwd),
                "branch": git_branch(cwd),
                "model": self.options.model_label,
                "version": __version__,
            }
        }


def new_session_id() -> str:
    """A new time-ordered session id (UUIDv7, as the runtime makes them)."""
    from zett_agent.ids import new_uuid7

    return new_uuid7()


def _bash_extension() -> AgentExtension:
    from zett_agent.extensions import BashExtension

    return BashExtension()


def _prepare_private_file(path: Path) -> None:
    """Create ``path`` 0600 in a 0700 folder before SQLite opens it with the umask's mode."""
    paths.ensure_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, paths.PRIVATE_FILE_MODE)
    os.close(fd)
    for suffix in ("", "-wal", "-shm", "-journal"):
        paths.tighten(path.with_name(path.name + suffix), paths.PRIVATE_FILE_MODE)


def git_branch(cwd: Path) -> str | None:
    """The checked-out branch, read from ``.git/HEAD`` (no subprocess); None outside a repository."""
    for folder in (cwd, *cwd.parents):
        head = folder / ".git" / "HEAD"
        if head.is_file():
            try:
                text = head.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            prefix = "ref: refs/heads/"
            return text[len(prefix) :] if text.startswith(prefix) else text[:12]
        if (folder / ".git").exists():
            return None
    return None


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") for part in content or ())
