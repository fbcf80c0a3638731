"""How a tool call is named on its row, live and when a recorded session is painted again."""

from __future__ import annotations

from typing import Any

from zett_tui.core.inert_text import one_line

#: The argument that best identifies a call of each known tool.
KEY_ARGUMENTS = {
    "bash": "command",
    "read_file": "path",
    "write_file": "path",
    "edit": "path",
    "delete_file": "path",
    "view_image": "path",
    "glob": "pattern",
    "grep": "pattern",
    "ask_user": "question",
    "enter_plan_mode": "reason",
    "task": "description",
}

#: For other tools, the first of these that holds text.
GENERIC_KEYS = ("command", "path", "file_path", "pattern", "url", "query", "question", "name")

KEY_ARG_CHARS = 80


def key_argument(name: str, arguments: Any) -> str:
    """The one argument that tells a person what a tool call does, on one short line."""
    if not isinstance(arguments, dict):
        return ""
    keys = (KEY_ARGUMENTS[name], *GENERIC_KEYS) if name in KEY_ARGUMENTS else GENERIC_KEYS
    value: object = next(
        (arguments[k] for k in keys if isinstance(arguments.get(k), str) and arguments[k].strip()), None
    )
    if value is None:
        for candidate in arguments.values():
            if isinstance(candidate, str) and candidate.strip():
                value = candidate
                break
            if isinstance(candidate, list):
                value = f"{len(candidate)} item{'s' if len(candidate) != 1 else ''}"
                break
    return one_line(str(value), KEY_ARG_CHARS) if value is not None else ""
