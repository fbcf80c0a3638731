"""A PreToolUse hook's "ask the user first" question and its answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from zett_tui.runtime.decisions.base import ChoiceReply, text

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
class HookReply(ChoiceReply[HookChoice]):
    REFUSAL: ClassVar[str] = "refuse"
    YES: ClassVar[frozenset[str]] = frozenset({"once"})
