"""For each kind of runtime question: the dialog to show, and what the user's pick means.

Each factory returns the dialog and a function that turns its result (a ``Picked``, or None when
it was closed without an answer) into an ``Answer``: the reply payload the runtime expects, the
line the transcript keeps, and what has to happen next (a steering note for the model, a rule to
save, a mode to switch to once an approved plan has been accepted).

Reply formats (zett-agent 0.2.1 and zett's own extensions):
- shell approval: ``{"tool_call_id", "decision": "execute"|"abort", "remember": bool}``;
- edit approval: ``{"tool_call_id", "decision": "apply"|"apply_all"|"reject", "note"}``;
- Plan Mode: exactly ``{"session_id", "tool_call_id", "approved": bool}`` (no feedback field, so a
  note is sent as a steering message right after);
- ask_user: free-form; with ``parts`` the model reads the text parts as the tool result.
- read access: ``{"tool_call_id", "decision": "once"|"session"|"deny", "note"}``.
- shell approval "Run once with network": ``execute`` plus ``"network": true`` (the host lets that
  one call use the network in the sandbox);
- leaving the sandbox: ``{"tool_call_id", "decision": "stay"|"outside"|"network", "note"}``.
- an MCP tool call: ``{"tool_call_id", "decision": "once"|"session"|"always"|"refuse", "note"}``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from zett_tui.core import paths
from zett_tui.runtime.events import DecisionRequested
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.shell.policy import Rule
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

if TYPE_CHECKING:
    from zett_tui.runtime.host import AgentHost

FollowUp = Callable[["AgentHost"], None]


@dataclass(frozen=True)
class Answer:
    """What goes back to the runtime, the one line the transcript keeps, and what follows."""

    payload: dict[str, Any]
    record: str
    level: str = "decision"
    #: Sent to the running turn as a steering message right after the answer (the user's note).
    steer: str | None = None
    #: Run once the runtime has taken the answer (save a rule).
    accepted: FollowUp | None = None
    #: Run when the answered tool call has finished successfully (switch mode after a plan).
    after_tool: FollowUp | None = None
    #: The user said no to the call (its row says "declined", not "failed").
    declined: bool = False
    #: What the tool row shows after its argument once answered (``ask_user``: the answer); the
    #: row then says it, and ``record`` is kept in the session without a line of its own.
    outcome: str = ""


ToAnswer = Callable[[Picked | None], Answer]
DialogFactory = Callable[[DecisionRequested, "AgentHost | None", Path], tuple[Screen[Any], ToAnswer]]


def _value(picked: Picked | None, default: Any) -> Any:
    return picked.value if isinstance(picked, Picked) else default


def _note(picked: Picked | None) -> str:
    return picked.note.strip() if isinstance(picked, Picked) else ""


def _with_note(record: str, note: str) -> str:
    return f"{record} — your note: {note}" if note else record


# -- shell commands -------------------------------------------------------------------------------


def shell_approval(
    decision: DecisionRequested, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    payload = decision.payload
    command = str(payload.get("command", ""))
    call_id = payload.get("tool_call_id")
    policy = host.shell_policy if host is not None else None
    reason, dangerous, suggestions = "", False, []
    if policy is not None:
        verdict = policy.verdict(decision.session_id, command)
        reason, dangerous = verdict.reason, verdict.dangerous
        suggestions = policy.suggestions(command)
    timeout = payload.get("timeout_seconds", 60)
    screen = shell_approval_dialog(
        command,
        cwd,
        timeout if isinstance(timeout, int) else 60,
        reason=reason,
        dangerous=dangerous,
        suggestions=suggestions,
        offer_network=_offers_network_once(host),
        where=host.shell_sandbox.where_it_runs() if host is not None and host.shell_sandbox else "",
    )

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value == RUN_WITH_NETWORK:
            return Answer(
                {"tool_call_id": call_id, "decision": "execute", "remember": False, "network": True},
                f"✓ You allowed, once with the network on: {command}",
            )
        if value == RUN:
            return Answer(
                {"tool_call_id": call_id, "decision": "execute", "remember": False},
                f"✓ You allowed: {command}",
            )
        if isinstance(value, Rule):
            rule = Rule(value.kind, _note(picked) or value.command)

            def save(host: AgentHost) -> None:
                host.shell_rules.add(rule.kind, rule.command)

            return Answer(
                {"tool_call_id": call_id, "decision": "execute", "remember": False},
                f"✓ You allowed: {command} — from now on without asking: {describe_rule(rule)}",
                accepted=save,
            )
        note = _note(picked)
        steer = f"I did not let you run `{command}`. {note}" if note else None
        return Answer(
            {"tool_call_id": call_id, "decision": "abort", "remember": False},
            f"✗ You refused: {command}",  # the note shows once, where it went into the turn (steer)
            steer=steer,
            declined=True,
        )

    return screen, answer


def _offers_network_once(host: AgentHost | None) -> bool:
    sandbox = host.shell_sandbox if host is not None else None
    return bool(sandbox is not None and sandbox.offers_network_once)


def sandbox_escape(
    decision: DecisionRequested, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    """A command the sandbox probably stopped: keep the failure, or run it again once outside it."""
    payload = decision.payload
    call_id = payload.get("tool_call_id")
    command = str(payload.get("command", ""))
    network = bool(payload.get("network_offered"))
    screen = sandbox_escape_dialog(command, cwd, str(payload.get("reason", "")), offer_network=network)

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, STAY)
        if value == OUTSIDE:
            return Answer(
                {"tool_call_id": call_id, "decision": "outside"},
                f"✓ You ran it again outside the sandbox, once: {command}",
                level="warning",
            )
        if value == NETWORK and network:
            return Answer(
                {"tool_call_id": call_id, "decision": "network"},
                f"✓ You ran it again with the network on, once: {command}",
            )
        note = _note(picked)
        return Answer(
            {"tool_call_id": call_id, "decision": "stay", "note": note},
            _with_note(f"✗ You kept it in the sandbox: {command}", note),
        )

    return screen, answer


def shell_allowed_now(decision: DecisionRequested, host: AgentHost | None) -> Answer | None:
    """Run a queued command without its dialog when a rule saved (or a mode chosen) while it
    waited now allows it."""
    policy = host.shell_policy if host is not None else None
    if policy is None:
        return None
    command = str(decision.payload.get("command", ""))
    verdict = policy.verdict(decision.session_id, command)
    if not verdict.allowed:
        return None
    return Answer(
        {"tool_call_id": decision.payload.get("tool_call_id"), "decision": "execute", "remember": False},
        f"✓ Ran without asking: {command} (allowed by {verdict.reason})",
    )


def describe_rule(rule: Rule) -> str:
    if rule.kind == "prefix":
        return f"commands that start with `{rule.command}`"
    return f"exactly `{rule.command}`"


# -- file edits -----------------------------------------------------------------------------------


def edit_approval(
    decision: DecisionRequested, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    payload = decision.payload
    call_id = payload.get("tool_call_id")
    path = str(payload.get("path", ""))
    operation = str(payload.get("operation", "edit"))
    added, removed = int(payload.get("added", 0) or 0), int(payload.get("removed", 0) or 0)
    screen = edit_approval_dialog(
        path,
        operation,
        str(payload.get("diff", "")),
        added=added,
        removed=removed,
        outside_project=bool(payload.get("outside_project")),
        absolute_path=str(payload.get("absolute_path", "")),
    )
    what = f"{operation} {path} (+{added} −{removed})"

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, REJECT)
        if value == APPLY:
            return Answer({"tool_call_id": call_id, "decision": APPLY, "note": ""}, f"✓ You applied: {what}")
        if value == APPLY_ALL:
            return Answer(
                {"tool_call_id": call_id, "decision": APPLY_ALL, "note": ""},
                f"✓ You applied: {what} — and every later edit in this session, without asking",
            )
        note = _note(picked)
        return Answer(
            {"tool_call_id": call_id, "decision": REJECT, "note": note},
            _with_note(f"✗ You did not apply: {what}", note),
            declined=True,
        )

    return screen, answer


# -- reads outside the project --------------------------------------------------------------------


def read_access(
    decision: DecisionRequested, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    payload = decision.payload
    call_id = payload.get("tool_call_id")
    tool = str(payload.get("tool", "a tool"))
    path = str(payload.get("path", ""))
    scope = str(payload.get("session_scope", ""))
    screen = read_access_dialog(
        tool,
        path,
        requested=str(payload["requested"]) if payload.get("requested") else None,
        is_folder=bool(payload.get("is_folder")),
        secret=str(payload["secret"]) if payload.get("secret") else None,
        reason=str(payload.get("reason", "")),
        session_scope=scope,
    )

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value == ONCE:
            return Answer({"tool_call_id": call_id, "decision": ONCE}, f"✓ You let {tool} read {path}, once")
        if value == SESSION:
            return Answer(
                {"tool_call_id": call_id, "decision": SESSION},
                f"✓ You let {tool} read {path} for this session ({scope or 'this path'})",
            )
        note = _note(picked)
        return Answer(
            {"tool_call_id": call_id, "decision": "deny", "note": f"The user's note: {note}" if note else ""},
            _with_note(f"✗ You did not let {tool} read {path}", note),
            declined=True,
        )

    return screen, answer


def mcp_approval(
    decision: DecisionRequested, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    payload = decision.payload
    call_id = payload.get("tool_call_id")
    server, tool = str(payload.get("server", "")), str(payload.get("tool", ""))
    arguments = payload.get("arguments")
    screen = mcp_approval_dialog(
        server,
        tool,
        arguments if isinstance(arguments, dict) else {},
        read_only=payload.get("read_only") is True,
    )

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value in ("once", "session", "always"):
            scope = {"once": "once", "session": "for this session", "always": "from now on in this project"}[
                value
            ]
            return Answer(
                {"tool_call_id": call_id, "decision": value},
                f"✓ You let MCP tool {server} › {tool} run {scope}",
            )
        note = _note(picked)
        return Answer(
            {
                "tool_call_id": call_id,
                "decision": "refuse",
                "note": f"The user's note: {note}" if note else "",
            },
            _with_note(f"✗ You did not let MCP tool {server} › {tool} run", note),
        )

    return screen, answer


def hook_approval(
    decision: DecisionRequested, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    payload = decision.payload
    call_id = payload.get("tool_call_id")
    tool = str(payload.get("tool", ""))
    arguments = payload.get("arguments")
    screen = hook_approval_dialog(
        tool, arguments if isinstance(arguments, dict) else {}, str(payload.get("reason") or "")
    )

    def answer(picked: Picked | None) -> Answer:
        if _value(picked, None) == "once":
            return Answer(
                {"tool_call_id": call_id, "decision": "once"}, f"✓ You let {tool} run (a hook asked)"
            )
        note = _note(picked)
        return Answer(
            {"tool_call_id": call_id, "decision": "refuse", "note": note},
            _with_note(f"✗ You did not let {tool} run (a hook asked)", note),
        )

    return screen, answer


# -- Plan Mode ------------------------------------------------------------------------------------


def _plan_reply(decision: DecisionRequested, approved: bool) -> dict[str, Any]:
    """Plan Mode's strict reply: exactly these three keys."""
    session_id = decision.payload.get("session_id") or decision.session_id
    return {
        "session_id": str(session_id),
        "tool_call_id": str(decision.payload.get("tool_call_id")),
        "approved": approved,
    }


def enter_plan_mode(
    decision: DecisionRequested, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    screen = enter_plan_dialog(str(decision.payload.get("reason", "")))

    def answer(picked: Picked | None) -> Answer:
        if _value(picked, None) == ENTER:
            return Answer(
                _plan_reply(decision, True),
                "✓ Plan Mode on: zett plans first and changes nothing until you approve",
            )
        return Answer(_plan_reply(decision, False), "✗ You continued without Plan Mode")

    return screen, answer


EDITED_PLAN_STEER = "The user edited the plan before approving. Carry out this plan:\n"
PLAN_FEEDBACK_STEER = "Keep planning. My feedback on the plan:\n"


def exit_plan_mode(
    decision: DecisionRequested, host: AgentHost | None, cwd: Path
) -> tuple[Screen[Any], ToAnswer]:
    screen = PlanReviewDialog(str(decision.payload.get("plan", "")))

    def answer(picked: Picked | None) -> Answer:
        value = _value(picked, None)
        if value in (APPROVE_ASK, APPROVE_FREE):
            mode = PermissionMode.ASK if value == APPROVE_ASK else PermissionMode.ACCEPT_EDITS
            edited = picked.edited if isinstance(picked, Picked) else None
            how = "zett asks before each edit" if mode is PermissionMode.ASK else "edits apply without asking"
            return Answer(
                _plan_reply(decision, True),
                f"✓ You approved {'your edited' if edited else 'the'} plan; {how}",
                steer=EDITED_PLAN_STEER + edited if edited else None,
                after_tool=_after_plan_approved(decision.session_id, mode, edited),
            )
        note = _note(picked)
        return Answer(
            _plan_reply(decision, False),
            "✗ You sent the plan back: zett keeps planning",  # the note shows as its steer
            steer=PLAN_FEEDBACK_STEER + note if note else None,
        )

    return screen, answer


def _after_plan_approved(session_id: str, mode: PermissionMode, edited: str | None) -> FollowUp:
    """Once Plan Mode has really ended: the chosen mode, and the user's version of the plan kept."""

    def follow_up(host: AgentHost) -> None:
        host.set_mode(mode)
        if edited and host.plan_guard is not None:
            paths.write_private_text(host.plan_guard.plan_file(session_id), edited.strip() + "\n")

    return follow_up


# -- questions ------------------------------------------------------------------------------------

DECLINED_TEXT = (
    "The user declined to answer this question. Carry on without the answer if you can, "
    "or say what you need and why."
)


def ask_user(decision: DecisionRequested, host: AgentHost | None, cwd: Path) -> tuple[Screen[Any], ToAnswer]:
    payload = decision.payload
    call_id = payload.get("tool_call_id")
    question = str(payload.get("question", ""))
    options = [str(option) for option in payload.get("options") or []]
    screen = AskUserDialog(question, options, allow_multiple=bool(payload.get("allow_multiple")))

    def answer(picked: Picked | None) -> Answer:
        said = describe_answer(picked)
        if not said:
            return Answer(
                {
                    "tool_call_id": call_id,
                    "declined": True,
                    "parts": [{"type": "text", "text": DECLINED_TEXT}],
                },
                f"✗ You declined to answer: {_shorten(question)}",
                declined=True,
            )
        return Answer(
            {"tool_call_id": call_id, "parts": [{"type": "text", "text": f"The user {said}"}]},
            f"✓ You {said}",
            outcome=_shorten(said),
        )

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


#: Questions that may have been settled while they waited in the queue.
SETTLED: dict[str, Callable[[DecisionRequested, AgentHost | None], Answer | None]] = {
    "shell_approval_requested": shell_allowed_now,
}

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
}
