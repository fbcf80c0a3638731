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
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

__all__ = ["NOTE_LIMIT", "ChoiceReply", "RawReply", "flag", "note_of", "text", "whole_number"]

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


Choice = TypeVar("Choice", bound=str)


@dataclass(frozen=True, slots=True)
class ChoiceReply(Generic[Choice]):
    """An answer that is one of a gate's words: a yes of some reach (``once``, ``session``,
    ``always``) or its word for no, which carries the user's note to the model.

    The web, read, MCP and hook gates answer this way; each subclass names its words (``Choice``
    is its ``Literal``), so a reply of one gate cannot be built with another's word."""

    tool_call_id: str
    choice: Choice
    #: Sent to the model with a refusal (ignored with a yes).
    note: str = ""
    #: The gate's word for no.
    REFUSAL: ClassVar[str] = "refuse"
    #: The gate's words for yes.
    YES: ClassVar[frozenset[str]] = frozenset({"once"})

    @property
    def declined(self) -> bool:
        return self.choice == self.REFUSAL

    def payload(self) -> dict[str, Any]:
        reply: dict[str, Any] = {"tool_call_id": self.tool_call_id, "decision": self.choice}
        if self.declined:
            reply["note"] = self.note
        return reply

    @classmethod
    def parse(cls, payload: Mapping[str, Any]) -> Self:
        """What the gate reads back: anything but a clear yes is a no."""
        choice = payload.get("decision")
        call_id = text(payload, "tool_call_id")
        if isinstance(choice, str) and choice in cls.YES:
            return cls(call_id, cast("Choice", choice))
        return cls(call_id, cast("Choice", cls.REFUSAL), note_of(payload))


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
