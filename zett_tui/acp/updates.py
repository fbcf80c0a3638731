"""zett's UI events as ACP session updates: the answer and reasoning as chunks, tool calls with
their kind, title, locations, live output, and an edit's diff (the file before and after)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp import helpers
from acp.schema import ToolCallLocation, UsageUpdate

from zett_tui.runtime.events import (
    ContextMeasured,
    ReasoningChunk,
    TextChunk,
    ToolCallInfo,
    ToolFinished,
    ToolOutputLive,
    ToolsStarted,
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
    "enter_plan_mode": "switch_mode",
    "exit_plan_mode": "switch_mode",
}
EDITING = ("write_file", "edit", "delete_file")
#: Tool output sent to the editor is cut here (the model's copy is the runtime's business).
OUTPUT_LIMIT = 20_000
MAX_DIFF_BYTES = 2 * 1024 * 1024


PlanStatus = Literal["pending", "in_progress", "completed"]


def plan_update(event: ToolFinished) -> Any | None:
    """The todo list a ``todo_write`` call left (its result: ``{"todos": [{"content", "status"}]}``)
    as the editor's plan; None when the result is not that shape."""
    try:
        result = json.loads(event.output)
    except ValueError:
        return None
    todos = result.get("todos") if isinstance(result, dict) else None
    if not isinstance(todos, list):
        return None
    entries = []
    for todo in todos:
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None
        given = todo.get("status")
        status: PlanStatus = given if given == "in_progress" or given == "completed" else "pending"
        entries.append(helpers.plan_entry(todo["content"], status=status))
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


@dataclass
class ToolRows:
    """The updates for one session: remembers each edit's file as it was, for its diff."""

    cwd: Path
    #: Calls the user said no to: their update says so.
    declined: set[str] = field(default_factory=set)
    _before: dict[str, tuple[Path, str | None]] = field(default_factory=dict)

    def updates(self, event: UIEvent) -> list[Any]:
        if isinstance(event, TextChunk):
            return [helpers.update_agent_message_text(event.text)]
        if isinstance(event, ReasoningChunk):
            return [helpers.update_agent_thought_text(event.text)]
        if isinstance(event, ToolsStarted):
            return [self._started(call) for call in event.calls]
        if isinstance(event, ToolOutputLive):
            return [
                helpers.update_tool_call(
                    event.call_id, status="in_progress", content=[_text("\n".join(event.lines))]
                )
            ]
        if isinstance(event, ToolFinished):
            plan = plan_update(event) if event.name == "todo_write" and event.state == "done" else None
            return [self._finished(event), *([plan] if plan is not None else [])]
        if isinstance(event, ContextMeasured):
            return [UsageUpdate(session_update="usage_update", used=event.tokens, size=event.window)]
        return []

    def _path(self, call: ToolCallInfo) -> Path | None:
        value = call.arguments.get("path")
        if not isinstance(value, str) or not value:
            return None
        path = Path(os.path.expanduser(value))
        return path if path.is_absolute() else self.cwd / path

    def _started(self, call: ToolCallInfo) -> Any:
        path = self._path(call)
        if call.name in EDITING and path is not None:
            self._before[call.call_id] = (path, _read(path))
        title = f"{call.name} {call.key_argument}".strip()
        return helpers.start_tool_call(
            call.call_id,
            title,
            kind=kind_of(call.name),  # type: ignore[arg-type]
            status="in_progress",
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
            raw_input=call.arguments,
        )

    def _finished(self, event: ToolFinished) -> Any:
        before = self._before.pop(event.call_id, None)
        declined = event.call_id in self.declined
        self.declined.discard(event.call_id)
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
            event.call_id, status=status, content=content or None, raw_output={"zett_state": state}
        )
