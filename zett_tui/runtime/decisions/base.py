"""What every typed question and answer shares, and the small helpers that read a payload.

A gate asks with a CUSTOM event whose payload is a dict (the runtime's wire); each front end
(the chat's dialogs, ``zett -p``'s policy, ``zett acp``) turns that into the gate's *request*
type, decides, and answers with the gate's *reply* type. ``reply.payload()`` is what goes back
over the runtime; ``reply.declined`` says whether the user said no (a "declined" row, not
"failed"). The gates zett owns read their reply back with the reply type's ``parse``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NOTE_LIMIT", "RawReply", "flag", "note_of", "text", "whole_number"]

#: A note longer than this is cut: it goes to the model as part of a tool result.
NOTE_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class RawReply:
    """A payload for a question zett has no type for (an extension's own kind): sent as it is."""

    tool_call_id: str
    data: Mapping[str, Any]
    declined: bool = False

    def payload(self) -> dict[str, Any]:
        return {"tool_call_id": self.tool_call_id, **self.data}


def text(payload: Mapping[str, Any], key: str, default: str = "") -> str:
    value = payload.get(key)
    return default if value is None else str(value)


def flag(payload: Mapping[str, Any], key: str) -> bool:
    return payload.get(key) is True


def whole_number(payload: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = payload.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def note_of(payload: Mapping[str, Any], limit: int = NOTE_LIMIT) -> str:
    """The reply's note on one line, cut at ``limit``; empty when there is none."""
    note = payload.get("note")
    return " ".join(note.split())[:limit] if isinstance(note, str) else ""
