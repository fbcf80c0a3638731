"""A PreToolUse hook's "ask the user first" question and its answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from zett_tui.runtime.decisions.base import note_of, text

HookChoice = Literal["once", "refuse"]


@dataclass(frozen=True, slots=True)
class HookRequest:
    kind: ClassVar[str] = "hook_approval_requested"
    session_id: str
    tool_call_id: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    reason: str = ""

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> HookRequest:
        arguments = payload.get("arguments")
        return cls(
            session_id,
            text(payload, "tool_call_id"),
            text(payload, "tool"),
            dict(arguments) if isinstance(arguments, dict) else {},
            text(payload, "reason"),
        )

    def refuse(self, note: str = "") -> HookReply:
        return HookReply(self.tool_call_id, "refuse", note)


@dataclass(frozen=True, slots=True)
class HookReply:
    tool_call_id: str
    choice: HookChoice
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
    def parse(cls, payload: Mapping[str, Any]) -> HookReply:
        """Anything but a clear yes is a no."""
        call_id = text(payload, "tool_call_id")
        if payload.get("decision") == "once":
            return cls(call_id, "once")
        return cls(call_id, "refuse", note_of(payload))
