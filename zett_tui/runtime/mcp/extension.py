"""The zett-agent extension that offers MCP tools and puts every call through zett's permissions.

``on_tool`` registers each ready server's tools for the request (``tools.build_tools``: built from
what the manager holds, so a request neither waits for a slow server nor opens a connection);
a server that is still starting simply has no tools in it. ``on_tool_call`` decides each
``mcp__...`` call with ``policy.decide`` and, when the answer is to ask, awaits ``ask`` (the host's
approval question: server, tool, arguments; its answer may allow the tool for the session).
Without an ``ask`` (``zett -p``, or no UI wired in) a call that would ask is refused.

Not wired into the host yet: the approval dialog and ``/mcp`` are missing (see the report).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from zett_agent.extensions.base import AgentExtension

from zett_tui.runtime.mcp.policy import Decision, decide, refusal_message
from zett_tui.runtime.mcp.tools import McpTool, build_tools
from zett_tui.runtime.modes import PermissionMode

if TYPE_CHECKING:
    from zett_agent.agent import AgentRunContext
    from zett_agent.messages import ToolCall

    from zett_tui.runtime.mcp.manager import McpManager


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


class McpToolsExtension(AgentExtension):
    def __init__(
        self,
        manager: McpManager,
        *,
        mode_of: Callable[[str], PermissionMode],
        plan_active: Callable[[str], bool],
        ask: Ask | None = None,
        always_allowed: frozenset[str] = frozenset(),
    ) -> None:
        self.manager = manager
        self._mode_of = mode_of
        self._plan_active = plan_active
        self._ask = ask
        self._always = set(always_allowed)
        self._session_allowed: dict[str, set[str]] = {}
        self._targets: dict[str, McpTool] = {}

    async def on_tool(self, context: AgentRunContext) -> None:
        for name, mcp_tool in build_tools(self.manager).items():
            if name in context.tools:
                continue
            self._targets[name] = mcp_tool
            context.register_tool(mcp_tool.tool)

    async def on_tool_call(
        self, context: AgentRunContext, call: ToolCall, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        target = self._targets.get(call.name)
        if target is None:
            return await call_next()
        session = context.session_id
        allowed = self._always | self._session_allowed.get(session, set())
        plan = self._plan_active(session)
        decision = decide(
            self._mode_of(session),
            plan_active=plan,
            read_only=target.read_only,
            key=call.name,
            allowed=allowed,
            can_ask=self._ask is not None,
        )
        if decision is Decision.REFUSE:
            raise McpRefused(
                refusal_message(call.name, plan=plan or self._mode_of(session) is PermissionMode.PLAN)
            )
        if decision is Decision.ASK:
            assert self._ask is not None
            answer = await self._ask(session, target.server, target.remote_name, dict(call.arguments))
            if answer is Answer.REFUSE:
                raise McpRefused(f"the user declined {call.name}")
            if answer in (Answer.SESSION, Answer.ALWAYS):
                self._session_allowed.setdefault(session, set()).add(call.name)
        return await call_next()
