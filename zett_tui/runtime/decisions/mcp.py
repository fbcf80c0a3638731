"""The MCP gate's question (call this server's tool?) and its answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from zett_tui.runtime.decisions.base import flag, note_of, text

McpChoice = Literal["once", "session", "always", "refuse"]


@dataclass(frozen=True, slots=True)
class McpRequest:
    kind: ClassVar[str] = "mcp_approval_requested"
    session_id: str
    tool_call_id: str
    server: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False
    #: The tool's name as the model sees it (``server__tool``).
    key: str = ""

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> McpRequest:
        arguments = payload.get("arguments")
        return cls(
            session_id,
            text(payload, "tool_call_id"),
            text(payload, "server"),
            text(payload, "tool"),
            dict(arguments) if isinstance(arguments, dict) else {},
            flag(payload, "read_only"),
            text(payload, "key"),
        )

    def refuse(self, note: str = "") -> McpReply:
        return McpReply(self.tool_call_id, "refuse", note)


@dataclass(frozen=True, slots=True)
class McpReply:
    tool_call_id: str
    choice: McpChoice
    note: str = ""

    @property
    def declined(self) -> bool:
        return self.choice == "refuse"

    def payload(self) -> dict[str, Any]:
        reply: dict[str, Any] = {"tool_call_id": self.tool_call_id, "decision": self.choice}
        if self.choice == "refuse":
            reply["note"] = self.note
        return reply

    @classmethod
    def parse(cls, payload: Mapping[str, Any]) -> McpReply:
        """Anything but a clear yes is a no."""
        choice = payload.get("decision")
        call_id = text(payload, "tool_call_id")
        if choice == "once" or choice == "session" or choice == "always":
            return cls(call_id, choice)
        return cls(call_id, "refuse", note_of(payload))
