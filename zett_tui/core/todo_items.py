"""The model's checklist as data: its items, how a ``todo_write`` list is checked, and its
one-line summary. No runtime import here: the screen's first frame uses it (``runtime.todo`` has
the tool)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TODO_TOOL = "todo_write"
STATUSES = ("pending", "in_progress", "completed")
MAX_ITEMS = 100
MAX_TEXT = 500


@dataclass(frozen=True, slots=True)
class TodoItem:
    content: str
    status: str
    active_form: str = ""

    @property
    def label(self) -> str:
        """What the checklist shows: the step in progress by its ``activeForm``."""
        if self.status == "in_progress" and self.active_form:
            return self.active_form
        return self.content

    def as_json(self) -> dict[str, str]:
        return {"content": self.content, "status": self.status, "activeForm": self.active_form}


def _one_line(value: str) -> str:
    text = " ".join(value.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def parse_todos(value: Any) -> tuple[TodoItem, ...]:
    """The list the model sent, checked; raises ``ValueError`` saying what is wrong."""
    if not isinstance(value, list):
        raise ValueError("todos must be a list of {content, status, activeForm} objects")
    if len(value) > MAX_ITEMS:
        raise ValueError(f"todos holds {len(value)} items; at most {MAX_ITEMS} are allowed")
    items: list[TodoItem] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, Mapping):
            raise ValueError(f"todos[{index}] must be an object with content, status and activeForm")
        content, status, active = entry.get("content"), entry.get("status"), entry.get("activeForm", "")
        if not isinstance(content, str) or not content.strip():
            raise ValueError(f"todos[{index}].content must be a non-empty string")
        if status not in STATUSES:
            raise ValueError(f"todos[{index}].status must be one of {', '.join(STATUSES)}")
        if not isinstance(active, str):
            raise ValueError(f"todos[{index}].activeForm must be a string")
        items.append(TodoItem(_one_line(content), str(status), _one_line(active)))
    return tuple(items)


def summary(items: Sequence[TodoItem]) -> str:
    """``3 tasks: 1 done, 1 in progress, 1 pending`` (what the model and a collapsed row read)."""
    if not items:
        return "Checklist cleared."
    counts = {status: sum(1 for item in items if item.status == status) for status in STATUSES}
    parts = [
        f"{counts['completed']} done",
        f"{counts['in_progress']} in progress",
        f"{counts['pending']} pending",
    ]
    noun = "task" if len(items) == 1 else "tasks"
    return f"{len(items)} {noun}: " + ", ".join(parts)


@dataclass
class TodoBoard:
    """The session's checklist as it stands, and who wants to hear when it changes."""

    items: tuple[TodoItem, ...] = ()
    #: The main agent's ``todo_write`` calls that succeeded in the turn running (or the last one).
    writes: int = 0

    def replace(self, items: Iterable[TodoItem]) -> None:
        self.items = tuple(items)

    def clear(self) -> None:
        self.items = ()


def todos_from_arguments(arguments_json: str) -> tuple[TodoItem, ...] | None:
    """The list one recorded ``todo_write`` call set, or None when its arguments are unusable."""
    try:
        arguments = json.loads(arguments_json)
    except (TypeError, ValueError):
        return None
    if not isinstance(arguments, dict):
        return None
    try:
        return parse_todos(arguments.get("todos"))
    except ValueError:
        return None
