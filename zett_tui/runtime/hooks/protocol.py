"""What a hook reads on stdin and what its exit code and stdout mean: Claude Code's shapes.

Input (one JSON object): ``session_id``, ``transcript_path`` (zett's JSONL transcript of the
session), ``cwd``, ``hook_event_name``, ``permission_mode`` (Claude Code's words: ``default``,
``acceptEdits``, ``plan``, ``bypassPermissions`` for zett's auto), and per event:
``source`` (SessionStart: ``startup`` or ``resume``), ``prompt`` (UserPromptSubmit),
``tool_name``/``tool_input`` (PreToolUse; PostToolUse adds ``tool_response``),
``stop_hook_active`` (Stop). Tool events also carry ``zett_tool_name``.

Tool names: a tool Claude Code has is named as Claude Code names it (``bash`` is ``Bash``,
``read_file`` ``Read``, ``write_file`` ``Write``, ``edit`` ``Edit``, ``grep`` ``Grep``, ``glob``
``Glob``, ``todo_write`` ``TodoWrite``; MCP tools are ``mcp__SERVER__TOOL`` in both), and
``tool_input`` holds zett's arguments plus Claude Code's keys for them (``file_path``, absolute;
``old_string``/``new_string`` for a one-change edit; ``timeout`` in milliseconds for Bash). A
matcher may use either name (``Bash`` or ``bash``), so an existing script and its matcher work.

Output: exit 0 is success (for UserPromptSubmit and SessionStart, plain stdout is context for
the model); exit 2 blocks (stderr is the reason); any other exit is an error reported to the user
that blocks nothing. A JSON object on stdout (exit 0) may say ``continue: false`` (with
``stopReason``), ``systemMessage`` (shown to the user), ``suppressOutput`` (zett never shows a
hook's stdout anyway), ``decision: "block"`` with ``reason``, and ``hookSpecificOutput`` with
``permissionDecision`` (``allow``/``deny``/``ask``, PreToolUse) and its
``permissionDecisionReason``, or ``additionalContext``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zett_tui.config.hooks import HookConfig
from zett_tui.runtime.hooks.process import CommandResult

#: zett's tool names to Claude Code's, for ``tool_name`` and matchers.
CLAUDE_TOOL_NAMES = {
    "bash": "Bash",
    "read_file": "Read",
    "read": "Read",
    "view_image": "Read",
    "write_file": "Write",
    "edit": "Edit",
    "grep": "Grep",
    "glob": "Glob",
    "todo_write": "TodoWrite",
    "task": "Task",
}

#: zett's permission modes in Claude Code's words.
CLAUDE_PERMISSION_MODES = {
    "ask": "default",
    "accept_edits": "acceptEdits",
    "plan": "plan",
    "auto": "bypassPermissions",
}

PERMISSION_DECISIONS = ("allow", "deny", "ask")


def claude_tool_name(name: str) -> str:
    return CLAUDE_TOOL_NAMES.get(name, name)


def tool_names(name: str) -> tuple[str, ...]:
    """The names a matcher is tried on: Claude Code's and zett's."""
    claude = claude_tool_name(name)
    return (claude, name) if claude != name else (name,)


def tool_input(name: str, arguments: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
    """zett's arguments, with Claude Code's keys for them added."""
    shown = dict(arguments)
    path = arguments.get("path")
    if isinstance(path, str) and path:
        shown.setdefault("file_path", os.path.normpath(os.path.join(cwd, os.path.expanduser(path))))
    if name == "bash" and isinstance(arguments.get("timeout_seconds"), int | float):
        shown.setdefault("timeout", int(arguments["timeout_seconds"] * 1000))
    if name == "edit":
        edits = arguments.get("edits")
        if isinstance(edits, list) and len(edits) == 1 and isinstance(edits[0], dict):
            shown.setdefault("old_string", edits[0].get("old_text", ""))
            shown.setdefault("new_string", edits[0].get("new_text", ""))
            shown.setdefault("replace_all", bool(edits[0].get("replace_all", False)))
    if name == "grep" and isinstance(arguments.get("file_pattern"), str):
        shown.setdefault("glob", arguments["file_pattern"])
    return shown


def tool_response(
    name: str, arguments: Mapping[str, Any], content: str, success: bool, cwd: Path
) -> dict[str, Any]:
    """What PostToolUse gets as ``tool_response``: the result text and whether the tool succeeded."""
    response: dict[str, Any] = {"success": success, "content": content}
    path = arguments.get("path")
    if isinstance(path, str) and path:
        response["filePath"] = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
    if name == "bash":
        response["stdout"] = content
    return response


@dataclass
class HookReply:
    """What one hook's run means."""

    hook: HookConfig
    block: str | None = None
    """Exit 2 (its stderr) or ``decision: "block"`` (its reason): what is refused, and why."""
    permission: str | None = None
    """PreToolUse: ``allow``, ``deny`` or ``ask``."""
    permission_reason: str = ""
    context: str = ""
    """``additionalContext`` (or plain stdout where that is context)."""
    stop: str | None = None
    """``continue: false``: the turn ends; the ``stopReason``."""
    message: str = ""
    """``systemMessage``: shown to the user."""
    failure: str | None = None
    """Why it did not work (an exit code other than 0 and 2, a timeout, bad JSON fields)."""


PLAIN_STDOUT_IS_CONTEXT = ("UserPromptSubmit", "SessionStart")


def interpret(hook: HookConfig, result: CommandResult) -> HookReply:
    """The meaning of one finished run (see the module docstring)."""
    reply = HookReply(hook)
    if result.timed_out:
        reply.failure = f"timed out after {hook.timeout:g} s and was stopped"
        return reply
    if result.exit_code == 2:
        reply.block = result.stderr.strip() or f"{hook.label} blocked it (exit code 2, nothing on stderr)"
        return reply
    if result.exit_code != 0:
        said = _last_line(result.stderr) or _last_line(result.stdout)
        reply.failure = f"exited with code {result.exit_code}" + (f": {said}" if said else "")
        return reply
    stdout = result.stdout.strip()
    document: object = None
    if stdout.startswith("{"):
        try:
            document = json.loads(stdout)
        except ValueError:
            document = None
    if isinstance(document, dict):
        _read_json(reply, document)
    elif stdout and hook.event in PLAIN_STDOUT_IS_CONTEXT:  # text that only looks like JSON, too
        reply.context = stdout
    return reply


def _read_json(reply: HookReply, document: Mapping[str, Any]) -> None:
    wrong: list[str] = []
    event = reply.hook.event
    if document.get("continue") is False:
        reason = document.get("stopReason")
        reply.stop = (
            reason.strip() if isinstance(reason, str) and reason.strip() else f"{reply.hook.label} stopped it"
        )
    message = document.get("systemMessage")
    if isinstance(message, str):
        reply.message = message.strip()
    decision = document.get("decision")
    reason = document.get("reason")
    reason_text = reason.strip() if isinstance(reason, str) else ""
    if decision == "block":
        reply.block = reason_text or f"{reply.hook.label} blocked it"
    elif decision == "approve" and event == "PreToolUse":  # Claude Code's older spelling of allow
        reply.permission, reply.permission_reason = "allow", reason_text
    elif decision not in (None, "", "approve"):
        wrong.append(f'decision must be "block", not {decision!r}')
    specific = document.get("hookSpecificOutput")
    if isinstance(specific, dict):
        permission = specific.get("permissionDecision")
        if permission is not None:
            if permission in PERMISSION_DECISIONS and event == "PreToolUse":
                reply.permission = str(permission)
                why = specific.get("permissionDecisionReason")
                reply.permission_reason = why.strip() if isinstance(why, str) else ""
            else:
                wrong.append(f"permissionDecision {permission!r} is not allow, deny or ask on PreToolUse")
        context = specific.get("additionalContext")
        if isinstance(context, str):
            reply.context = context.strip()
        elif context is not None:
            wrong.append("additionalContext must be a string")
    elif specific is not None:
        wrong.append("hookSpecificOutput must be an object")
    if wrong:
        reply.failure = "its JSON output was partly ignored: " + "; ".join(wrong)


def _last_line(text: str) -> str:
    """The last line that says something (a Python traceback ends with the error itself)."""
    for line in reversed(text.strip().splitlines()):
        if line.strip():
            flat = line.strip()
            return flat if len(flat) <= 200 else flat[:199] + "…"
    return ""


@dataclass
class EventOutcome:
    """What every hook that ran for one event says together."""

    replies: Sequence[HookReply] = field(default_factory=list)

    @property
    def blocks(self) -> list[str]:
        return [reply.block for reply in self.replies if reply.block]

    @property
    def block(self) -> str | None:
        """The reasons to block, one per line; None when nothing blocked."""
        return "\n".join(self.blocks) or None

    @property
    def permission(self) -> str | None:
        """The strictest PreToolUse answer: deny over ask over allow (an exit 2 is a deny)."""
        answers = {reply.permission for reply in self.replies}
        if self.blocks or "deny" in answers:
            return "deny"
        if "ask" in answers:
            return "ask"
        return "allow" if "allow" in answers else None

    @property
    def permission_reason(self) -> str:
        wanted = self.permission
        reasons = [reply.block for reply in self.replies if reply.block and wanted == "deny"]
        reasons += [
            reply.permission_reason
            for reply in self.replies
            if reply.permission == wanted and reply.permission_reason
        ]
        return "\n".join(reasons)

    @property
    def context(self) -> str:
        return "\n\n".join(reply.context for reply in self.replies if reply.context)

    @property
    def stop(self) -> str | None:
        return next((reply.stop for reply in self.replies if reply.stop), None)

    @property
    def messages(self) -> list[str]:
        return [reply.message for reply in self.replies if reply.message]
