"""Every question zett asks, as an ACP ``session/request_permission``, and the answer back.

One table (``GATES``) says, per gate, what its question shows (title, kind, text, file, input)
and which choices it offers; ``question_for`` builds the request from it. The options keep their
meaning: "allow once" is ``allow_once``; what lasts (the session, this project) is
``allow_always``; no is ``reject_once``. A client that cancels the request (or goes away)
refuses: nothing runs unasked that would ask in the terminal.

"No, and tell zett why" (the terminal's note on a refusal) needs words from the user, which a
permission request cannot carry; it is offered only to a client that takes form elicitations
(``notes=True``), and the server asks for the note with one (``acp.elicitation``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
from zett_tui.runtime.shell.policy import Rule

__all__ = [
    "GATES",
    "NOTE_SUFFIX",
    "OWN_WORDS",
    "PLAN_FEEDBACK_STEER",
    "Choice",
    "Offers",
    "Question",
    "question_for",
]

#: The option id of "no, and tell zett why": the refusing choice's id with this after it.
NOTE_SUFFIX = "+note"
#: ``ask_user``'s "I'll answer in my own words" (a client without form elicitation).
OWN_WORDS = "own_words"
OWN_WORDS_TEXT = (
    "The user wants to answer this question in their own words, in their next message. End your "
    "turn now: say briefly what you need to know, and wait for that message."
)
PLAN_FEEDBACK_STEER = "Keep planning. My feedback on the plan:\n"


@dataclass(frozen=True)
class Choice:
    """One option: its id, label and kind, and the reply it means (given the user's note)."""

    option_id: str
    name: str
    kind: str
    reply: Callable[[str], Reply]
    #: The permission mode once the answered call has finished (an approved plan).
    mode_after: PermissionMode | None = None
    #: A refusal that can carry the user's note ("no, and tell zett why").
    takes_note: bool = False
    #: What the note becomes when the reply cannot carry it: a message to the running turn.
    steer: Callable[[str], str] | None = None
    #: Done once the runtime has the reply (a shell rule saved for the project).
    then: Callable[[], None] | None = None


@dataclass(frozen=True)
class Offers:
    """What a question may offer beyond its gate's payload (the host knows it): the project
    folder, the shell rules that could allow this command from now on (``ShellPolicy.suggestions``:
    none for a dangerous command or without a sandbox) and where to save one, and whether the
    sandbox can run a command once with the network on."""

    cwd: Path
    shell_rules: Sequence[Rule] = ()
    save_rule: Callable[[Rule], None] | None = None
    network_once: bool = False


@dataclass(frozen=True)
class Shown:
    """What one gate's question shows in the editor."""

    title: str
    kind: str
    text: str = ""
    path: str = ""
    raw_input: Any = None
    choices: list[Choice] = field(default_factory=list)


@dataclass(frozen=True)
class Question:
    """The permission request for one ``Request``, and what each picked option id means."""

    tool_call: ToolCallUpdate
    options: list[PermissionOption]
    choices: dict[str, Choice]
    #: The reply when the client cancels the request or picks an unknown option.
    refused: Callable[[], Reply]

    def reply(self, option_id: str | None, note: str = "") -> Reply:
        choice = self.choices.get(option_id or "")
        return choice.reply(note) if choice is not None else self.refused()


def _refusal(request: Request, option_id: str, name: str, *, note_prefix: str = "") -> Choice:
    def refuse(note: str) -> Reply:
        return request.refuse(f"{note_prefix}{note}" if note else "")

    return Choice(option_id, name, "reject_once", refuse, takes_note=True)


def _shell(request: ShellRequest, offers: Offers) -> Shown:
    call_id, command = request.tool_call_id, request.command
    choices = [Choice("run", "Run it once", "allow_once", lambda note: ShellReply(call_id, run=True))]
    if offers.network_once:
        choices.append(
            Choice(
                "run_with_network",
                "Run it once with the network on",
                "allow_once",
                lambda note: ShellReply(call_id, run=True, network=True),
            )
        )
    save = offers.save_rule
    for index, rule in enumerate(offers.shell_rules if save is not None else ()):
        choices.append(
            Choice(
                f"rule-{index}",
                f"Run it, and from now on without asking, for every agent in this project: {_rule_words(rule)}",
                "allow_always",
                lambda note: ShellReply(call_id, run=True),
                then=_saving(save, rule),
            )
        )
    choices.append(
        Choice(
            "refuse",
            "Don't run it",
            "reject_once",
            lambda note: ShellReply(call_id, run=False, note=note),
            takes_note=True,
            steer=lambda note: f"I did not let you run `{command}`. {note}",
        )
    )
    return Shown(f"Run `{command}`", "execute", text=command, choices=choices)


def _rule_words(rule: Rule) -> str:
    if rule.kind == "prefix":
        return f"commands that start with `{rule.command}`"
    return f"exactly `{rule.command}`"


def _saving(save: Callable[[Rule], None] | None, rule: Rule) -> Callable[[], None] | None:
    return (lambda: save(rule)) if save is not None else None


def _edit(request: EditRequest, offers: Offers) -> Shown:
    call_id = request.tool_call_id
    return Shown(
        f"{request.operation} {request.path} (+{request.added} −{request.removed})",
        "edit",
        text=request.diff,
        path=request.absolute_path or str(offers.cwd / request.path),
        choices=[
            Choice("apply", "Apply", "allow_once", lambda note: EditReply(call_id, "apply")),
            Choice(
                "apply_all",
                "Apply this and every later edit in this session",
                "allow_always",
                lambda note: EditReply(call_id, "apply_all"),
            ),
            _refusal(request, "reject", "Don't apply"),
        ],
    )


def _read(request: ReadRequest, offers: Offers) -> Shown:
    call_id = request.tool_call_id
    why = f" ({request.reason})" if request.reason else ""
    return Shown(
        f"{request.tool}: read {request.path}, outside the project{why}",
        "read",
        path=request.path,
        choices=[
            Choice("once", "Allow once", "allow_once", lambda note: ReadReply(call_id, "once")),
            Choice(
                "session",
                f"Allow for this session ({request.session_scope or 'this path'})",
                "allow_always",
                lambda note: ReadReply(call_id, "session"),
            ),
            _refusal(request, "deny", "Don't allow", note_prefix="The user's note: "),
        ],
    )


def _sandbox_escape(request: SandboxEscapeRequest, offers: Offers) -> Shown:
    call_id = request.tool_call_id
    choices = [
        Choice(
            "outside",
            "Run it again outside the sandbox, once",
            "allow_once",
            lambda note: SandboxEscapeReply(call_id, "outside"),
        )
    ]
    if request.network_offered:
        choices.append(
            Choice(
                "network",
                "Run it again with the network on, once",
                "allow_once",
                lambda note: SandboxEscapeReply(call_id, "network"),
            )
        )
    choices.append(_refusal(request, "stay", "Keep it in the sandbox"))
    return Shown(
        f"The sandbox probably stopped `{request.command}`", "execute", text=request.reason, choices=choices
    )


def _mcp(request: McpRequest, offers: Offers) -> Shown:
    call_id = request.tool_call_id
    return Shown(
        f"MCP tool {request.server} › {request.tool}",
        "other",
        raw_input=request.arguments,
        choices=[
            Choice("once", "Allow once", "allow_once", lambda note: McpReply(call_id, "once")),
            Choice(
                "always",
                "Always allow in this project",
                "allow_always",
                lambda note: McpReply(call_id, "always"),
            ),
            _refusal(request, "refuse", "Don't allow", note_prefix="The user's note: "),
        ],
    )


def _hook(request: HookRequest, offers: Offers) -> Shown:
    call_id = request.tool_call_id
    return Shown(
        f"A hook asks before {request.tool}",
        "other",
        text=request.reason,
        raw_input=request.arguments,
        choices=[
            Choice("once", "Let it run", "allow_once", lambda note: HookReply(call_id, "once")),
            _refusal(request, "refuse", "Don't let it run"),
        ],
    )


def _enter_plan(request: EnterPlanRequest, offers: Offers) -> Shown:
    approve = PlanReply(request.session_id, request.tool_call_id, approved=True)
    return Shown(
        "Enter Plan Mode?",
        "switch_mode",
        text=request.reason,
        choices=[
            Choice("enter", "Enter Plan Mode", "allow_once", lambda note: approve),
            Choice("continue", "Continue without Plan Mode", "reject_once", lambda note: request.refuse()),
        ],
    )


def _exit_plan(request: ExitPlanRequest, offers: Offers) -> Shown:
    approve = PlanReply(request.session_id, request.tool_call_id, approved=True)
    return Shown(
        "Approve this plan?",
        "switch_mode",
        text=request.plan,
        choices=[
            Choice(
                "approve_ask",
                "Approve; ask before each edit",
                "allow_once",
                lambda note: approve,
                mode_after=PermissionMode.ASK,
            ),
            Choice(
                "approve_edits",
                "Approve; apply edits without asking",
                "allow_always",
                lambda note: approve,
                mode_after=PermissionMode.ACCEPT_EDITS,
            ),
            Choice(
                "keep_planning",
                "Keep planning",
                "reject_once",
                lambda note: request.refuse(note),
                takes_note=True,
                steer=lambda note: PLAN_FEEDBACK_STEER + note,
            ),
        ],
    )


def _ask_user(request: AskUserRequest, offers: Offers) -> Shown:
    """The model's options as options; free text cannot be typed into a permission request, so
    "in my own words" declines this question and tells the model the answer comes as the user's
    next message (a client with form elicitation gets a form instead: ``acp.elicitation``)."""
    call_id = request.tool_call_id
    choices = [
        Choice(f"option-{index}", option, "allow_once", _chose(call_id, option))
        for index, option in enumerate(request.options)
    ]
    choices.append(
        Choice(
            OWN_WORDS,
            "Answer in my own words (in my next message)",
            "reject_once",
            lambda note: request.refuse(OWN_WORDS_TEXT),
        )
    )
    choices.append(Choice("decline", "Decline to answer", "reject_once", lambda note: request.refuse()))
    return Shown(request.question, "think", choices=choices)


def _chose(call_id: str, option: str) -> Callable[[str], Reply]:
    return lambda note: AskUserReply(call_id, f"chose: {option}")


def _web(request: WebRequest, offers: Offers) -> Shown:
    call_id = request.tool_call_id
    said = [f"Full address: {request.url}"]
    if request.query_secret:
        said.append("The address looks like it carries a secret in its query string.")
    elif request.long_query:
        said.append(f"Its query string is {request.query_chars} characters long: it can carry data out.")
    return Shown(
        f"Fetch from {request.domain}?",
        "fetch",
        text=" ".join(said),
        raw_input={"url": request.url},
        choices=[
            Choice("once", "Fetch it once", "allow_once", lambda note: WebReply(call_id, "once")),
            Choice(
                "always",
                f"Always allow {request.domain} in this project",
                "allow_always",
                lambda note: WebReply(call_id, "always"),
            ),
            _refusal(request, "deny", "Don't fetch"),
        ],
    )


GATES: dict[type[Any], Callable[[Any, Offers], Shown]] = {
    ShellRequest: _shell,
    EditRequest: _edit,
    ReadRequest: _read,
    SandboxEscapeRequest: _sandbox_escape,
    McpRequest: _mcp,
    HookRequest: _hook,
    EnterPlanRequest: _enter_plan,
    ExitPlanRequest: _exit_plan,
    AskUserRequest: _ask_user,
    WebRequest: _web,
}


def _unknown(request: Request, offers: Offers) -> Shown:
    return Shown(
        f"zett cannot ask '{getattr(request, 'kind_name', request.kind)}' here",
        "other",
        choices=[Choice("refuse", "Refuse", "reject_once", lambda note: request.refuse())],
    )


def question_for(
    request: Request,
    where: Path | Offers,
    *,
    notes: bool = False,
    asker: str = "",
    call_id: str = "",
) -> Question:
    """The ACP question for ``request``. ``notes``: the client takes form elicitations, so each
    refusal that can carry a note is offered a second time as "..., and tell zett why".
    ``asker``: a subagent's ``type: description``, named in the title. ``call_id``: the tool call
    id the editor knows the call by (a subagent's calls are prefixed), when not the request's.
    ``where``: the project folder, or what the host offers beyond the gate's payload (``Offers``)."""
    offers = where if isinstance(where, Offers) else Offers(where)
    shown = GATES.get(type(request), _unknown)(request, offers)
    choices = list(shown.choices)
    if asker:  # the user's next message goes to the main agent, not to a subagent
        choices = [choice for choice in choices if choice.option_id != OWN_WORDS]
    if notes:
        for index, choice in reversed(list(enumerate(choices))):
            if choice.takes_note:
                choices.insert(
                    index + 1,
                    Choice(
                        choice.option_id + NOTE_SUFFIX,
                        f"{choice.name}, and tell zett why…",
                        choice.kind,
                        choice.reply,
                        steer=choice.steer,
                        then=choice.then,
                    ),
                )
    title = f"[{asker}] {shown.title}" if asker else shown.title
    tool_call = ToolCallUpdate(
        tool_call_id=call_id or request.tool_call_id,
        title=title,
        kind=shown.kind,  # type: ignore[arg-type]
        content=[_text(shown.text)] if shown.text else None,
        locations=[ToolCallLocation(path=shown.path)] if shown.path else None,
        raw_input=shown.raw_input,
    )
    options = [
        PermissionOption(option_id=choice.option_id, name=choice.name, kind=choice.kind)  # type: ignore[arg-type]
        for choice in choices
    ]
    return Question(tool_call, options, {choice.option_id: choice for choice in choices}, request.refuse)


def _text(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))
