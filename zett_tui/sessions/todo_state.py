"""The model's checklist as a session file left it: the last ``todo_write`` that succeeded, or
nothing after a ``/todo clear`` (a turn's ``zett.todos_cleared``) or a turn rewound out of the
model's context. Read once, when a session is resumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zett_tui.core.todo_items import TODO_TOOL, TodoItem, todos_from_arguments
from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.reader import TurnRecord, iter_records, zett_metadata
from zett_tui.sessions.rewind_marks import mark_of, read_rewound


def recorded_todos(path: Path) -> tuple[TodoItem, ...]:
    """The checklist at the end of ``path`` (empty when it has none or cannot be read)."""
    if not path.exists():
        return ()
    rewound = read_rewound(path)
    items: tuple[TodoItem, ...] = ()
    for record in iter_records(path, ReadNotices(detail_limit=0)):
        if mark_of(record.data) is not None or record.data.get("request_id") in rewound:
            continue
        if zett_metadata(record.data).get("todos_cleared") is True:
            items = ()
        found = _last_write(record)
        if found is not None:
            items = found
    return items


def _last_write(record: TurnRecord) -> tuple[TodoItem, ...] | None:
    """The list the turn's last successful ``todo_write`` set, or None when it made none."""
    failed = {
        result.get("tool_call_id")
        for envelope in record.messages
        if envelope.get("kind") == 4 and (result := envelope.get("data") or {}).get("success") is False
    }
    found: tuple[TodoItem, ...] | None = None
    for envelope in record.messages:
        data: Any = envelope.get("data")
        if envelope.get("kind") != 3 or not isinstance(data, dict):
            continue
        for call in data.get("tool_calls") or ():
            if not isinstance(call, dict) or call.get("name") != TODO_TOOL or call.get("id") in failed:
                continue
            items = todos_from_arguments(json.dumps(call.get("arguments")))
            if items is not None:
                found = items
    return found
