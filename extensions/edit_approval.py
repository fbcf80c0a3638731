"""Show each file change as a diff and apply it only when the user says so.

A tool-call middleware around ``write_file``, ``edit`` and ``delete_file`` (zett-agent's file
tools and Plan Mode's copies of them). Before anything is written it works out the new
content the way the tool will (zett-agent's own edit helper: ordered, exact, unique unless
``replace_all``, all or nothing), emits a CUSTOM ``edit_approval_requested`` event with a
unified diff, and waits for ``edit_approval_response``:

    {"tool_call_id": ..., "decision": "apply" | "apply_all" | "reject", "note": "optional"}

``reject`` fails the tool with a message that carries the note; the file is not touched.
``apply_all`` applies and stops asking for the rest of the session (``reset`` asks again).
A change the tool would refuse anyway (text not found, file missing...) is not asked about:
the tool runs and fails with its usual message. In accept-edits and auto mode nothing asks,
except a change outside the project folder or to a protected path, which asks in every mode
and also after "apply all": anything under ``.git/`` (hooks, config), the project's ``.zett/``
and zett's own settings (``protected_paths``; the payload says why in ``protected``).

Paths are decided by the real path, resolved the way the tool resolves it (symlinks and ``..``
followed), so a link inside the project that points outside is a change outside. A hard link
needs nothing: the tool writes a temporary file and renames it over the name, so the other
name's file is never written through.

zett-agent writes through a temporary file, which leaves every written file 0600; this
extension puts the original permission bits back (an executable stays executable) and gives a
new file the bits the umask allows, as an editor would.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
import os
import stat
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.external import ExternalEventExtension
from zett_agent.messages import ToolCall
from zett_agent.tools.coding import MAX_FILE_BYTES, FileEdit

from zett_tui.runtime.agent_compat import (
    apply_file_edits,
    read_working_text,
    resolve_tool_path,
    take_external_event,
    wait_for_external_event,
)
from zett_tui.runtime.decisions.edit import EDIT_CHOICES, EditReply
from zett_tui.runtime.files.protected_paths import is_inside, protected_reason
from zett_tui.runtime.modes import PermissionMode

log = logging.getLogger(__name__)

GATED_TOOLS = frozenset({"write_file", "edit", "delete_file"})
EDIT_APPROVAL_EVENT = "edit_approval_requested"
EDIT_APPROVAL_RESPONSE = "edit_approval_response"
DECISIONS = EDIT_CHOICES

ModeOf = Callable[[str], PermissionMode]
IsExempt = Callable[[str, Path], bool]


class EditRejected(RuntimeError):
    """The user did not apply a change; the message tells the model what to do instead."""


@dataclass(frozen=True, slots=True)
class FileChange:
    """What a gated tool call would do to one file."""

    operation: str  # "create" | "write" | "edit" | "delete"
    diff: str
    added: int
    removed: int

    @property
    def changes_nothing(self) -> bool:
        return self.operation in ("write", "edit") and not self.diff


class EditApprovalExtension(ExternalEventExtension):
    """Ask before ``write_file``/``edit``/``delete_file`` change a file, showing the diff."""

    def __init__(
        self,
        mode_of: ModeOf | None = None,
        *,
        project_root: Path | None = None,
        is_exempt: IsExempt | None = None,
    ) -> None:
        super().__init__(response_event_name=EDIT_APPROVAL_RESPONSE, correlation_field="tool_call_id")
        self.mode_of = mode_of or (lambda _session_id: PermissionMode.ASK)
        self.project_root = project_root
        self.is_exempt = is_exempt or (lambda _session_id, _path: False)
        self._apply_all: set[str] = set()
        #: The session whose "apply all" counts for ``session_id``: a subagent's is its main
        #: session's (zett sets this; the default is the session itself).
        self.session_of: Callable[[str], str] = lambda session_id: session_id

    # -- UI controls ---------------------------------------------------------------------------

    def approve_all(self, session_id: str) -> None:
        """Apply the rest of this session's edits without asking (inside the project)."""
        self._apply_all.add(self.session_of(session_id))

    def reset(self, session_id: str) -> None:
        """Ask again for every edit of this session."""
        self._apply_all.discard(self.session_of(session_id))

    def approves_all(self, session_id: str) -> bool:
        return self.session_of(session_id) in self._apply_all

    # -- middleware ----------------------------------------------------------------------------

    async def on_tool_call(
        self,
        context: AgentRunContext,
        call: ToolCall,
        call_next: Callable[[], Awaitable[Any]],
    ) -> Any:
        if call.name not in GATED_TOOLS:
            return await call_next()
        session_id = context.session_id
        path = call.arguments.get("path")
        target = _target_of(path)
        if target is None or self.is_exempt(session_id, target):
            return await call_next()
        root = (self.project_root or Path.cwd()).resolve()
        outside = not is_inside(target, root)
        protected = protected_reason(target, root)
        if not outside and protected is None and self._applies_without_asking(session_id):
            return await _run_keeping_mode(call_next, target)
        change = await asyncio.to_thread(plan_change, call.name, call.arguments)
        if change is None or change.changes_nothing:
            if outside and os.path.lexists(target):
                # Run unasked, the tool's answer ("not found", "differs only in whitespace", "no
                # change") would tell the model about a file outside the project it may not read.
                await _may_read(context, call, target)
            if change is None:
                return await _run_expecting_failure(call_next, target)
            return await _run_keeping_mode(call_next, target)
        payload = {
            "session_id": session_id,
            "tool_call_id": call.id,
            "tool": call.name,
            "path": path,
            "absolute_path": str(target),
            "operation": change.operation,
            "diff": change.diff,
            "added": change.added,
            "removed": change.removed,
            "outside_project": outside,
            "protected": protected,
            "response_event": EDIT_APPROVAL_RESPONSE,
        }
        async with wait_for_external_event(self, context, call.id):
            await context.emit(
                AgentEvent(
                    AgentEventType.CUSTOM,
                    session_id=session_id,
                    tool_calls=[call],
                    name=EDIT_APPROVAL_EVENT,
                    payload=payload,
                )
            )
        reply = EditReply.parse(take_external_event(self, context).payload)
        if reply.choice == "reject":
            raise EditRejected(rejection_message(change.operation, str(path), reply.note or None))
        if reply.choice == "apply_all":
            self._apply_all.add(self.session_of(session_id))
        return await _run_keeping_mode(call_next, target)

    def _applies_without_asking(self, session_id: str) -> bool:
        mode = self.mode_of(session_id)
        return mode in (PermissionMode.ACCEPT_EDITS, PermissionMode.AUTO) or self.approves_all(session_id)


def rejection_message(operation: str, path: str, note: str | None) -> str:
    what = {
        "create": f"The user did not let you create {path}. Nothing was written.",
        "delete": f"The user did not let you delete {path}. The file is still there, unchanged.",
        "write": f"The user did not apply this write to {path}. The file is unchanged.",
    }.get(operation, f"The user did not apply this edit to {path}. The file is unchanged.")
    if note and note.strip():
        return f"{what} Their note: {note.strip()}"
    return f"{what} Ask the user what they want instead, or take another approach."


# -- what a call would change ---------------------------------------------------------------------


def plan_change(tool: str, arguments: dict[str, Any]) -> FileChange | None:
    """The change a gated call would make, or None when the tool is certain to refuse it.

    Mirrors the checks of zett-agent's tools; where it is unsure it returns a change (the user
    is asked and the tool has the last word), never None.
    """
    path = arguments.get("path")
    target = _target_of(path)
    if target is None or not isinstance(path, str):
        return None
    try:
        if tool == "write_file":
            return _plan_write(path, target, arguments)
        if tool == "edit":
            return _plan_edit(path, target, arguments)
        if tool == "delete_file":
            return _plan_delete(path, target)
    except (OSError, ValueError):
        return None
    return None


def _plan_write(path: str, target: Path, arguments: dict[str, Any]) -> FileChange | None:
    content = arguments.get("content")
    overwrite = arguments.get("overwrite", True)
    if not isinstance(content, str) or len(content.encode("utf-8")) > MAX_FILE_BYTES:
        return None
    if target.exists() and not target.is_file():
        return None
    if not target.exists():
        return _change("create", path, None, content)
    if overwrite is False:
        return None
    return _change("write", path, _old_text(target), content)


def _plan_edit(path: str, target: Path, arguments: dict[str, Any]) -> FileChange | None:
    raw_edits = arguments.get("edits")
    if not isinstance(raw_edits, list) or not raw_edits or not target.is_file():
        return None
    edits = [FileEdit.model_validate(item) for item in raw_edits]
    old = read_working_text(target)
    new, _ = apply_file_edits(old, edits)
    if len(new.encode("utf-8")) > MAX_FILE_BYTES:
        return None
    return _change("edit", path, old, new)


def _plan_delete(path: str, target: Path) -> FileChange | None:
    if not target.is_file():
        return None
    return _change("delete", path, _old_text(target), None)


def _old_text(target: Path) -> str:
    """The current text for the diff; a placeholder line when it cannot be shown as text."""
    try:
        size = target.stat().st_size
        if size > MAX_FILE_BYTES:
            return f"(a file of {size} bytes, too large to show)\n"
        data = target.read_bytes()
    except OSError as error:
        return f"(current content cannot be read: {error.strerror or error})\n"
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"(binary or non-UTF-8 content, {size} bytes)\n"


def _change(operation: str, path: str, old: str | None, new: str | None) -> FileChange:
    diff, added, removed = unified_diff(path, old, new)
    return FileChange(operation, diff, added, removed)


def unified_diff(path: str, old: str | None, new: str | None) -> tuple[str, int, int]:
    """A unified diff (``None`` = the file does not exist on that side) and its +/- line counts."""
    label = path if path.startswith("/") else None
    fromfile = "/dev/null" if old is None else (label or f"a/{path}")
    tofile = "/dev/null" if new is None else (label or f"b/{path}")
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile=fromfile,
        tofile=tofile,
    )
    out: list[str] = []
    added = removed = 0
    for index, line in enumerate(lines):
        if index >= 2:
            added += line.startswith("+")
            removed += line.startswith("-")
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out), added, removed


# -- running the tool -----------------------------------------------------------------------------


def _target_of(path: object) -> Path | None:
    if not isinstance(path, str) or not path:
        return None
    try:
        target = resolve_tool_path(path)
    except (OSError, RuntimeError, ValueError):
        return None
    return target


async def _run_keeping_mode(call_next: Callable[[], Awaitable[Any]], target: Path) -> Any:
    """Run the tool, then give the file back its permission bits (a new one: what umask allows)."""
    try:
        before: int | None = stat.S_IMODE(target.stat().st_mode) if target.is_file() else None
    except OSError:
        before = None
    result = await call_next()
    wanted = before if before is not None else 0o666 & ~_umask()
    try:
        if target.is_file() and stat.S_IMODE(target.stat().st_mode) != wanted:
            os.chmod(target, wanted)
    except OSError:
        log.warning("could not restore the permissions of %s", target, exc_info=True)
    return result


async def _may_read(context: AgentRunContext, call: ToolCall, target: Path) -> None:
    """Ask the read gate whether the model may read ``target``; without a gate, it may not."""
    from zett_tui.runtime.files.read_gate import require_read

    try:
        await require_read(context, call, [target])
    except RuntimeError as error:  # no read gate in this agent: refuse rather than answer
        raise EditRejected(
            f"{target} is outside the project folder and this change cannot be shown for approval; "
            "nothing was changed."
        ) from error


async def _run_expecting_failure(call_next: Callable[[], Awaitable[Any]], target: Path) -> Any:
    """Run a call the tool should refuse; if it changed the file after all, undo that and fail.

    A safety net: nothing is written without approval even if these checks and the tool's
    ever disagree.
    """
    snapshot = _Snapshot.take(target)
    result = await call_next()
    if snapshot is not None and snapshot.differs():
        snapshot.restore()
        raise RuntimeError(
            f"The change to {target} could not be shown for approval, so it was undone. Try again."
        )
    return result


@dataclass(frozen=True, slots=True)
class _Snapshot:
    target: Path
    data: bytes | None
    mode: int | None

    @classmethod
    def take(cls, target: Path) -> _Snapshot | None:
        try:
            if not target.exists():
                return cls(target, None, None)
            if not target.is_file() or target.stat().st_size > MAX_FILE_BYTES:
                return None
            return cls(target, target.read_bytes(), stat.S_IMODE(target.stat().st_mode))
        except OSError:
            return None

    def differs(self) -> bool:
        try:
            if self.data is None:
                return self.target.is_file()
            return not self.target.is_file() or self.target.read_bytes() != self.data
        except OSError:
            return True

    def restore(self) -> None:
        if self.data is None:
            self.target.unlink(missing_ok=True)
            return
        self.target.write_bytes(self.data)
        if self.mode is not None:
            os.chmod(self.target, self.mode)


def _umask() -> int:
    """The process umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current
