"""The web gate's question (let ``web_fetch`` contact this domain?) and its answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from zett_tui.runtime.decisions.base import ChoiceReply, flag, text, whole_number

WebChoice = Literal["once", "session", "always", "deny"]


@dataclass(frozen=True, slots=True)
class WebRequest:
    kind: ClassVar[str] = "web_fetch_requested"
    session_id: str
    tool_call_id: str
    #: The full URL, already made printable by the gate (non-ASCII and controls escaped).
    url: str
    #: The host in ASCII (IDNA).
    domain: str
    query_chars: int = 0
    long_query: bool = False
    query_secret: bool = False
    non_ascii_domain: bool = False

    @classmethod
    def from_payload(cls, session_id: str, payload: Mapping[str, Any]) -> WebRequest:
        return cls(
            session_id,
            text(payload, "tool_call_id"),
            text(payload, "url"),
            text(payload, "domain"),
            whole_number(payload, "query_chars"),
            flag(payload, "long_query"),
            flag(payload, "query_secret"),
            flag(payload, "non_ascii_domain"),
        )

    def refuse(self, note: str = "") -> WebReply:
        return WebReply(self.tool_call_id, "deny", note)


@dataclass(frozen=True, slots=True)
class WebReply(ChoiceReply[WebChoice]):
    REFUSAL: ClassVar[str] = "deny"
    YES: ClassVar[frozenset[str]] = frozenset({"once", "session", "always"})
