"""The read gate's question (read this path outside the project?) and its answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from zett_tui.runtime.decisions.base import ChoiceReply, flag, note_of, text

ReadChoice = Literal["once", "session", "deny"]


@dataclass(frozen=True, slots=True)
class ReadRequest:
    kind: ClassVar[str] = "read_access_requested"
    session_id: str
    tool_call_id: str
    tool: str
    path: str
    #: What the model asked for (a pattern or a path) when it differs from ``path``.
    requested: str = ""
    is_folder: bool = False
    inside_project: bool = False
    #: What secret the place holds (``SSH keys``...), empty when none.
    secret: str = ""
    reason: str = ""
    #: What "for this session" would allow.
    session_scope: str = ""

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> ReadRequest:
        return cls(
            session_id,
            text(payload, "tool_call_id"),
            text(payload, "tool", "a tool"),
            text(payload, "path"),
            text(payload, "requested"),
            flag(payload, "is_folder"),
            flag(payload, "inside_project"),
            text(payload, "secret"),
            text(payload, "reason"),
            text(payload, "session_scope"),
        )

    def refuse(self, note: str = "") -> ReadReply:
        return ReadReply(self.tool_call_id, "deny", note)


@dataclass(frozen=True, slots=True)
class ReadReply(ChoiceReply[ReadChoice]):
    REFUSAL: ClassVar[str] = "deny"
    YES: ClassVar[frozenset[str]] = frozenset({"once", "session"})

    @classmethod
    def parse(cls, payload: Mapping[str, Any]) -> ReadReply:
        """Stricter than the other gates: an answer that is none of the words is an error."""
        choice = payload.get("decision")
        if choice == "once" or choice == "session" or choice == "deny":
            return cls(text(payload, "tool_call_id"), choice, note_of(payload))
        raise ValueError("Invalid read access response: decision must be once, session or deny")
