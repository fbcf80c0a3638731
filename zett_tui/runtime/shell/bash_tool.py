"""Every ``bash`` call runs through zett's sandbox, and leaving it is the user's decision.

A tool-call middleware that takes over each call named ``bash`` (zett's own tool and Plan Mode's
copy): it checks the arguments as zett-agent's tool does and runs the command with
``ShellSandbox`` instead of calling the tool. It sits inside the shell approval, the Plan Mode
guard and the edit gate, so a command has been approved (or allowed by a rule) before it runs.

When a sandboxed command fails in a way that looks like the sandbox stopped it (a refused write,
the network off, a hidden credential folder), it asks with a CUSTOM ``sandbox_escape_requested``
event and waits for ``sandbox_escape_response``:

    {"tool_call_id": ..., "decision": "stay" | "outside" | "network", "note": "optional"}

``stay`` (and anything unknown) keeps the failure, with one line saying what the sandbox probably
stopped; ``outside`` runs the command again once without a sandbox; ``network`` runs it again once
in the sandbox with the network on (offered only when the network was what stopped it). It asks
in every mode: nothing leaves the sandbox without a dialog. ``zett -p`` answers ``stay``.

In Plan Mode an approved command runs in a sandbox where the project is read-only too, and is
never offered a way out of it. A read-only subagent's command (``explore``) runs the same way,
with the network off as well, whatever ``[sandbox] network`` says.

Where no sandbox can start, or ``[sandbox] mode = "off"``, commands run outside one (every command
asks first: ``ShellPolicy``); their output is handled the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from pydantic import ConfigDict, Field, create_model
from zett_agent.agent import AgentRunContext
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.external import ExternalEventExtension
from zett_agent.messages import ToolCall
from zett_agent.tools.coding import DEFAULT_BASH_TIMEOUT_SECONDS, TimeoutSeconds

from zett_tui.runtime import agent_compat
from zett_tui.runtime.decisions.sandbox import ESCAPE_CHOICES, SandboxEscapeReply
from zett_tui.runtime.events import TOOL_OUTPUT_EVENT
from zett_tui.runtime.shell.live_output import Report
from zett_tui.runtime.shell.sandbox import ShellRun, ShellSandbox, Where
from zett_tui.runtime.shell.sandbox_blocks import SandboxBlock

__all__ = [
    "ESCAPE_CHOICES",
    "SANDBOX_ESCAPE_EVENT",
    "SANDBOX_ESCAPE_RESPONSE",
    "SandboxedShell",
]

SHELL_TOOL = "bash"
SANDBOX_ESCAPE_EVENT = "sandbox_escape_requested"
SANDBOX_ESCAPE_RESPONSE = "sandbox_escape_response"
PLAN_MODE_NOTE = "Plan Mode: the project is read-only for commands until the plan is approved."
READ_ONLY_AGENT_NOTE = "This subagent only reads: its commands cannot write files and have no network."

#: The same validation as zett-agent's ``bash`` tool (names, bounds, defaults, unknown keys refused).
_BashArguments: Any = create_model(
    "ToolInput",
    __config__=ConfigDict(extra="forbid"),
    command=(Annotated[str, Field(min_length=1)], ...),
    timeout_seconds=(TimeoutSeconds, DEFAULT_BASH_TIMEOUT_SECONDS),
)


class SandboxedShell(ExternalEventExtension):
    """Run ``bash`` calls with ``ShellSandbox``; ask before a stopped command runs outside it."""

    def __init__(
        self,
        shell: ShellSandbox,
        in_plan_mode: Callable[[str], bool] = lambda _session: False,
        reads_only: Callable[[str], bool] = lambda _session: False,
    ) -> None:
        super().__init__(response_event_name=SANDBOX_ESCAPE_RESPONSE, correlation_field="tool_call_id")
        self.shell = shell
        self._in_plan_mode = in_plan_mode
        #: Whether a session only reads (a read-only subagent's): its commands run read-only and
        #: offline (``runtime.subagents``).
        self._reads_only = reads_only

    async def on_tool_call(
        self,
        context: AgentRunContext,
        call: ToolCall,
        call_next: Callable[[], Awaitable[Any]],
    ) -> Any:
        if call.name != SHELL_TOOL:
            # Another tool (a file edit) may create a `.git` folder: the next command wraps afresh.
            self.shell.invalidate_prepared()
            try:
                return await call_next()
            finally:
                self.shell.invalidate_prepared()
        arguments = _BashArguments.model_validate(dict(call.arguments or {}))
        command: str = arguments.command
        timeout: int = arguments.timeout_seconds
        if not command.strip():
            raise ValueError("Shell command cannot be blank")
        shell = self.shell
        live = _live_output(context, call)
        if self._reads_only(context.session_id):
            return await self._run_read_only(command, timeout, live, offline=True)
        if self._in_plan_mode(context.session_id):
            return await self._run_read_only(command, timeout, live)
        if not shell.available:
            return (await shell.run(command, timeout, where=Where.OUTSIDE, on_output=live)).result(timeout)
        once = shell.take_network_once(context.session_id, call.id)
        run = await shell.run(
            command, timeout, where=Where.NETWORK if once else Where.SANDBOX, on_output=live
        )
        block = shell.blocked(run, command)
        if block is None:
            return run.result(timeout)
        decision, note = await self._ask(context, call, command, block, run)
        if decision == "stay":
            refused = "It was not run outside the sandbox" + (f": {note}" if note else ".")
            return run.result(timeout, note=f"zett: {block.reason} {refused}")
        where = Where.NETWORK if decision == "network" else Where.OUTSIDE
        again = await shell.run(command, timeout, where=where, on_output=live)
        how = "with the network on, once" if where is Where.NETWORK else "outside the sandbox, once"
        return again.result(
            timeout, note=f"zett: the sandbox stopped the first run; it ran again {how}, as the user allowed."
        )

    async def _run_read_only(self, command: str, timeout: int, live: Report, *, offline: bool = False) -> Any:
        """Plan Mode (and, ``offline``, a read-only subagent): an approved command runs with the
        project read-only, and never leaves the sandbox (where none can start, it does not run)."""
        shell = self.shell
        who = "This subagent runs" if offline else "Plan Mode runs"
        if not shell.available:
            raise RuntimeError(
                f"{who} shell commands only in a read-only sandbox, and none can start here "
                f"({shell.unavailable_reason}). The command was not run."
            )
        run = await shell.run(
            command, timeout, where=Where.SANDBOX, on_output=live, read_only=True, offline=offline
        )
        block = shell.blocked(run, command)
        why = READ_ONLY_AGENT_NOTE if offline else PLAN_MODE_NOTE
        note = f"zett: {why} {block.explained(read_only=True)}" if block is not None else ""
        return run.result(timeout, note=note)

    async def _ask(
        self, context: AgentRunContext, call: ToolCall, command: str, block: SandboxBlock, run: ShellRun
    ) -> tuple[str, str]:
        """The user's answer: ``stay``, ``outside`` or ``network``, and their note."""
        offer_network = block.kind == "network" and not run.network
        payload = {
            "session_id": context.session_id,
            "tool_call_id": call.id,
            "command": command.strip(),
            "reason": block.reason,
            "blocked": block.kind,
            "exit_code": run.exit_code,
            "network_offered": offer_network,
            "response_event": SANDBOX_ESCAPE_RESPONSE,
        }
        reply = await agent_compat.ask_the_ui(self, context, call, SANDBOX_ESCAPE_EVENT, payload)
        answer = SandboxEscapeReply.parse(reply, network_offered=offer_network)
        return answer.choice, answer.note


def _live_output(context: AgentRunContext, call: ToolCall) -> Report:
    """Pass a running command's last lines on as a CUSTOM ``TOOL_OUTPUT_EVENT`` for its row."""

    async def report(lines: list[str]) -> None:
        await context.emit(
            AgentEvent(
                AgentEventType.CUSTOM,
                session_id=context.session_id,
                tool_calls=[call],
                name=TOOL_OUTPUT_EVENT,
                payload={"tool_call_id": call.id, "lines": lines},
            )
        )

    return report
