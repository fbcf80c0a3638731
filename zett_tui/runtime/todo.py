"""The model's checklist: ``todo_write`` (Claude Code's ``TodoWrite`` shape), kept by zett.

Each call replaces the whole list: ``todos: [{content, status, activeForm}]`` with ``status`` one
of ``pending``, ``in_progress``, ``completed``. Unlike zett-agent's ``TodoWriteExtension`` the list
outlives the request (the next turn starts from it, and a resumed session gets it back from the
session file: the last ``todo_write`` call that succeeded), the model may add, drop, reorder and
reword items, and an empty list clears it. The tool answers with one short line, so a change
costs the model no extra request; the UI hears of it through a ``todo_changed`` CUSTOM event.

No Textual here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zett_agent.agent import AgentRunContext
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.base import AgentExtension
from zett_agent.tools.base import AgentTool

from zett_tui.core.todo_items import (
    MAX_ITEMS,
    STATUSES,
    TODO_TOOL,
    TodoBoard,
    TodoItem,
    parse_todos,
    summary,
    todos_from_arguments,
)

if TYPE_CHECKING:
    from zett_tui.runtime.recorder import TurnRecorder

log = logging.getLogger(__name__)

__all__ = [
    "TODO_EVENT",
    "TODO_TOOL",
    "SessionTodos",
    "TodoBoard",
    "TodoExtension",
    "TodoItem",
    "parse_todos",
    "summary",
    "todos_from_arguments",
]

#: The CUSTOM event the tool sends with the new list: ``{"todos": [{content, status, activeForm}]}``.
TODO_EVENT = "todo_changed"

TODO_DESCRIPTION = (
    "Keep a checklist of the steps of the current task, shown to the user above the prompt. "
    "Send the whole list each time (it replaces the previous one): add, drop, reorder or reword "
    "items as the work changes. Mark one item in_progress while you work on it and completed as "
    "soon as it is done. Use it for work of three steps or more; an empty list clears it."
)

TODO_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "description": "The complete, ordered list (replaces the previous one).",
            "maxItems": MAX_ITEMS,
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "description": "The step, imperative: 'Run the tests'."},
                    "status": {"type": "string", "enum": list(STATUSES)},
                    "activeForm": {
                        "type": "string",
                        "description": "The step while it runs, continuous: 'Running the tests'.",
                    },
                },
                "required": ["content", "status", "activeForm"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["todos"],
    "additionalProperties": False,
}


class TodoExtension(AgentExtension):
    """Registers ``todo_write`` for the host's session (a subagent keeps no list of its own on
    screen: its calls are answered, and ignored by the board)."""

    name = "ZettTodos"

    def __init__(self, board: TodoBoard, *, is_main_session: Callable[[str], bool]) -> None:
        self.board = board
        self._is_main = is_main_session

    async def before_run(self, context: AgentRunContext) -> None:
        if self._is_main(context.session_id):
            self.board.writes = 0

    async def on_tool(self, context: AgentRunContext) -> None:
        context.register_tool(self._tool(context))

    def _tool(self, context: AgentRunContext) -> AgentTool:
        board, main = self.board, self._is_main(context.session_id)

        async def todo_write(todos: Any = None, **unknown: Any) -> str:
            if unknown:
                raise ValueError(f"todo_write takes only todos (got {', '.join(sorted(unknown))})")
            items = parse_todos(todos)
            if main:
                board.replace(items)
                board.writes += 1
                payload = {"todos": [item.as_json() for item in items]}
                await context.emit(
                    AgentEvent(
                        AgentEventType.CUSTOM, session_id=context.session_id, name=TODO_EVENT, payload=payload
                    )
                )
            return summary(items)

        return AgentTool(
            name=TODO_TOOL,
            description=TODO_DESCRIPTION,
            parameters=TODO_PARAMETERS,
            handler=todo_write,
            guidelines=(),
        )


class SessionTodos:
    """A host's checklist: the board the UI shows, got back from the session file on resume, the
    ``todo_write`` tool of the main session, and ``/todo clear`` recorded in the file at once."""

    def __init__(self, is_main_session: Callable[[str], bool]) -> None:
        self.board = TodoBoard()
        self._is_main = is_main_session

    def extension(self) -> TodoExtension:
        return TodoExtension(self.board, is_main_session=self._is_main)

    async def restore(self, transcript: Path) -> None:
        """A resumed session: the checklist as its file left it (``sessions.todo_state``)."""
        from zett_tui.sessions.todo_state import recorded_todos

        self.board.replace(await asyncio.to_thread(recorded_todos, transcript))

    async def clear(self, recorder: TurnRecorder | None, session_id: str) -> bool:
        """``/todo clear``: the list is emptied, and a line of the session file says so now (a
        crash or a quit right after keeps it). False when that line waits for the disk (it is
        written with the next turn's) or there was no list to clear."""
        had_items = bool(self.board.items)
        self.board.clear()
        if recorder is None or not had_items:
            return False
        from zett_tui.sessions.todo_state import clear_mark

        # A turn running now writes its line after this one: it says which of its writes came first.
        recorder.journal.note_todos_cleared(self.board.writes)

        try:
            return await recorder.append_record(session_id, clear_mark(session_id))
        except Exception:  # the list is cleared on screen; the recorder says when the disk fails
            log.warning("the cleared checklist could not be recorded", exc_info=True)
            return False
