"""The edit gate's question (apply this change?) and its answer (``extensions/edit_approval.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from zett_tui.runtime.decisions.base import flag, note_of, text, whole_number

EditChoice = Literal["apply", "apply_all", "reject"]
EDIT_CHOICES: tuple[EditChoice, ...] = ("apply", "apply_all", "reject")


@dataclass(frozen=True, slots=True)
class EditRequest:
    kind: ClassVar[str] = "edit_approval_requested"
    session_id: str
    tool_call_id: str
    #: As the user reads it (relative to the project when inside it).
    path: str
    operation: str = "edit"
    diff: str = ""
    added: int = 0
    removed: int = 0
    outside_project: bool = False
    absolute_path: str = ""
    #: Why the path is protected (``.git/``, ``.zett/``...), empty when it is not.
    protected: str = ""

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> EditRequest:
        protected = payload.get("protected")
        return cls(
            session_id,
            text(payload, "tool_call_id"),
            text(payload, "path"),
            text(payload, "operation", "edit") or "edit",
            text(payload, "diff"),
            whole_number(payload, "added"),
            whole_number(payload, "removed"),
            flag(payload, "outside_project"),
            text(payload, "absolute_path"),
            protected if isinstance(protected, str) else ("a protected path" if protected else ""),
        )

    def refuse(self, note: str = "") -> EditReply:
        return EditReply(self.tool_call_id, "reject", note)


@dataclass(frozen=True, slots=True)
class EditReply:
    tool_call_id: str
    choice: EditChoice
    note: str = ""

    @property
    def declined(self) -> bool:
        return self.choice == "reject"

    def payload(self) -> dict[str, Any]:
        return {"tool_call_id": self.tool_call_id, "decision": self.choice, "note": self.note}

    @classmethod
    def parse(cls, payload: Mapping[str, Any]) -> EditReply:
        """What the gate reads; a reply that is none of the choices is an error (the tool fails)."""
        choice = payload.get("decision")
        if choice == "apply" or choice == "apply_all" or choice == "reject":
            return cls(text(payload, "tool_call_id"), choice, note_of(payload))
        raise ValueError(f"Invalid edit approval response: decision must be one of {', '.join(EDIT_CHOICES)}")
