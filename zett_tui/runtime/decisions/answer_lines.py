"""The one line a session keeps for an answer, read from the gate's typed request and reply.

The session core (``runtime.session``) records every answer the runtime took with its turn
(``AgentHost.note_decision``), whichever front end gave it: the terminal's dialogs, the editor's
permission requests in ``zett acp``, ``zett -p``'s flags. A front end that knows more than the
reply carries (the terminal knows which rule a "from now on" saved) gives its own line instead
(``SessionCore.describe_answer``); every other answer reads as this module says, in the
terminal's words, so a session reads the same whichever front end answered it.
"""

from __future__ import annotations

from zett_tui.runtime.decisions.ask_user import OWN_WORDS_TEXT, AskUserReply, AskUserRequest
from zett_tui.runtime.decisions.base import ChoiceReply
from zett_tui.runtime.decisions.edit import EditReply, EditRequest
from zett_tui.runtime.decisions.hook import HookRequest
from zett_tui.runtime.decisions.mcp import McpRequest
from zett_tui.runtime.decisions.plan import EnterPlanRequest, ExitPlanRequest
from zett_tui.runtime.decisions.read import ReadRequest
from zett_tui.runtime.decisions.sandbox import SandboxEscapeReply, SandboxEscapeRequest
from zett_tui.runtime.decisions.shell import ShellReply, ShellRequest
from zett_tui.runtime.decisions.web import WebRequest

__all__ = ["SCOPES", "answer_line", "settled_line", "with_note"]

#: How long a yes of a ``ChoiceReply`` holds, in words.
SCOPES = {"once": "once", "session": "for this session", "always": "from now on in this project"}


def with_note(line: str, note: str) -> str:
    """``line`` with the user's note after it (when there is one)."""
    return f"{line} — your note: {note}" if note else line


def settled_line(request: object, settled_by: str) -> str:
    """A question a rule (or the mode) answered before anyone was asked."""
    if isinstance(request, ShellRequest):
        return f"✓ Ran without asking: {request.command} (allowed by {settled_by})"
    return f"✓ Allowed without asking (by {settled_by})"


def answer_line(request: object, reply: object) -> str:
    """What the user answered to ``request`` with ``reply``, on one line ("✓ ..." or "✗ ...")."""
    declined = bool(getattr(reply, "declined", False))
    note = _note(reply)
    if isinstance(request, ShellRequest) and isinstance(reply, ShellReply):
        if declined:
            return with_note(f"✗ You refused: {request.command}", note)
        if reply.network:
            return f"✓ You allowed, once with the network on: {request.command}"
        return f"✓ You allowed: {request.command}"
    if isinstance(request, SandboxEscapeRequest) and isinstance(reply, SandboxEscapeReply):
        if reply.choice == "outside":
            return f"✓ You ran it again outside the sandbox, once: {request.command}"
        if reply.choice == "network":
            return f"✓ You ran it again with the network on, once: {request.command}"
        return with_note(f"✗ You kept it in the sandbox: {request.command}", note)
    if isinstance(request, EditRequest) and isinstance(reply, EditReply):
        what = f"{request.operation} {request.path} (+{request.added} −{request.removed})"
        if reply.choice == "apply_all":
            return f"✓ You applied: {what} — and every later edit in this session, without asking"
        if reply.choice == "apply":
            return f"✓ You applied: {what}"
        return with_note(f"✗ You did not apply: {what}", note)
    if isinstance(request, AskUserRequest) and isinstance(reply, AskUserReply):
        if reply.said is None and reply.why_not == OWN_WORDS_TEXT:
            return f"✗ You chose to answer in your own words, in your next message: {request.question}"
        if reply.said is None:
            return f"✗ You declined to answer: {request.question}"
        return f"✓ You {reply.said}"
    if isinstance(request, EnterPlanRequest):
        if declined:
            return "✗ You continued without Plan Mode"
        return "✓ Plan Mode on: zett plans first and changes nothing until you approve"
    if isinstance(request, ExitPlanRequest):
        if declined:
            return with_note("✗ You sent the plan back: zett keeps planning", note)
        return "✓ You approved the plan"
    if isinstance(reply, ChoiceReply):
        return _choice_line(request, reply, note)
    return "✗ You declined" if declined else "✓ You allowed"


def _choice_line(request: object, reply: ChoiceReply[str], note: str) -> str:
    scope = SCOPES.get(reply.choice, reply.choice)
    if isinstance(request, ReadRequest):
        what = f"let {request.tool} read {request.path}"
    elif isinstance(request, McpRequest):
        what = f"let MCP tool {request.server} › {request.tool} run"
    elif isinstance(request, WebRequest):
        what = f"let web_fetch contact {request.domain}"
    elif isinstance(request, HookRequest):
        if reply.declined:
            return with_note(f"✗ You did not let {request.tool} run (a hook asked)", note)
        return f"✓ You let {request.tool} run (a hook asked)"
    else:
        what = "allow it"
    if reply.declined:
        return with_note(f"✗ You did not {what}", note)
    return f"✓ You {what} {scope}"


def _note(reply: object) -> str:
    """The user's own note in a reply, without the prefix a gate adds for the model."""
    note = getattr(reply, "note", "")
    if not isinstance(note, str):
        return ""
    return note.removeprefix("The user's note: ").strip()
