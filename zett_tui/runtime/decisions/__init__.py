"""Typed questions and answers for every gate that asks the user.

One module per gate holds its request (what the gate asks, read from the CUSTOM event's payload)
and its reply (what a front end answers; ``payload()`` goes back over the runtime, ``declined``
says the user said no). ``parse_request`` turns a ``DecisionRequested`` into its request type;
``Asker`` is the one protocol each front end implements: the chat's dialogs, ``zett -p``'s flags,
``zett acp``'s permission requests.

A new gate adds its module here, its request to ``Request`` and ``REQUEST_TYPES``, and its reply
to ``Reply``; each front end then gets a type error until it answers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from zett_tui.runtime.decisions.ask_user import DECLINED_TEXT, AskUserReply, AskUserRequest
from zett_tui.runtime.decisions.base import RawReply
from zett_tui.runtime.decisions.edit import EditReply, EditRequest
from zett_tui.runtime.decisions.hook import HookReply, HookRequest
from zett_tui.runtime.decisions.mcp import McpReply, McpRequest
from zett_tui.runtime.decisions.plan import EnterPlanRequest, ExitPlanRequest, PlanReply
from zett_tui.runtime.decisions.read import ReadReply, ReadRequest
from zett_tui.runtime.decisions.sandbox import SandboxEscapeReply, SandboxEscapeRequest
from zett_tui.runtime.decisions.shell import ShellReply, ShellRequest
from zett_tui.runtime.decisions.web import WebReply, WebRequest

if TYPE_CHECKING:
    from zett_tui.runtime.events import DecisionRequested

__all__ = [
    "DECLINED_TEXT",
    "REQUEST_TYPES",
    "AskUserReply",
    "AskUserRequest",
    "Asker",
    "EditReply",
    "EditRequest",
    "EnterPlanRequest",
    "ExitPlanRequest",
    "HookReply",
    "HookRequest",
    "McpReply",
    "McpRequest",
    "PlanReply",
    "RawReply",
    "ReadReply",
    "ReadRequest",
    "Reply",
    "Request",
    "SandboxEscapeReply",
    "SandboxEscapeRequest",
    "ShellReply",
    "ShellRequest",
    "UnknownRequest",
    "WebReply",
    "WebRequest",
    "parse_request",
]


@dataclass(frozen=True, slots=True)
class UnknownRequest:
    """A question no front end knows how to put (an extension's own kind): always refused."""

    kind_name: str
    session_id: str
    tool_call_id: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = ""

    def refuse(self, note: str = "") -> RawReply:
        return RawReply(self.tool_call_id, {"decision": "abort"}, declined=True)


Request = (
    ShellRequest
    | SandboxEscapeRequest
    | EditRequest
    | ReadRequest
    | McpRequest
    | HookRequest
    | EnterPlanRequest
    | ExitPlanRequest
    | AskUserRequest
    | WebRequest
    | UnknownRequest
)
Reply = (
    ShellReply
    | SandboxEscapeReply
    | EditReply
    | ReadReply
    | McpReply
    | HookReply
    | PlanReply
    | AskUserReply
    | WebReply
    | RawReply
)

REQUEST_TYPES: dict[
    str,
    type[ShellRequest]
    | type[SandboxEscapeRequest]
    | type[EditRequest]
    | type[ReadRequest]
    | type[McpRequest]
    | type[HookRequest]
    | type[EnterPlanRequest]
    | type[ExitPlanRequest]
    | type[AskUserRequest]
    | type[WebRequest],
] = {
    cls.kind: cls
    for cls in (
        ShellRequest,
        SandboxEscapeRequest,
        EditRequest,
        ReadRequest,
        McpRequest,
        HookRequest,
        EnterPlanRequest,
        ExitPlanRequest,
        AskUserRequest,
        WebRequest,
    )
}


def parse_request(decision: DecisionRequested) -> Request:
    """The typed question behind a runtime ``DecisionRequested``."""
    request_type = REQUEST_TYPES.get(decision.kind)
    if request_type is None:
        call_id = decision.payload.get("tool_call_id")
        return UnknownRequest(decision.kind, decision.session_id, str(call_id or ""), dict(decision.payload))
    return request_type.from_payload(decision.session_id, decision.payload)


class Asker(Protocol):
    """A front end that answers the runtime's questions (one at a time, in the order asked)."""

    async def ask(self, request: Request) -> Reply: ...
