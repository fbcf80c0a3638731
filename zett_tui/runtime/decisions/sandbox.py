"""The sandbox gate's question (the sandbox probably stopped this command: run it again outside?)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from zett_tui.runtime.decisions.base import flag, note_of, text, whole_number

EscapeChoice = Literal["stay", "outside", "network"]
#: The note goes into the failed command's result.
ESCAPE_NOTE_LIMIT = 300
ESCAPE_CHOICES: tuple[EscapeChoice, ...] = ("stay", "outside", "network")


@dataclass(frozen=True, slots=True)
class SandboxEscapeRequest:
    kind: ClassVar[str] = "sandbox_escape_requested"
    session_id: str
    tool_call_id: str
    command: str
    reason: str = ""
    #: What stopped it: ``network``, ``write``...
    blocked: str = ""
    exit_code: int = 0
    network_offered: bool = False

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> SandboxEscapeRequest:
        return cls(
            session_id,
            text(payload, "tool_call_id"),
            text(payload, "command").strip(),
            text(payload, "reason"),
            text(payload, "blocked"),
            whole_number(payload, "exit_code"),
            flag(payload, "network_offered"),
        )

    def refuse(self, note: str = "") -> SandboxEscapeReply:
        return SandboxEscapeReply(self.tool_call_id, "stay", note)


@dataclass(frozen=True, slots=True)
class SandboxEscapeReply:
    tool_call_id: str
    choice: EscapeChoice
    note: str = ""

    @property
    def declined(self) -> bool:
        return self.choice == "stay"

    def payload(self) -> dict[str, Any]:
        return {"tool_call_id": self.tool_call_id, "decision": self.choice, "note": self.note}

    @classmethod
    def parse(cls, payload: Mapping[str, Any], *, network_offered: bool) -> SandboxEscapeReply:
        """What the gate reads: anything but a clear, offered choice keeps the command inside."""
        choice = payload.get("decision")
        note = note_of(payload, ESCAPE_NOTE_LIMIT)
        call_id = text(payload, "tool_call_id")
        if choice == "outside" or (choice == "network" and network_offered):
            return cls(call_id, choice, note)
        return cls(call_id, "stay", note)
