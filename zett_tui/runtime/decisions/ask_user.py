"""The model's question for the user (``ask_user``) and the user's answer.

The gate is zett-agent's ``AskUserExtension``: with ``parts`` the model reads the text parts as
the tool result; without, it reads the whole payload as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from zett_tui.runtime.decisions.base import flag, text

DECLINED_TEXT = (
    "The user declined to answer this question. Carry on without the answer if you can, "
    "or say what you need and why."
)
#: Why there is no answer when the user will answer in their own words, in their next message
#: (``zett acp``'s option for a client without forms).
OWN_WORDS_TEXT = (
    "The user wants to answer this question in their own words, in their next message. End your "
    "turn now: say briefly what you need to know, and wait for that message."
)


@dataclass(frozen=True, slots=True)
class AskUserRequest:
    kind: ClassVar[str] = "ask_user"
    session_id: str
    tool_call_id: str
    question: str
    options: tuple[str, ...] = field(default=())
    allow_multiple: bool = False

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> AskUserRequest:
        options = payload.get("options")
        return cls(
            session_id,
            text(payload, "tool_call_id"),
            text(payload, "question"),
            tuple(str(option) for option in options) if isinstance(options, list) else (),
            flag(payload, "allow_multiple"),
        )

    def refuse(self, note: str = "") -> AskUserReply:
        return AskUserReply(self.tool_call_id, None, note or DECLINED_TEXT)


@dataclass(frozen=True, slots=True)
class AskUserReply:
    tool_call_id: str
    #: What the user answered, in words ("chose: A and added: ..."); None: they declined.
    said: str | None
    #: Why there is no answer, for the model (when ``said`` is None).
    why_not: str = DECLINED_TEXT
    #: Nobody could be asked (``zett -p``): the model reads the structured refusal.
    unattended: bool = False

    @property
    def declined(self) -> bool:
        return self.said is None

    def payload(self) -> dict[str, Any]:
        if self.said is not None:
            return {
                "tool_call_id": self.tool_call_id,
                "parts": [{"type": "text", "text": f"The user {self.said}"}],
            }
        if self.unattended:
            return {
                "tool_call_id": self.tool_call_id,
                "answer": None,
                "declined": True,
                "reason": "non-interactive",
                "message": self.why_not,
            }
        return {
            "tool_call_id": self.tool_call_id,
            "declined": True,
            "parts": [{"type": "text", "text": self.why_not}],
        }
