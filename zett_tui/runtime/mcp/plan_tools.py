"""MCP tools their server marks ``readOnlyHint`` stay offered in Plan Mode.

zett-agent's Plan Mode replaces the request's tools with its own file and shell set (in
``on_tool`` and again in ``before_model``, at priority 1,000,000: after every other extension), so
an MCP tool vanished from the request and a call to it failed with "did not follow the protocol",
although zett's policy (``policy.decide``) lets a read-only one run there (its ``before_tool``
also refuses any tool outside its own set). ``McpPlanTools`` runs after Plan Mode (``PRIORITY``)
and puts the read-only MCP tools of the request back while Plan Mode is on;
``runtime.plan_mode.ZettPlanMode`` lets exactly those through. ``McpToolsExtension`` still decides each
call. No Textual here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import AgentExtension
from zett_agent.model import ModelRequest

if TYPE_CHECKING:
    from zett_tui.runtime.mcp.extension import McpToolsExtension

__all__ = ["PRIORITY", "McpPlanTools"]

#: After zett-agent's ``PlanModeExtension`` (1,000,000).
PRIORITY = 1_000_001


class McpPlanTools(AgentExtension):
    """Offer the read-only MCP tools again after Plan Mode replaced the tools."""

    name = "mcp_plan_tools"
    priority = PRIORITY

    def __init__(self, tools: McpToolsExtension, plan_active: Callable[[str], bool]) -> None:
        self._tools = tools
        self._plan_active = plan_active

    def _offer(self, context: AgentRunContext) -> None:
        if not self._plan_active(context.session_id):
            return
        for name, target in self._tools.targets().items():
            if target.read_only and name not in context.tools:
                context.register_tool(target.tool)

    async def on_tool(self, context: AgentRunContext) -> None:
        self._offer(context)

    async def before_model(self, context: AgentRunContext, request: ModelRequest) -> None:
        self._offer(context)
