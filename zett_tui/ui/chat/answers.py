"""For each kind of runtime question: the dialog to show, and what the user's pick means.

Each factory returns the dialog and a function that turns its result (a ``Picked``, or None when
it was closed without an answer) into an ``Answer``: the reply payload the runtime expects, the
line the transcript keeps, and what has to happen next (a steering note for the model, a rule to
save, a mode to switch to once an approved plan has been accepted).

Each factory takes the gate's typed request and builds the gate's typed reply
(``zett_tui.runtime.decisions``: the reply formats and what "declined" means live there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from zett_tui.core import paths
from zett_tui.runtime.decisions import (
    DECLINED_TEXT,
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
    SandboxEscapeReply,
    SandboxEscapeRequest,
    ShellReply,
    ShellRequest,
    WebReply,
    WebRequest,
)
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.shell.policy import Rule
from zett_tui.runtime.shell.rule_offers import ONCE_ONLY, rules_to_offer
from zett_tui.ui.modals.ask_user import DECLINED, AskUserDialog
from zett_tui.ui.modals.choice_dialog import Picked
from zett_tui.ui.modals.edit_approval import APPLY, APPLY_ALL, REJECT, edit_approval_dialog
from zett_tui.ui.modals.hook_approval import hook_approval_dialog
from zett_tui.ui.modals.mcp_approval import mcp_approval_dialog
from zett_tui.ui.modals.plan_dialogs import (
    APPROVE_ASK,
    APPROVE_FREE,
    ENTER,
    PlanReviewDialog,
    enter_plan_dialog,
)
from zett_tui.ui.modals.read_access import ONCE, SESSION, read_access_dialog
from zett_tui.ui.modals.sandbox_escape import NETWORK, OUTSIDE, STAY, sandbox_escape_dialog
from zett_tui.ui.modals.shell_approval import RUN, RUN_WITH_NETWORK, shell_approval_dialog
from zett_tui.ui.modals.web_fetch import web_fetch_dialog

if TYPE_CHECKING:
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.session import SessionCore

#: Run with the session core once the runtime took the answer (or the approved call finished).
FollowUp = Callable[["SessionCore"], None]


@dataclass(frozen=True)
class Answer:
    """What goes back to the runtime, the one line the transcript keeps, and what follows."""

    reply: Reply
    record: str
    level: str = "decision"
    #: Sent to the running turn as a steering message right after the answer (the user's note).
    steer: str | None = None
    #: Run once the runtime has taken the answer (save a rule).
    accepted: FollowUp | None = None
    #: Run when the answered tool call has finished successfully (switch mode after a plan).
    after_tool: FollowUp | None = None
    #: What the tool row shows after its argument once answered (``ask_user``: the answer); the
    #: row then says it, and ``record`` is kept in the session without a line of its own.
    outcome: str = ""

    @property
    def declined(self) -> bool:
        """The user said no to the call (its row says "declined", not "failed")."""
        return self.reply.declined

    @property
    def payload(self) -> dict[str, Any]:
        return self.reply.payload()


ToAnswer = Callable[[Picked | None], Answer]
DialogFactory = Callable[[Any, "AgentHost | None", Path], tuple[Screen[Any], ToAnswer]]
"""(the gate's typed request, the host, the project folder) -> the dialog and its meaning."""

__all__ = ["DECLINED_TEXT", "FACTORIES", "Answer", "DialogFactory", "ToAnswer"]


def _value(picked: Picked | None, default: Any) -> Any:
    return picked.value if isinstance(picked, Picked) else default


def _note(picked: Picked | None) -> str:
    return picked.note.strip() if isinstance(picked, Picked) else ""


def _with_note(record: str, note: str) -> str:
    return f"{record} — your note: {note}" if note else record


# -- shell commands -------------------------------------------------------------------------------


#: Where a read-only subagent's approved command runs (``runtime.shell.bash_tool``).
READ_ONLY_WHERE = "in the sandbox, read-only and without network: this subagent only reads"


def _where_it_runs(host: AgentHost | None, session_id: str, reads_only: bool) -> str:
    sandbox = host.shell_sandbox if host is not None else None
    if host is None or sandbox is None:
        return ""
    if reads_only:
        return READ_ONLY_WHERE
    return sandbox.where_it_runs(read_only=host.plan_active(session_id))


def shell_approval(request: ShellRequest, host: AgentHost | None, cwd: Path) -> tuple[Screen[Any], ToAnswer]:
    command, call_id = request.command, request.tool_call_id
    policy = host.shell_policy if host is not None else None
    sandbox = host.shell_sandbox if host is not None else None
    reason, dangerous = "", False
    # A read-only subagent's command (explore): read-only and offline, whatever is answered, and
    # allowed only this once (a saved rule would hold for the main agent too: ``rule_offers``).
    reads_only = host is not None and host.subagents.reads_only(request.session_id)
    if policy is not None:
        verdict = policy.verdict(request.session_id, command)
        reason, dangerous = verdict.reason, verdict.dangerous
    screen = shell_approval_dialog(
        command,
        cwd,
        request.timeout_seconds,
        reason=reason,
        dangerous=dangerous,
        suggestions=rules_to_offer(host, request.session_id, command) if host is not None else [],
        offer_network=bool(sandbox is not None and sandbox.offers_network_once and not reads_only),
        where=_where_it_runs(host, request.session_id, reads_only),
        once_only=ONCE_ONLY if reads_only else "",
    )

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value == RUN_WITH_NETWORK:
            return Answer(
                ShellReply(call_id, run=True, network=True),
                f"✓ You allowed, once with the network on: {command}",
            )
        if value == RUN or (isinstance(value, Rule) and reads_only):
            return Answer(ShellReply(call_id, run=True), f"✓ You allowed: {command}")
        if isinstance(value, Rule):
            rule = Rule(value.kind, _note(picked) or value.command)

            def save(session: SessionCore) -> None:
                rules = session.host.shell_rules
                if rules is not None:
                    rules.add(rule.kind, rule.command)

            return Answer(
                ShellReply(call_id, run=True),
                f"✓ You allowed: {command} — from now on without asking: {describe_rule(rule)}",
                accepted=save,
            )
        note = _note(picked)
        return Answer(
            ShellReply(call_id, run=False, note=note),
            f"✗ You refused: {command}",  # the note shows once, where it went into the turn (steer)
            steer=f"I did not let you run `{command}`. {note}" if note else None,
        )

    return screen, answer


def sandbox_escape(
    request: SandboxEscapeRequest, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    """A command the sandbox probably stopped: keep the failure, or run it again once outside it."""
    call_id, command, network = request.tool_call_id, request.command, request.network_offered
    screen = sandbox_escape_dialog(command, cwd, request.reason, offer_network=network)

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, STAY)
        if value == OUTSIDE:
            return Answer(
                SandboxEscapeReply(call_id, "outside"),
                f"✓ You ran it again outside the sandbox, once: {command}",
                level="warning",
            )
        if value == NETWORK and network:
            return Answer(
                SandboxEscapeReply(call_id, "network"),
                f"✓ You ran it again with the network on, once: {command}",
            )
        note = _note(picked)
        return Answer(
            SandboxEscapeReply(call_id, "stay", note),
            _with_note(f"✗ You kept it in the sandbox: {command}", note),
        )

    return screen, answer


def describe_rule(rule: Rule) -> str:
    if rule.kind == "prefix":
        return f"commands that start with `{rule.command}`"
    return f"exactly `{rule.command}`"


# -- file edits -----------------------------------------------------------------------------------


def edit_approval(request: EditRequest, host: AgentHost | None, cwd: Path) -> tuple[Screen[Any], ToAnswer]:
    call_id = request.tool_call_id
    screen = edit_approval_dialog(
        request.path,
        request.operation,
        request.diff,
        added=request.added,
        removed=request.removed,
        outside_project=request.outside_project,
        absolute_path=request.absolute_path,
    )
    what = f"{request.operation} {request.path} (+{request.added} −{request.removed})"

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, REJECT)
        if value == APPLY:
            return Answer(EditReply(call_id, "apply"), f"✓ You applied: {what}")
        if value == APPLY_ALL:
            return Answer(
                EditReply(call_id, "apply_all"),
                f"✓ You applied: {what} — and every later edit in this session, without asking",
            )
        note = _note(picked)
        return Answer(EditReply(call_id, "reject", note), _with_note(f"✗ You did not apply: {what}", note))

    return screen, answer


# -- reads outside the project --------------------------------------------------------------------


def read_access(request: ReadRequest, host: AgentHost | None, cwd: Path) -> tuple[Screen[Any], ToAnswer]:
    call_id, tool, path, scope = request.tool_call_id, request.tool, request.path, request.session_scope
    screen = read_access_dialog(
        tool,
        path,
        requested=request.requested or None,
        is_folder=request.is_folder,
        secret=request.secret or None,
        reason=request.reason,
        session_scope=scope,
    )

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value == ONCE:
            return Answer(ReadReply(call_id, "once"), f"✓ You let {tool} read {path}, once")
        if value == SESSION:
            return Answer(
                ReadReply(call_id, "session"),
                f"✓ You let {tool} read {path} for this session ({scope or 'this path'})",
            )
        note = _note(picked)
        return Answer(
            ReadReply(call_id, "deny", f"The user's note: {note}" if note else ""),
            _with_note(f"✗ You did not let {tool} read {path}", note),
        )

    return screen, answer


MCP_SCOPES = {"once": "once", "session": "for this session", "always": "from now on in this project"}


def mcp_approval(request: McpRequest, host: AgentHost | None, cwd: Path) -> tuple[Screen[Any], ToAnswer]:
    call_id, server, tool = request.tool_call_id, request.server, request.tool
    screen = mcp_approval_dialog(server, tool, request.arguments, read_only=request.read_only)

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value == "once" or value == "session" or value == "always":
            return Answer(
                McpReply(call_id, value), f"✓ You let MCP tool {server} › {tool} run {MCP_SCOPES[value]}"
            )
        note = _note(picked)
        return Answer(
            McpReply(call_id, "refuse", f"The user's note: {note}" if note else ""),
            _with_note(f"✗ You did not let MCP tool {server} › {tool} run", note),
        )

    return screen, answer


def web_fetch(request: WebRequest, host: AgentHost | None, cwd: Path) -> tuple[Screen[Any], ToAnswer]:
    call_id, domain = request.tool_call_id, request.domain
    screen = web_fetch_dialog(
        request.url,
        domain,
        query_chars=request.query_chars,
        long_query=request.long_query,
        query_secret=request.query_secret,
        non_ascii_domain=request.non_ascii_domain,
    )

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value == "once":
            return Answer(WebReply(call_id, "once"), f"✓ You let web_fetch contact {domain}, once")
        if value == "always":
            return Answer(
                WebReply(call_id, "always"),
                f"✓ You let web_fetch contact {domain} from now on in this project",
            )
        note = _note(picked)
        return Answer(
            WebReply(call_id, "deny", note), _with_note(f"✗ You did not let web_fetch contact {domain}", note)
        )

    return screen, answer


def hook_approval(request: HookRequest, host: AgentHost | None, cwd: Path) -> tuple[Screen[Any], ToAnswer]:
    call_id, tool = request.tool_call_id, request.tool
    screen = hook_approval_dialog(tool, request.arguments, request.reason)

    def answer(picked: Picked | None) -> Answer:
        if _value(picked, None) == "once":
            return Answer(HookReply(call_id, "once"), f"✓ You let {tool} run (a hook asked)")
        note = _note(picked)
        return Answer(
            HookReply(call_id, "refuse", note),
            _with_note(f"✗ You did not let {tool} run (a hook asked)", note),
        )

    return screen, answer


# -- Plan Mode ------------------------------------------------------------------------------------


def enter_plan_mode(
    request: EnterPlanRequest, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    screen = enter_plan_dialog(request.reason)

    def answer(picked: Picked | None) -> Answer:
        if _value(picked, None) == ENTER:
            return Answer(
                PlanReply(request.session_id, request.tool_call_id, approved=True),
                "✓ Plan Mode on: zett plans first and changes nothing until you approve",
            )
        return Answer(request.refuse(), "✗ You continued without Plan Mode")

    return screen, answer


EDITED_PLAN_STEER = "The user edited the plan before approving. Carry out this plan:\n"
PLAN_FEEDBACK_STEER = "Keep planning. My feedback on the plan:\n"


def exit_plan_mode(
    request: ExitPlanRequest, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    screen = PlanReviewDialog(request.plan)

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value in (APPROVE_ASK, APPROVE_FREE):
            mode = PermissionMode.ASK if value == APPROVE_ASK else PermissionMode.ACCEPT_EDITS
            edited = picked.edited if isinstance(picked, Picked) else None
            how = "zett asks before each edit" if mode is PermissionMode.ASK else "edits apply without asking"
            return Answer(
                PlanReply(request.session_id, request.tool_call_id, approved=True),
                f"✓ You approved {'your edited' if edited else 'the'} plan; {how}",
                steer=EDITED_PLAN_STEER + edited if edited else None,
                after_tool=_after_plan_approved(request.session_id, mode, edited),
            )
        note = _note(picked)
        return Answer(
            request.refuse(note),
            "✗ You sent the plan back: zett keeps planning",  # the note shows as its steer
            steer=PLAN_FEEDBACK_STEER + note if note else None,
        )

    return screen, answer


def _after_plan_approved(session_id: str, mode: PermissionMode, edited: str | None) -> FollowUp:
    """Once Plan Mode has really ended: the chosen mode, and the user's version of the plan kept."""

    def follow_up(session: SessionCore) -> None:
        session.set_mode(mode)
        guard = session.host.plan_guard
        if edited and guard is not None:
            paths.write_private_text(guard.plan_file(session_id), edited.strip() + "\n")

    return follow_up


# -- questions ------------------------------------------------------------------------------------


def ask_user(request: AskUserRequest, host: AgentHost | None, cwd: Path) -> tuple[Screen[Any], ToAnswer]:
    question = request.question
    screen = AskUserDialog(question, list(request.options), allow_multiple=request.allow_multiple)

    def answer(picked: Picked | None) -> Answer:
        said = describe_answer(picked)
        if not said:
            return Answer(request.refuse(), f"✗ You declined to answer: {_shorten(question)}")
        return Answer(AskUserReply(request.tool_call_id, said), f"✓ You {said}", outcome=_shorten(said))

    return screen, answer


def describe_answer(picked: Picked | None) -> str:
    """What the user answered, in words ("chose: A; B and added: ..."); empty when they declined."""
    if not isinstance(picked, Picked) or picked.value is DECLINED:
        return ""
    said: list[str] = []
    if isinstance(picked.value, list) and picked.value:
        said.append("chose: " + "; ".join(picked.value))
    elif isinstance(picked.value, str):
        said.append(f"chose: {picked.value}")
    if picked.note:
        said.append(("and added: " if said else "answered: ") + picked.note)
    return " ".join(said)


def _shorten(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


FACTORIES: dict[str, DialogFactory] = {
    "shell_approval_requested": shell_approval,
    "edit_approval_requested": edit_approval,
    "enter_plan_mode": enter_plan_mode,
    "exit_plan_mode": exit_plan_mode,
    "ask_user": ask_user,
    "read_access_requested": read_access,
    "sandbox_escape_requested": sandbox_escape,
    "mcp_approval_requested": mcp_approval,
    "hook_approval_requested": hook_approval,
    "web_fetch_requested": web_fetch,
}
