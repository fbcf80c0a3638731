"""The zett-agent extension that runs the ``PreToolUse``, ``PostToolUse`` and ``Stop`` hooks, and
gives the model what ``SessionStart`` hooks said.

Where it sits (``extension_stack``): outside the Plan Mode guard, the edit gate, the shell's
approval and the MCP decisions, so a hook sees every call first and its refusal comes before any
dialog. What a hook may decide is only ever stricter than zett:

- ``deny`` (or exit 2): the call does not run; the model reads the hook's reason.
- ``ask``: zett asks the user (``hook_approval_requested``) before the call goes on; a no refuses it.
- ``allow``: no objection. The call still meets zett's own rules, which ask or refuse as the
  permission mode says: an ``allow`` never runs a dangerous command unasked, never writes
  outside the project, never leaves Plan Mode read-only. A hook can tighten zett, not loosen it.

``PostToolUse`` (after a tool that ran and succeeded): exit 2's stderr, a ``decision: "block"`` reason or ``additionalContext`` is added
to the tool's result for the model (the tool has run already). ``Stop``: a block keeps the
request going with the hook's reason as an internal message (``stop_hook_active`` is true on the
next Stop), at most ``MAX_STOP_CONTINUATIONS`` times in one request. ``continue: false`` from a
tool hook ends the turn after the current tool batch (``HookStoppedTurn``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from zett_agent.extensions.external import ExternalEventExtension

from zett_tui.runtime import agent_compat
from zett_tui.runtime.decisions.hook import HookReply
from zett_tui.runtime.hooks.protocol import claude_tool_name, tool_input, tool_names, tool_response
from zett_tui.runtime.tool_refusal import ToolRefused

if TYPE_CHECKING:
    from zett_agent.agent import AgentRunContext
    from zett_agent.messages import AssistantMessage, ToolCall, ToolMessage

    from zett_tui.runtime.hooks.runner import SessionHooks

log = logging.getLogger(__name__)

HOOK_APPROVAL_EVENT = "hook_approval_requested"
HOOK_APPROVAL_RESPONSE = "hook_approval_response"
MAX_STOP_CONTINUATIONS = 3
"""Stop hooks may send the model back to work this often per request (zett-agent allows 8
internal messages in one request; this leaves room for the others)."""


class HookRefused(ToolRefused):
    """A PreToolUse hook (or the user, asked because of one) refused the call."""


class HookStoppedTurn(RuntimeError):
    """A hook said ``continue: false``: the turn ends; the message says which hook and why."""


class HooksExtension(ExternalEventExtension):
    """Runs the tool and Stop hooks of one host's session."""

    def __init__(self, hooks: SessionHooks, *, notify: Callable[[str, str], None]) -> None:
        super().__init__(response_event_name=HOOK_APPROVAL_RESPONSE, correlation_field="tool_call_id")
        self.hooks = hooks
        self._notify = notify
        #: What SessionStart hooks said, for the model (a system message in every request).
        self.session_context = ""
        self._stop_after_batch: dict[Any, str] = {}
        self._stop_continuations: dict[Any, int] = {}

    async def on_state(self, context: AgentRunContext) -> None:
        if self.session_context:
            from zett_agent.messages import SystemMessage

            instructions = [m for m in context.state.messages if isinstance(m, SystemMessage)]
            text = f"What the SessionStart hooks said:\n{self.session_context}"
            context.add_message(SystemMessage(content=text), index=len(instructions))

    async def before_run(self, context: AgentRunContext) -> None:
        # One session per host, one request at a time (a subagent's runs inside its parent's
        # request): what older requests left is done with.
        if context.config.parent_session_id is not None:
            return
        self._stop_after_batch.clear()
        self._stop_continuations.clear()

    async def on_tool_call(
        self, context: AgentRunContext, call: ToolCall, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        if not self.hooks.has("PreToolUse"):
            return await self._run(call, call_next)
        arguments = dict(call.arguments) if isinstance(call.arguments, dict) else {}
        outcome = await self.hooks.run(
            "PreToolUse",
            {
                "tool_name": claude_tool_name(call.name),
                "zett_tool_name": call.name,
                "tool_input": tool_input(call.name, arguments, self.hooks.cwd),
                "tool_use_id": call.id,
            },
            tool_names(call.name),
        )
        if outcome.stop is not None:
            self._stop_after_batch[context] = outcome.stop
            raise HookRefused(f"A PreToolUse hook stopped the turn: {outcome.stop}")
        permission = outcome.permission
        if permission == "deny":
            reason = outcome.permission_reason or "no reason given"
            raise HookRefused(f"A PreToolUse hook refused this {call.name} call: {reason}")
        if permission == "ask":
            answer, note = await self._ask(context, call, arguments, outcome.permission_reason)
            if answer != "once":
                said = f": {note}" if note else ""
                raise HookRefused(f"The user did not let this {call.name} call run (a hook asked){said}")
        return await self._run(call, call_next)

    async def _run(self, call: ToolCall, call_next: Callable[[], Awaitable[Any]]) -> Any:
        """The call itself (and what is inside this extension: the gates, their dialogs): a
        project's hooks do not run meanwhile, so what they were checked against stays put.

        Not so for ``task``: it changes nothing itself, and its subagent's hooks (PreToolUse,
        SubagentStop) run while it runs; held here, they would wait for it for ever. Each of the
        subagent's own calls is held like any other."""
        if call.name == _TASK_TOOL:
            return await call_next()
        async with self.hooks.tool_running():
            return await call_next()

    async def _ask(
        self, context: AgentRunContext, call: ToolCall, arguments: dict[str, Any], reason: str
    ) -> tuple[str, str]:
        payload = {
            "session_id": context.session_id,
            "tool_call_id": call.id,
            "tool": call.name,
            "arguments": arguments,
            "reason": reason,
            "response_event": HOOK_APPROVAL_RESPONSE,
        }
        reply = await agent_compat.ask_the_ui(self, context, call, HOOK_APPROVAL_EVENT, payload)
        answer = HookReply.parse(reply)
        return answer.choice, answer.note

    async def after_tool(
        self, context: AgentRunContext, call: ToolCall, result: ToolMessage, error: Exception | None
    ) -> None:
        if not self.hooks.has("PostToolUse") or error is not None or not result.success:
            return  # as in Claude Code: after a tool that ran and succeeded
        arguments = dict(call.arguments) if isinstance(call.arguments, dict) else {}
        content = result.content if isinstance(result.content, str) else _text_of(result.content)
        outcome = await self.hooks.run(
            "PostToolUse",
            {
                "tool_name": claude_tool_name(call.name),
                "zett_tool_name": call.name,
                "tool_input": tool_input(call.name, arguments, self.hooks.cwd),
                "tool_response": tool_response(call.name, arguments, content, result.success, self.hooks.cwd),
                "tool_use_id": call.id,
            },
            tool_names(call.name),
        )
        notes = [f"PostToolUse hook: {block}" for block in outcome.blocks]
        if outcome.context:
            notes.append(f"PostToolUse hook context: {outcome.context}")
        if notes:
            _append_text(result, "\n\n" + "\n".join(notes))
        if outcome.stop is not None:
            self._stop_after_batch[context] = outcome.stop

    async def after_turn(self, context: AgentRunContext, result: AssistantMessage) -> None:
        stop = self._stop_after_batch.pop(context, None)
        if stop is not None:
            raise HookStoppedTurn(f"A hook stopped the turn: {stop}")
        event = "SubagentStop" if context.config.parent_session_id is not None else "Stop"
        if result.tool_calls or not self.hooks.has(event):
            return
        continued = self._stop_continuations.get(context, 0)
        outcome = await self.hooks.run(event, {"stop_hook_active": continued > 0})
        if outcome.stop is not None:
            self._notify(f"A Stop hook ended the turn: {outcome.stop}", "info")
            return
        if outcome.block is None:
            return
        if continued >= MAX_STOP_CONTINUATIONS:
            self._notify(
                f"The Stop hooks kept the turn going {MAX_STOP_CONTINUATIONS} times; zett ends it here. "
                f"Their last reason: {outcome.block}",
                "warning",
            )
            return
        from zett_agent.extensions.events import InternalMessageEvent
        from zett_agent.messages import AgentMessage

        self._stop_continuations[context] = continued + 1
        self._notify(f"A Stop hook kept the turn going: {outcome.block}", "info")
        await context.publish(
            InternalMessageEvent(
                AgentMessage(content=f"A Stop hook did not let you stop yet: {outcome.block}")
            )
        )


#: The ``task`` tool (``runtime.subagents``), named here to keep this module free of that one.
_TASK_TOOL = "task"


def _text_of(content: Any) -> str:
    return "\n".join(str(getattr(part, "text", "")) for part in content or () if getattr(part, "text", None))


def _append_text(result: ToolMessage, text: str) -> None:
    if isinstance(result.content, str):
        result.content = result.content + text
        return
    from zett_agent.messages import TextContent

    result.content = [*result.content, TextContent(text=text)]
