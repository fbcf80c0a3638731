"""zett-agent's Plan Mode, with the read-only tools zett lets run there.

zett-agent's ``PlanModeExtension.before_tool`` refuses every call outside its own file and shell
set with ``AgentProtocolError`` (the turn ends: "did not follow the protocol"). zett lets an MCP
tool its server marks ``readOnlyHint`` run in Plan Mode (``runtime.mcp.policy``), so
``ZettPlanMode`` lets through the calls ``also_allowed`` names; ``runtime.mcp.plan_tools`` offers
those tools in the request. No Textual here.
"""

from __future__ import annotations

from collections.abc import Callable

from zett_agent.agent import AgentRunContext
from zett_agent.extensions import PlanModeExtension
from zett_agent.messages import ToolCall

__all__ = ["ZettPlanMode"]


class ZettPlanMode(PlanModeExtension):
    """zett-agent's Plan Mode, letting through the calls ``also_allowed`` names (the read-only MCP
    tools of the request); every other call outside its set is refused as before."""

    def __init__(self) -> None:
        super().__init__()
        self.also_allowed: Callable[[str], bool] = lambda _name: False

    async def before_tool(self, context: AgentRunContext, call: ToolCall) -> None:
        if self.is_plan_mode(context.session_id) and self.also_allowed(call.name):
            return
        await super().before_tool(context, call)
