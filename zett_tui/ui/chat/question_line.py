"""One line saying what a runtime question asks, for a notification ("Run pytest -q?").

The payload fields are the ones ``answers`` reads (its docstring lists the formats); a field
missing or of the wrong type gives a shorter line, never an error. The line may hold model text:
``zett_tui.terminal.notify`` makes it safe before it goes into an escape sequence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from zett_tui.runtime.events import DecisionRequested

__all__ = ["question_line"]


def _text(payload: Mapping[str, Any], key: str) -> str:
    value = payload.get(key)
    return value if isinstance(value, str) else ""


_LINES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "shell_approval_requested": lambda p: f"Run {_text(p, 'command')}?",
    "sandbox_escape_requested": lambda p: f"Run outside the sandbox: {_text(p, 'command')}?",
    "edit_approval_requested": lambda p: (
        f"{_text(p, 'operation').capitalize() or 'Edit'} {_text(p, 'path')}?"
    ),
    "read_access_requested": lambda p: f"Read {_text(p, 'path')}?",
    "mcp_approval_requested": lambda p: f"Call {_text(p, 'server')} {_text(p, 'tool')}?",
    "web_fetch_requested": lambda p: f"Fetch a page from {_text(p, 'domain')}?",
    "enter_plan_mode": lambda p: "Enter Plan Mode?",
    "exit_plan_mode": lambda p: "Review the plan",
    "ask_user": lambda p: _text(p, "question"),
}


def question_line(decision: DecisionRequested) -> str:
    """What ``decision`` asks, in one line of at most a few words plus the model's text."""
    line = _LINES.get(decision.kind)
    return line(decision.payload) if line is not None else "A question"
