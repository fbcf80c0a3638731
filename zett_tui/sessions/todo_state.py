"""The model's checklist as a session file left it: the last ``todo_write`` that succeeded, or
nothing after a ``/todo clear`` or a turn rewound out of the model's context. Read once, when a
session is resumed.

``/todo clear`` is recorded at once, as a line of its own (:func:`clear_mark`): a rewind mark that
rewinds nothing (so every reader already skips it as a mark, and it changes no turn's place in
the context) with ``metadata.zett.todos_cleared``. Older files carry the flag on the next turn's
line instead; both are read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zett_tui.core.todo_items import TODO_TOOL, TodoItem, todos_from_arguments
from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.reader import TurnRecord, iter_records, zett_metadata
from zett_tui.sessions.rewind_marks import mark_of, mark_record, read_rewound

CLEARED = "todos_cleared"


def clear_mark(session_id: str) -> dict[str, Any]:
    """The session-file line that says the user cleared the checklist (``/todo clear``)."""
    record = mark_record(session_id, target="", rewound=(), restored=())
    record["request_id"] = record["request_id"].replace("rewind-", "todos-cleared-", 1)
    record["metadata"] = {"zett": {CLEARED: True}}
    return record


def recorded_todos(path: Path) -> tuple[TodoItem, ...]:
    """The checklist at the end of ``path`` (empty when it has none or cannot be read)."""
    if not path.exists():
        return ()
    rewound = read_rewound(path)
    items: tuple[TodoItem, ...] = ()
    for record in iter_records(path, ReadNotices(detail_limit=0)):
        cleared = zett_metadata(record.data).get(CLEARED) is True
        if mark_of(record.data) is not None:
            items = () if cleared else items
            continue
        if record.data.get("request_id") in rewound:
            continue
        if cleared:
            items = ()
        after = zett_metadata(record.data).get("todos_cleared_after")
        found = _last_write(record, skip=after if isinstance(after, int) and after >= 0 else None)
        if found is not None:
            items = found
    return items


def _last_write(record: TurnRecord, skip: int | None = None) -> tuple[TodoItem, ...] | None:
    """The list the turn's last successful ``todo_write`` set, or None when it made none.
    ``skip``: ``/todo clear`` came during the turn after that many of them: the list is empty
    unless a later one set it again."""
    failed = {
        result.get("tool_call_id")
        for envelope in record.messages
        if envelope.get("kind") == 4 and (result := envelope.get("data") or {}).get("success") is False
    }
    found: tuple[TodoItem, ...] | None = None
    seen = 0
    for envelope in record.messages:
        data: Any = envelope.get("data")
        if envelope.get("kind") != 3 or not isinstance(data, dict):
            continue
        for call in data.get("tool_calls") or ():
            if not isinstance(call, dict) or call.get("name") != TODO_TOOL or call.get("id") in failed:
                continue
            items = todos_from_arguments(json.dumps(call.get("arguments")))
            if items is None:
                continue
            seen += 1
            found = items if skip is None or seen > skip else ()
    return found
