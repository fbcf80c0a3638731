"""The zett-agent extension that offers MCP tools and puts every call through zett's permissions.

``on_tool`` registers each ready server's tools for the request (``tools.build_tools``: built from
what the manager holds, so a request neither waits for a slow server nor opens a connection);
a server that is still starting simply has no tools in it. ``on_tool_call`` decides each
``mcp__...`` call with ``policy.decide`` and, when the answer is to ask, awaits ``ask`` (the host's
approval question: server, tool, arguments; its answer may allow the tool for the session).
The host asks through zett's decision flow (``ask_in_events``): a CUSTOM
``mcp_approval_requested`` event becomes a ``DecisionRequested``, which the chat answers with its
dialog (``ui/chat/answers.py``) and ``zett -p`` from ``--allow-mcp`` (``runtime/unattended.py``);
the reply is ``{"tool_call_id", "decision": "once"|"session"|"always"|"refuse", "note"}``;
"always" is kept in ``saved`` (``saved_rules.McpRules``, beside the project's shell rules). Without either
(``ask`` None, ``ask_in_events`` False) a call that would ask is refused.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from zett_agent.extensions.external import ExternalEventExtension

from zett_tui.runtime import agent_compat
from zett_tui.runtime.decisions.mcp import McpReply
from zett_tui.runtime.mcp.policy import Decision, decide, refusal_message
from zett_tui.runtime.mcp.tools import McpTool, build_tools
from zett_tui.runtime.modes import PermissionMode

if TYPE_CHECKING:
    from zett_agent.agent import AgentRunContext
    from zett_agent.messages import ToolCall

    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.runtime.mcp.saved_rules import McpRules

log = logging.getLogger(__name__)


class Answer(StrEnum):
    ONCE = "once"
    SESSION = "session"
    """Allow this tool for the rest of the session."""
    ALWAYS = "always"
    """Allow it for the session; the asker also saves it."""
    REFUSE = "refuse"


Ask = Callable[[str, str, str, dict[str, Any]], Awaitable[Answer]]
"""(session id, server, tool, arguments) -> the user's answer."""


class McpRefused(RuntimeError):
    """A call the permissions did not let through; the model reads the message."""


MCP_APPROVAL_EVENT = "mcp_approval_requested"
MCP_APPROVAL_RESPONSE = "mcp_approval_response"


class McpToolsExtension(ExternalEventExtension):
    def __init__(
        self,
        manager: McpManager,
        *,
        mode_of: Callable[[str], PermissionMode],
        plan_active: Callable[[str], bool],
        ask: Ask | None = None,
        ask_in_events: bool = False,
        always_allowed: frozenset[str] = frozenset(),
        saved: McpRules | None = None,
    ) -> None:
        super().__init__(response_event_name=MCP_APPROVAL_RESPONSE, correlation_field="tool_call_id")
        self._ask_in_events = ask_in_events
        #: The tools allowed "always" in this project; an ALWAYS answer adds to it.
        self.saved = saved
        self.manager = manager
        self._mode_of = mode_of
        self._plan_active = plan_active
        self._ask = ask
        self._always = set(always_allowed)
        self._session_allowed: dict[str, set[str]] = {}
        self._targets: dict[str, McpTool] = {}

    async def on_tool(self, context: AgentRunContext) -> None:
        """This request's MCP tools; a call names one of them (a tool of a server disabled since
        is no longer one, and is not asked about)."""
        targets: dict[str, McpTool] = {}
        for name, mcp_tool in build_tools(self.manager).items():
            if name in context.tools:
                continue
            targets[name] = mcp_tool
            context.register_tool(mcp_tool.tool)
        self._targets = targets

    def targets(self) -> dict[str, McpTool]:
        """This request's MCP tools by model name."""
        return dict(self._targets)

    def is_read_only(self, name: str) -> bool:
        """Whether ``name`` is one of this request's MCP tools that its server marks readOnlyHint
        (the checkpoints take none before it; any other MCP call may change files)."""
        target = self._targets.get(name)
        return target is not None and target.read_only

    async def on_tool_call(
        self, context: AgentRunContext, call: ToolCall, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        target = self._targets.get(call.name)
        if target is None:
            return await call_next()
        session = context.session_id
        allowed = self._always | self._session_allowed.get(session, set())
        if self.saved is not None:
            allowed |= self.saved.allowed()
        plan = self._plan_active(session)
        decision = decide(
            self._mode_of(session),
            plan_active=plan,
            read_only=target.read_only,
            key=call.name,
            allowed=allowed,
            can_ask=self._ask is not None or self._ask_in_events,
        )
        if decision is Decision.REFUSE:
            raise McpRefused(
                refusal_message(call.name, plan=plan or self._mode_of(session) is PermissionMode.PLAN)
            )
        if decision is Decision.ASK:
            arguments = dict(call.arguments) if isinstance(call.arguments, dict) else {}
            note = ""
            if self._ask is not None:
                answer = await self._ask(session, target.server, target.remote_name, arguments)
            else:
                answer, note = await self._ask_by_event(context, call, target, arguments)
            if answer is Answer.REFUSE:
                raise McpRefused(f"the user declined {call.name}" + (f": {note}" if note else ""))
            if answer in (Answer.SESSION, Answer.ALWAYS):
                self._session_allowed.setdefault(session, set()).add(call.name)
            if answer is Answer.ALWAYS and self.saved is not None:
                try:
                    self.saved.allow(call.name)
                except OSError:  # it still runs, and stays allowed for the session
                    log.warning("could not save the MCP permission for %s", call.name, exc_info=True)
        return await call_next()

    async def _ask_by_event(
        self, context: AgentRunContext, call: ToolCall, target: McpTool, arguments: dict[str, Any]
    ) -> tuple[Answer, str]:
        payload = {
            "session_id": context.session_id,
            "tool_call_id": call.id,
            "key": call.name,
            "server": target.server,
            "tool": target.remote_name,
            "arguments": arguments,
            "read_only": target.read_only,
            "response_event": MCP_APPROVAL_RESPONSE,
        }
        reply = await agent_compat.ask_the_ui(self, context, call, MCP_APPROVAL_EVENT, payload)
        answer = McpReply.parse(reply)  # anything but a clear yes is a no
        return Answer(answer.choice), answer.note
