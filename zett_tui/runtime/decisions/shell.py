"""The shell gate's question (run this command?) and its answer.

The gate is zett-agent's ``ShellApprovalExtension``: its reply is ``{"tool_call_id",
"decision": "execute"|"abort", "remember"}``; ``network`` is zett's own ("run once with the
network on", read by the host before the command can run).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zett_tui.runtime.decisions.base import text, whole_number


@dataclass(frozen=True, slots=True)
class ShellRequest:
    kind: ClassVar[str] = "shell_approval_requested"
    session_id: str
    tool_call_id: str
    command: str
    timeout_seconds: int = 60

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> ShellRequest:
        return cls(
            session_id,
            text(payload, "tool_call_id"),
            text(payload, "command").strip(),
            whole_number(payload, "timeout_seconds", 60),
        )

    def refuse(self, note: str = "") -> ShellReply:
        return ShellReply(self.tool_call_id, run=False, note=note)


@dataclass(frozen=True, slots=True)
class ShellReply:
    tool_call_id: str
    run: bool
    #: This one run may use the network inside the sandbox.
    network: bool = False
    #: The user's note; the runtime has no field for it, so front ends steer with it.
    note: str = ""
    #: Why zett refused without asking anyone (``zett -p``): the model is told this
    #: (``runtime.shell.approval``) instead of "aborted by user".
    reason: str = ""

    @property
    def declined(self) -> bool:
        return not self.run

    def payload(self) -> dict[str, Any]:
        reply: dict[str, Any] = {
            "tool_call_id": self.tool_call_id,
            "decision": "execute" if self.run else "abort",
            "remember": False,
        }
        if self.run and self.network:
            reply["network"] = True
        if not self.run and self.reason:
            reply["reason"] = self.reason
        return reply
