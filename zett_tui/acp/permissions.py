"""Every question zett asks, as an ACP ``session/request_permission``, and the answer back.

The options keep their meaning: "allow once" is ``allow_once``; what lasts (the session, this
project) is ``allow_always``; no is ``reject_once``. A client that cancels the request (or goes
away) refuses: nothing runs unasked that would ask in the terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp.schema import (
    ContentToolCallContent,
    PermissionOption,
    TextContentBlock,
    ToolCallLocation,
    ToolCallUpdate,
)

from zett_tui.runtime.decisions import (
    AskUserReply,
    AskUserRequest,
    EditReply,
    EditRequest,
    EnterPlanRequest,
    ExitPlanRequest,
    HookReply,
    HookRequest,
    McpReply,
    McpRequest,
    PlanReply,
    ReadReply,
    ReadRequest,
    Reply,
    Request,
    SandboxEscapeReply,
    SandboxEscapeRequest,
    ShellReply,
    ShellRequest,
    WebReply,
    WebRequest,
)
from zett_tui.runtime.modes import PermissionMode

__all__ = ["Question", "question_for"]


@dataclass(frozen=True)
class Question:
    """The permission request for one ``Request``, and how each picked option id becomes its reply."""

    tool_call: ToolCallUpdate
    options: list[PermissionOption]
    replies: dict[str, Callable[[], Reply]]
    #: The reply when the client cancels the request or picks an unknown option.
    refused: Callable[[], Reply]
    #: The permission mode to switch to once the answered call has finished (an approved plan).
    mode_after: dict[str, PermissionMode]


def _text(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def _option(option_id: str, name: str, kind: str) -> PermissionOption:
    return PermissionOption(option_id=option_id, name=name, kind=kind)  # type: ignore[arg-type]


def question_for(request: Request, cwd: Path) -> Question:
    """The ACP question for ``request`` (its tool call id is the one the tool call row has)."""
    call_id = request.tool_call_id
    if isinstance(request, ShellRequest):
        return _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title=f"Run `{request.command}`",
                kind="execute",
                content=[_text(request.command)],
            ),
            [
                ("run", "Run it once", "allow_once", lambda: ShellReply(call_id, run=True)),
                ("refuse", "Don't run it", "reject_once", lambda: request.refuse()),
            ],
            request.refuse,
        )
    if isinstance(request, EditRequest):
        what = f"{request.operation} {request.path} (+{request.added} −{request.removed})"
        location = [ToolCallLocation(path=request.absolute_path or str(cwd / request.path))]
        return _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title=what,
                kind="edit",
                locations=location,
                content=[_text(request.diff)] if request.diff else None,
            ),
            [
                ("apply", "Apply", "allow_once", lambda: EditReply(call_id, "apply")),
                (
                    "apply_all",
                    "Apply this and every later edit in this session",
                    "allow_always",
                    lambda: EditReply(call_id, "apply_all"),
                ),
                ("reject", "Don't apply", "reject_once", lambda: request.refuse()),
            ],
            request.refuse,
        )
    if isinstance(request, ReadRequest):
        why = f" ({request.reason})" if request.reason else ""
        return _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title=f"{request.tool}: read {request.path}, outside the project{why}",
                kind="read",
                locations=[ToolCallLocation(path=request.path)],
            ),
            [
                ("once", "Allow once", "allow_once", lambda: ReadReply(call_id, "once")),
                (
                    "session",
                    f"Allow for this session ({request.session_scope or 'this path'})",
                    "allow_always",
                    lambda: ReadReply(call_id, "session"),
                ),
                ("deny", "Don't allow", "reject_once", lambda: request.refuse()),
            ],
            request.refuse,
        )
    if isinstance(request, SandboxEscapeRequest):
        choices: list[tuple[str, str, str, Callable[[], Reply]]] = [
            (
                "outside",
                "Run it again outside the sandbox, once",
                "allow_once",
                lambda: SandboxEscapeReply(call_id, "outside"),
            ),
        ]
        if request.network_offered:
            choices.append(
                (
                    "network",
                    "Run it again with the network on, once",
                    "allow_once",
                    lambda: SandboxEscapeReply(call_id, "network"),
                )
            )
        choices.append(("stay", "Keep it in the sandbox", "reject_once", lambda: request.refuse()))
        return _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title=f"The sandbox probably stopped `{request.command}`",
                kind="execute",
                content=[_text(request.reason)] if request.reason else None,
            ),
            choices,
            request.refuse,
        )
    if isinstance(request, McpRequest):
        return _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title=f"MCP tool {request.server} › {request.tool}",
                kind="other",
                raw_input=request.arguments,
            ),
            [
                ("once", "Allow once", "allow_once", lambda: McpReply(call_id, "once")),
                (
                    "always",
                    "Always allow in this project",
                    "allow_always",
                    lambda: McpReply(call_id, "always"),
                ),
                ("refuse", "Don't allow", "reject_once", lambda: request.refuse()),
            ],
            request.refuse,
        )
    if isinstance(request, HookRequest):
        return _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title=f"A hook asks before {request.tool}",
                kind="other",
                content=[_text(request.reason)] if request.reason else None,
                raw_input=request.arguments,
            ),
            [
                ("once", "Let it run", "allow_once", lambda: HookReply(call_id, "once")),
                ("refuse", "Don't let it run", "reject_once", lambda: request.refuse()),
            ],
            request.refuse,
        )
    if isinstance(request, EnterPlanRequest):
        return _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title="Enter Plan Mode?",
                kind="switch_mode",
                content=[_text(request.reason)] if request.reason else None,
            ),
            [
                (
                    "enter",
                    "Enter Plan Mode",
                    "allow_once",
                    lambda: PlanReply(request.session_id, call_id, approved=True),
                ),
                ("continue", "Continue without Plan Mode", "reject_once", lambda: request.refuse()),
            ],
            request.refuse,
        )
    if isinstance(request, ExitPlanRequest):
        question = _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title="Approve this plan?",
                kind="switch_mode",
                content=[_text(request.plan)],
            ),
            [
                (
                    "approve_ask",
                    "Approve; ask before each edit",
                    "allow_once",
                    lambda: PlanReply(request.session_id, call_id, approved=True),
                ),
                (
                    "approve_edits",
                    "Approve; apply edits without asking",
                    "allow_always",
                    lambda: PlanReply(request.session_id, call_id, approved=True),
                ),
                ("keep_planning", "Keep planning", "reject_once", lambda: request.refuse()),
            ],
            request.refuse,
        )
        question.mode_after.update(approve_ask=PermissionMode.ASK, approve_edits=PermissionMode.ACCEPT_EDITS)
        return question
    if isinstance(request, AskUserRequest):
        answers: list[tuple[str, str, str, Callable[[], Reply]]] = [
            (f"option-{index}", option, "allow_once", _said(call_id, option))
            for index, option in enumerate(request.options)
        ]
        answers.append(("decline", "Decline to answer", "reject_once", lambda: request.refuse()))
        return _question(
            ToolCallUpdate(tool_call_id=call_id, title=request.question, kind="think"),
            answers,
            request.refuse,
        )
    if isinstance(request, WebRequest):
        said = [f"Full address: {request.url}"]
        if request.query_secret:
            said.append("The address looks like it carries a secret in its query string.")
        elif request.long_query:
            said.append(f"Its query string is {request.query_chars} characters long: it can carry data out.")
        return _question(
            ToolCallUpdate(
                tool_call_id=call_id,
                title=f"Fetch from {request.domain}?",
                kind="fetch",
                content=[_text(" ".join(said))],
                raw_input={"url": request.url},
            ),
            [
                ("once", "Fetch it once", "allow_once", lambda: WebReply(call_id, "once")),
                (
                    "always",
                    f"Always allow {request.domain} in this project",
                    "allow_always",
                    lambda: WebReply(call_id, "always"),
                ),
                ("deny", "Don't fetch", "reject_once", lambda: request.refuse()),
            ],
            request.refuse,
        )
    return _question(
        ToolCallUpdate(tool_call_id=call_id, title=f"zett cannot ask '{request.kind_name}' here"),
        [("refuse", "Refuse", "reject_once", lambda: request.refuse())],
        request.refuse,
    )


def _said(call_id: str, option: str) -> Callable[[], Reply]:
    return lambda: AskUserReply(call_id, f"chose: {option}")


def _question(
    tool_call: ToolCallUpdate,
    choices: Sequence[tuple[str, str, str, Callable[[], Reply]]],
    refused: Callable[[], Reply],
) -> Question:
    return Question(
        tool_call,
        [_option(option_id, name, kind) for option_id, name, kind, _ in choices],
        {option_id: reply for option_id, _, _, reply in choices},
        refused,
        {},
    )
