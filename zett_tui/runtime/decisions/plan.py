"""Plan Mode's two questions (enter it? leave it with this plan?) and their strict answer.

The gate is zett-agent's ``PlanModeExtension``: its reply is exactly ``{"session_id",
"tool_call_id", "approved"}`` (pydantic, ``extra="forbid"``); it has no field for a note, so
front ends send one as a steering message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zett_tui.runtime.decisions.base import text


@dataclass(frozen=True, slots=True)
class EnterPlanRequest:
    kind: ClassVar[str] = "enter_plan_mode"
    session_id: str
    tool_call_id: str
    reason: str = ""

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> EnterPlanRequest:
        return cls(_session(session_id, payload), text(payload, "tool_call_id"), text(payload, "reason"))

    def refuse(self, note: str = "") -> PlanReply:
        return PlanReply(self.session_id, self.tool_call_id, approved=False, note=note)


@dataclass(frozen=True, slots=True)
class ExitPlanRequest:
    kind: ClassVar[str] = "exit_plan_mode"
    session_id: str
    tool_call_id: str
    plan: str = ""

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> ExitPlanRequest:
        return cls(_session(session_id, payload), text(payload, "tool_call_id"), text(payload, "plan"))

    def refuse(self, note: str = "") -> PlanReply:
        return PlanReply(self.session_id, self.tool_call_id, approved=False, note=note)


@dataclass(frozen=True, slots=True)
class PlanReply:
    session_id: str
    tool_call_id: str
    approved: bool
    #: Not sent in the reply (the runtime forbids it): front ends steer with it.
    note: str = ""

    @property
    def declined(self) -> bool:
        return not self.approved

    def payload(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "tool_call_id": self.tool_call_id, "approved": self.approved}


def _session(session_id: str, payload: Mapping[str, Any]) -> str:
    return text(payload, "session_id") or session_id
