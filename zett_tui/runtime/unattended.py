"""Answers to the runtime's questions when nobody is there to ask: ``zett -p`` and scripts.

Nothing waits for a dialog. Each ``DecisionRequested`` gets an immediate answer from the flags:

- a shell command runs only when an ``--allow-shell`` prefix covers it, by the same matching
  as saved prefix rules (``rule_scope.prefix_covers``: ``--allow-shell pytest`` allows
  ``pytest -x``, not ``pytestx``, ``pytest; rm -rf /`` or ``pytest --basetemp=/elsewhere``; a
  prefix for a program that runs other programs, ``make test``, allows only those very words)
  and it is not dangerous (``shell_danger``: recursive deletes, writes
  outside the project, sudo...); dangerous commands would ask in every interactive mode, so here
  they never run;
- a file change is applied with ``--allow-edits``, and never outside the project folder nor
  under ``.git/``, ``.zett/`` or zett's settings (``protected_paths``);
- a question for the user is declined, and so is every Plan Mode request;
- a read outside the project is allowed only under an ``--allow-read PATH`` (that path and what
  is below it); a credential store, zett's own folders or a process's ``environ`` only under an
  ``--allow-read`` of that place itself or something inside it (``read_access``), never of a
  parent such as ``~`` or ``/``;
- an MCP tool call runs only under an ``--allow-mcp SERVER`` (every tool of that server) or
  ``--allow-mcp SERVER__TOOL`` (that one tool); Plan Mode's refusal of a tool the server does not
  mark read-only happens before any question, so no flag lifts it;
- ``web_fetch`` reads a page only on a host named by ``--allow-web DOMAIN`` (that exact name);
  private and special addresses are refused before any question, so no flag lifts that.

No Textual here: this is runtime policy, shared by every non-interactive front end.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zett_tui.runtime.decisions import (
    AskUserReply,
    AskUserRequest,
    EditReply,
    EditRequest,
    EnterPlanRequest,
    ExitPlanRequest,
    HookRequest,
    McpReply,
    McpRequest,
    ReadReply,
    ReadRequest,
    Reply,
    Request,
    SandboxEscapeRequest,
    ShellReply,
    ShellRequest,
    WebReply,
    WebRequest,
    parse_request,
)
from zett_tui.runtime.events import DecisionRequested
from zett_tui.runtime.files.protected_paths import protected_reason
from zett_tui.runtime.files.read_access import ReadAccess
from zett_tui.runtime.shell.policy import dangerous_reason, suggest_rules
from zett_tui.runtime.shell.rule_scope import plain_command, prefix_covers

__all__ = ["AutoAnswer", "ShellAllowList", "UnattendedPolicy", "plain_words"]

NOT_AVAILABLE = (
    "The user is not available: zett is running non-interactively and nobody can answer. Do not ask "
    "again; make a reasonable choice and say which in your answer, or stop and say what you need."
)
EDITS_NOT_ALLOWED = (
    "Edits are not allowed in this non-interactive run; describe the change instead "
    "(the user can rerun with --allow-edits)."
)
OUTSIDE_PROJECT = "Changes outside the project folder are never applied in a non-interactive run."
PROTECTED = (
    "Changes to git's own files (.git/) and to zett's settings (.zett/) are never applied in a "
    "non-interactive run: they change what runs next. Describe the change instead."
)


@dataclass(frozen=True, slots=True)
class AutoAnswer:
    """The reply sent to the runtime, and what the output says about it."""

    reply: Reply
    #: "shell", "edit", "question", "plan_mode", or the decision's own kind when unknown.
    kind: str
    #: The command, the path, or the question.
    target: str
    #: Why it was refused, or which flag allowed it.
    reason: str
    #: What the user can do to allow it next time, when anything.
    hint: str | None = None

    @property
    def allowed(self) -> bool:
        return not self.reply.declined

    @property
    def payload(self) -> dict[str, Any]:
        """What goes over the runtime (``reply.payload()``)."""
        return self.reply.payload()

    def describe(self) -> str:
        """One line for a person (without the ``zett:`` prefix)."""
        if self.kind == "shell":
            what = f"shell command `{self.target}`"
        elif self.kind == "edit":
            what = f"change to {self.target}"
        elif self.kind == "read":
            what = f"read of {self.target}"
        elif self.kind == "mcp":
            what = f"MCP tool {self.target}"
        elif self.kind == "web":
            what = f"web fetch of {self.target}"
        elif self.kind == "question":
            return f"declined the model's question “{self.target}” ({self.reason})"
        elif self.kind == "plan_mode":
            return f"declined Plan Mode ({self.reason})"
        else:
            what = f"{self.kind} request"
        if self.allowed:
            return f"allowed {what} ({self.reason})"
        detail = f"{self.reason}; {self.hint}" if self.hint else self.reason
        return f"refused {what} ({detail})"


def plain_words(command: str) -> tuple[str, ...] | None:
    """The words of ``command`` when it is one plain command a prefix may match, else None
    (``rule_scope.plain_command``: also no ``${...}``, which could run a command)."""
    simple = plain_command(command)
    return simple.argv if simple is not None else None


class ShellAllowList:
    """The ``--allow-shell`` prefixes, matched by whole shell words."""

    def __init__(self, prefixes: Iterable[str] = ()) -> None:
        self.prefixes: list[tuple[str, tuple[str, ...]]] = []
        for prefix in prefixes:
            words = plain_words(prefix.strip())
            if not words:
                raise ValueError(
                    f"--allow-shell {prefix!r}: give the leading words of one plain command, "
                    "for example --allow-shell pytest or --allow-shell 'git diff'"
                )
            self.prefixes.append((shlex.join(words), words))

    def match(self, command: str, project_root: Path | None = None) -> str | None:
        """The longest prefix that covers ``command`` run in ``project_root`` (default: here)."""
        root = project_root or Path.cwd()
        found = [
            (len(prefix), text) for text, prefix in self.prefixes if prefix_covers(prefix, command, root)
        ]
        return max(found)[1] if found else None


def _flag_hint(command: str, project_root: Path) -> str:
    """How to allow ``command`` with a flag: a narrow prefix, else the whole plain command."""
    words = plain_words(command.strip())
    if not words:
        return "a compound command (;, &&, |, $(...), redirection...) cannot be allowed with --allow-shell"
    suggestions = [rule.command for rule in suggest_rules(command, project_root) if rule.kind == "prefix"]
    prefix = suggestions[0] if suggestions else shlex.join(words)
    return f"allow it with --allow-shell {shlex.quote(prefix)}"


@dataclass
class UnattendedPolicy:
    """Answers every decision at once, from the command-line flags."""

    allow_edits: bool
    shell: ShellAllowList
    project_root: Path
    #: The ``--allow-read`` paths, as given (relative ones start from the project folder).
    allow_read: tuple[str, ...] = ()
    #: Why commands would run without a sandbox (the host's ``shell_sandbox.unavailable_reason``);
    #: then ``--allow-shell`` allows nothing.
    sandbox_missing: str | None = None
    #: The ``--allow-mcp`` entries: ``SERVER`` or ``SERVER__TOOL``.
    allow_mcp: tuple[str, ...] = ()
    #: The ``--allow-web`` host names.
    allow_web: tuple[str, ...] = ()

    def answer(self, decision: DecisionRequested) -> AutoAnswer:
        return self.decide(parse_request(decision))

    def decide(self, request: Request) -> AutoAnswer:
        """The answer to one typed question, from the flags alone."""
        answer = self._decide(request)
        if isinstance(answer.reply, ShellReply) and not answer.reply.run:
            # ``runtime.shell.approval`` tells the model this, instead of "aborted by user".
            reason = f"{answer.reason}; {answer.hint}" if answer.hint else answer.reason
            refused = dataclasses.replace(answer.reply, reason=f"{reason} (zett runs non-interactively here)")
            return dataclasses.replace(answer, reply=refused)
        return answer

    def _decide(self, request: Request) -> AutoAnswer:
        if isinstance(request, ReadRequest):
            return self._read(request)
        if isinstance(request, ShellRequest):
            return self._shell(request)
        if isinstance(request, EditRequest):
            return self._edit(request)
        if isinstance(request, AskUserRequest):
            return self._question(request)
        if isinstance(request, EnterPlanRequest | ExitPlanRequest):
            target = "enter" if isinstance(request, EnterPlanRequest) else "exit"
            return AutoAnswer(request.refuse(), "plan_mode", target, "non-interactive mode")
        if isinstance(request, SandboxEscapeRequest):
            return self._sandbox_escape(request)
        if isinstance(request, McpRequest):
            return self._mcp(request)
        if isinstance(request, HookRequest):
            return self._hook(request)
        if isinstance(request, WebRequest):
            return self._web(request)
        return AutoAnswer(request.refuse(), request.kind_name, "", "zett cannot answer it non-interactively")

    def _shell(self, request: ShellRequest) -> AutoAnswer:
        command = request.command
        prefix = self.shell.match(command, self.project_root)
        danger = dangerous_reason(command, self.project_root) if prefix else None
        refused = request.refuse()
        if prefix and danger is None and self.sandbox_missing is not None:
            reason = f"no sandbox: {self.sandbox_missing}; --allow-shell runs commands only inside one"
            return AutoAnswer(refused, "shell", command, reason)
        if prefix and danger is None:
            allowed = ShellReply(request.tool_call_id, run=True)
            return AutoAnswer(allowed, "shell", command, f"--allow-shell {shlex.quote(prefix)}")
        if danger is not None:
            reason = f"{danger}; such commands never run without asking"
            return AutoAnswer(refused, "shell", command, reason)
        reason = "not allowed in non-interactive mode"
        return AutoAnswer(refused, "shell", command, reason, _flag_hint(command, self.project_root))

    def _mcp(self, request: McpRequest) -> AutoAnswer:
        server, tool = request.server, request.tool
        target = f"{server}__{tool}"
        covering = next((entry for entry in self.allow_mcp if entry in (server, target)), None)
        if covering is not None and server and tool:
            return AutoAnswer(
                McpReply(request.tool_call_id, "once"), "mcp", target, f"--allow-mcp {covering}"
            )
        hint = f"allow it with --allow-mcp {target} (or --allow-mcp {server} for all its tools)"
        note = f"This non-interactive run does not call it: the user can rerun with --allow-mcp {target}."
        return AutoAnswer(request.refuse(note), "mcp", target, "not allowed in non-interactive mode", hint)

    def _web(self, request: WebRequest) -> AutoAnswer:
        domain = request.domain
        if domain and domain in self.allow_web:
            return AutoAnswer(
                WebReply(request.tool_call_id, "once"), "web", request.url, f"--allow-web {domain}"
            )
        hint = f"allow it with --allow-web {domain}"
        note = f"This non-interactive run does not fetch it: the user can rerun with --allow-web {domain}."
        return AutoAnswer(
            request.refuse(note), "web", request.url, "not allowed in non-interactive mode", hint
        )

    def _sandbox_escape(self, request: SandboxEscapeRequest) -> AutoAnswer:
        """A command the sandbox stopped never runs outside it here: that takes the user's yes."""
        reply = request.refuse("zett -p never runs a command outside the sandbox")
        reason = "stopped by the sandbox; running it outside needs the user, never in a non-interactive run"
        return AutoAnswer(reply, "shell", request.command, reason)

    def _edit(self, request: EditRequest) -> AutoAnswer:
        path = request.path or request.absolute_path
        if request.outside_project:
            return AutoAnswer(request.refuse(OUTSIDE_PROJECT), "edit", path, "outside the project folder")
        protected = self._protected(request)
        if protected is not None:
            reason = f"{protected}; never changed in a non-interactive run"
            return AutoAnswer(request.refuse(PROTECTED), "edit", path, reason)
        if self.allow_edits:
            return AutoAnswer(EditReply(request.tool_call_id, "apply"), "edit", path, "--allow-edits")
        return AutoAnswer(
            request.refuse(EDITS_NOT_ALLOWED),
            "edit",
            path,
            "not allowed in non-interactive mode",
            "rerun with --allow-edits",
        )

    def _protected(self, request: EditRequest) -> str | None:
        """The gate's ``protected`` reason, checked again from the path it reports."""
        if request.protected:
            return request.protected
        if request.absolute_path:
            return protected_reason(Path(request.absolute_path).resolve(), self.project_root)
        return None

    def _read(self, request: ReadRequest) -> AutoAnswer:
        path = request.path
        access = ReadAccess.from_paths(self.project_root, self.allow_read, self.project_root)
        verdict = access.verdict(Path(path))
        if path and verdict.allowed:
            covering = next(grant for grant in access.grants if grant.covers(verdict.real, verdict.place))
            reply = ReadReply(request.tool_call_id, "once")
            return AutoAnswer(reply, "read", path, f"--allow-read {covering.path}")
        if verdict.place is not None:
            reason = f"it holds {verdict.place.what}"
            hint = "only an --allow-read of that very place (or a path inside it) allows it"
        else:
            reason, hint = "outside the project folder", "rerun with --allow-read PATH to allow it"
        note = f"This non-interactive run does not read it ({reason}): {hint}."
        return AutoAnswer(request.refuse(note), "read", path, reason, hint)

    def _question(self, request: AskUserRequest) -> AutoAnswer:
        reply = AskUserReply(request.tool_call_id, None, NOT_AVAILABLE, unattended=True)
        question = " ".join(request.question.split())
        return AutoAnswer(reply, "question", question, "nobody can answer in non-interactive mode")

    def _hook(self, request: HookRequest) -> AutoAnswer:
        """A hook wants the user asked: nobody is here to ask, so the call does not run."""
        note = "This non-interactive run cannot ask the user, as a PreToolUse hook wanted."
        reason = "a hook asks the user first; nobody can answer here"
        return AutoAnswer(request.refuse(note), "hook", request.tool, reason)
