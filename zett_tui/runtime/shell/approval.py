"""zett-agent's shell approval, telling the model why a command was refused when a rule refused it.

Upstream, a command answered with ``"decision": "abort"`` fails with "Shell command aborted by
user". In ``zett -p`` nobody was asked: a rule (no ``--allow-shell`` for it, a dangerous command,
no sandbox) refused it, and the model, told the user aborted, may ask again or say the user
declined. An abort that carries a ``"reason"`` (``runtime.unattended`` adds it) fails with that
reason instead, as a :class:`~zett_tui.runtime.tool_refusal.ToolRefused` (the row says "refused").
An abort without one is the user's, and keeps upstream's words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zett_agent.extensions.shell_approval import ShellApprovalExtension, ShellCommandAborted

from zett_tui.runtime.tool_refusal import ToolRefused

if TYPE_CHECKING:
    from zett_agent.agent import AgentRunConfig, AgentRunContext
    from zett_agent.extensions.external import ExternalEvent
    from zett_agent.messages import ToolCall

__all__ = ["ShellApproval"]


class ShellApproval(ShellApprovalExtension):
    """:class:`ShellApprovalExtension` that passes a refusal's reason on to the model."""

    name = "ShellApprovalExtension"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The reason of each refused call's answer, by tool call id, until its call fails with it.
        self._reasons: dict[str, str] = {}

    def accept(self, config: AgentRunConfig | None, event: ExternalEvent) -> bool:
        payload = event.payload
        reason = payload.get("reason")
        call_id = payload.get("tool_call_id")
        accepted = super().accept(config, event)
        if (
            accepted
            and payload.get("decision") == "abort"
            and isinstance(reason, str)
            and isinstance(call_id, str)
        ):
            self._reasons[call_id] = reason
        return accepted

    async def on_tool_call(self, context: AgentRunContext, call: ToolCall, call_next: Any) -> Any:
        try:
            return await super().on_tool_call(context, call, call_next)
        except ShellCommandAborted:
            reason = self._reasons.pop(call.id, None)
            if reason is None:
                raise
            command = str(call.arguments.get("command", "")).strip()
            raise ToolRefused(
                f"zett refused the shell command `{command}` without asking anyone: {reason}."
            ) from None
        finally:
            self._reasons.pop(call.id, None)
