"""zett's UI events as ACP session updates: the answer and reasoning as chunks, tool calls with
their kind, title, locations, live output, and an edit's diff (the file before and after)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp import helpers
from acp.schema import ToolCallLocation, UsageUpdate

from zett_tui.runtime.events import (
    ContextMeasured,
    ReasoningChunk,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    TextChunk,
    TodoChanged,
    ToolCallInfo,
    ToolFinished,
    ToolOutputLive,
    ToolsStarted,
    TurnFinished,
    UIEvent,
)

__all__ = ["ToolRows", "kind_of"]

KINDS = {
    "read_file": "read",
    "view_image": "read",
    "glob": "search",
    "grep": "search",
    "write_file": "edit",
    "edit": "edit",
    "delete_file": "delete",
    "bash": "execute",
    "web_fetch": "fetch",
    "ask_user": "think",
    "todo_write": "think",
    "task": "think",
    "enter_plan_mode": "switch_mode",
    "exit_plan_mode": "switch_mode",
}
EDITING = ("write_file", "edit", "delete_file")
#: Tool output sent to the editor is cut here (the model's copy is the runtime's business).
OUTPUT_LIMIT = 20_000
MAX_DIFF_BYTES = 2 * 1024 * 1024


PlanStatus = Literal["pending", "in_progress", "completed"]
PLAN_STATUSES: dict[str, PlanStatus] = {"in_progress": "in_progress", "completed": "completed"}


def plan_update(event: TodoChanged) -> Any:
    """The model's checklist as the editor's plan (an empty one clears it)."""
    entries = []
    for item in event.items:
        status = PLAN_STATUSES.get(item.status, "pending")
        entries.append(helpers.plan_entry(item.label, status=status))
    return helpers.update_plan(entries)


def kind_of(name: str) -> str:
    return KINDS.get(name, "other")


def _text(text: str) -> Any:
    return helpers.tool_content(helpers.text_block(text))


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_DIFF_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@dataclass(frozen=True)
class Subagent:
    """A running subagent: the ``task`` call that started it, and how its rows are titled."""

    #: The id the editor knows its ``task`` row by (a subagent's own subagent's is prefixed too).
    call_id: str
    #: ``type: description``: who asks, in a question's title.
    label: str
    #: What its rows' titles start with: its job, after its parent subagent's (``›`` between).
    description: str


@dataclass
class ToolRows:
    """The updates for one session: remembers each edit's file as it was, for its diff, and
    each running subagent, whose tool calls become rows of their own (ACP has no nesting): their
    ids are the ``task`` call's id, ``/``, their own; their titles start with the task's
    description and ``›``; ``_meta.zett.parentToolCallId`` names the ``task`` call. A subagent's
    own subagent (``[subagents] max_depth`` above 1) goes one step further: its ``task`` row is
    its parent's row ``t1/t2``, its rows ``t1/t2/c1``, titled ``job › its job › ...``."""

    cwd: Path
    #: Calls the user said no to (by the id the editor knows them by): their update says so.
    declined: set[str] = field(default_factory=set)
    _before: dict[str, tuple[Path, str | None]] = field(default_factory=dict)
    #: Running subagents by their session id.
    _children: dict[str, Subagent] = field(default_factory=dict)
    #: The rows started and not yet ended (by the id the editor knows them by), in order: those
    #: a cancelled or failed turn left running are ended with it.
    _open: dict[str, None] = field(default_factory=dict)

    def subagent(self, session_id: str) -> Subagent | None:
        """The subagent whose session this is (None: the main session)."""
        return self._children.get(session_id)

    def editor_id(self, session_id: str, call_id: str) -> str:
        """The id the editor knows a call by (a subagent's calls are prefixed)."""
        child = self._children.get(session_id)
        return f"{child.call_id}/{call_id}" if child is not None else call_id

    def updates(self, event: UIEvent) -> list[Any]:
        if isinstance(event, TextChunk):
            return [helpers.update_agent_message_text(event.text)]
        if isinstance(event, ReasoningChunk):
            return [helpers.update_agent_thought_text(event.text)]
        if isinstance(event, ContextMeasured):
            return [UsageUpdate(session_update="usage_update", used=event.tokens, size=event.window)]
        if isinstance(event, TodoChanged):
            return [plan_update(event)]
        if isinstance(event, SubagentStarted):
            return [self._subagent_started(event)]
        if isinstance(event, SubagentActivity):
            child = self._child_of(event.session_id, event.call_id)
            return self._tool_updates(event.event, child) if child is not None else []
        if isinstance(event, SubagentFinished):
            child = self._child_of(event.session_id, event.call_id)
            self._children = {key: kid for key, kid in self._children.items() if kid is not child}
            return []
        if isinstance(event, TurnFinished):
            return self._left_running(event)
        return self._tool_updates(event, None)

    def _left_running(self, event: TurnFinished) -> list[Any]:
        """The rows a turn that ended left running (a cancel stops tools and subagents without a
        result of their own): ended as ``failed``, ``zett_state`` saying why, so no row in the
        editor spins on."""
        state = "cancelled" if event.status == "cancelled" else "interrupted"
        said = "Stopped: the turn was cancelled." if state == "cancelled" else "Stopped: the turn ended."
        rows, self._open = list(self._open), {}
        self._children.clear()
        self._before.clear()
        return [
            helpers.update_tool_call(
                row, status="failed", content=[_text(said)], raw_output={"zett_state": state}
            )
            for row in rows
        ]

    def _child_of(self, session_id: str, call_id: str) -> Subagent | None:
        """The running subagent an event names: by its session, or (an event that names none) the
        first whose ``task`` call is ``call_id``."""
        if session_id:
            return self._children.get(session_id)
        return next((kid for kid in self._children.values() if kid.call_id == call_id), None)

    def _subagent_started(self, event: SubagentStarted) -> Any:
        label = f"{event.agent_type}: {' '.join(event.description.split())}"
        parent = self._children.get(event.parent_session_id)
        row = self.editor_id(event.parent_session_id, event.call_id)
        described = " ".join(event.description.split())
        if parent is not None:
            described = f"{parent.description} › {described}"
        self._children[event.session_id] = Subagent(row, label, described)
        said = f"{event.agent_type} subagent" + (f" on {event.model}" if event.model else "")
        update = helpers.update_tool_call(row, status="in_progress", content=[_text(said)])
        if parent is None:
            return update
        return update.model_copy(update={"field_meta": {"zett": {"parentToolCallId": parent.call_id}}})

    def _tool_updates(self, event: Any, child: Subagent | None) -> list[Any]:
        prefix = f"{child.call_id}/" if child is not None else ""
        updates: list[Any] = []
        if isinstance(event, ToolsStarted):
            updates = [self._started(call, prefix, child) for call in event.calls]
        elif isinstance(event, ToolOutputLive):
            updates = [
                helpers.update_tool_call(
                    prefix + event.call_id, status="in_progress", content=[_text("\n".join(event.lines))]
                )
            ]
        elif isinstance(event, ToolFinished):
            updates = [self._finished(event, prefix + event.call_id)]
        if child is None:
            return updates
        meta = {"zett": {"parentToolCallId": child.call_id}}
        return [update.model_copy(update={"field_meta": meta}) for update in updates]

    def _path(self, call: ToolCallInfo) -> Path | None:
        value = call.arguments.get("path")
        if not isinstance(value, str) or not value:
            return None
        path = Path(os.path.expanduser(value))
        return path if path.is_absolute() else self.cwd / path

    def _started(self, call: ToolCallInfo, prefix: str, child: Subagent | None) -> Any:
        call_id = prefix + call.call_id
        self._open[call_id] = None
        path = self._path(call)
        if call.name in EDITING and path is not None:
            self._before[call_id] = (path, _read(path))
        title = f"{call.name} {call.key_argument}".strip()
        if call.name == "task":
            described = call.arguments.get("description")
            title = " ".join(described.split()) if isinstance(described, str) and described.strip() else title
        if child is not None:
            title = f"{child.description} › {title}"
        return helpers.start_tool_call(
            call_id,
            title,
            kind=kind_of(call.name),  # type: ignore[arg-type]
            status="in_progress",
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
            raw_input=call.arguments,
        )

    def _finished(self, event: ToolFinished, call_id: str) -> Any:
        self._open.pop(call_id, None)
        before = self._before.pop(call_id, None)
        declined = call_id in self.declined
        self.declined.discard(call_id)
        status: Literal["completed", "failed"] = "completed" if event.state == "done" else "failed"
        content = []
        if before is not None and event.state == "done":
            path, old = before
            new = _read(path)
            content.append(helpers.tool_diff_content(str(path), new if new is not None else "", old))
        output = event.output if len(event.output) <= OUTPUT_LIMIT else event.output[:OUTPUT_LIMIT] + "\n…"
        if declined:
            output = "Declined by the user." + (f"\n{output}" if output else "")
        if output:
            content.append(_text(output))
        state = "declined" if declined else event.state
        return helpers.update_tool_call(
            call_id, status=status, content=content or None, raw_output={"zett_state": state}
        )
