"""The MCP gate's question (call this server's tool?) and its answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from zett_tui.runtime.decisions.base import ChoiceReply, flag, text

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
class McpReply(ChoiceReply[McpChoice]):
    REFUSAL: ClassVar[str] = "refuse"
    YES: ClassVar[frozenset[str]] = frozenset({"once", "session", "always"})
