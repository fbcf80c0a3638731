"""Approval for one MCP tool call: which server, which tool, and the exact arguments.

Choices: Run once · Allow this tool for the session · Always allow it in this project (saved
beside the project's shell rules, ``runtime/mcp/saved_rules.py``) · Don't run… (an optional note
for the model).

The arguments come from the model: they are shown as JSON with every non-ASCII and control
character escaped (nothing in them can restyle the terminal or hide text), and bounded so a huge
argument cannot push the choices off the screen: every argument's name is shown, each value cut
after a few lines (the dialog says how much is not shown), at most ``MAX_ARGUMENTS`` of them.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog

ONCE = "once"
SESSION = "session"
ALWAYS = "always"
REFUSE = "refuse"

MAX_ARGUMENTS = 20
MAX_VALUE_LINES = 8
MAX_VALUE_CHARS = 600


def shown_arguments(arguments: dict[str, Any]) -> str:
    """The arguments as the dialog shows them: each one's name, and its value as escaped JSON cut
    at ``MAX_VALUE_LINES`` lines, so one long value cannot hide the arguments after it."""
    lines: list[str] = []
    for key, value in list(arguments.items())[:MAX_ARGUMENTS]:
        text = _json(value)
        shown = text[:MAX_VALUE_CHARS].splitlines()[:MAX_VALUE_LINES]
        lines.append(f"{_json(str(key))}: " + (shown[0] if shown else ""))
        lines.extend(f"  {line}" for line in shown[1:])
        hidden = len(text) - len("\n".join(shown))
        if hidden > 0:
            lines.append(f"  … ({hidden:,} more characters of {_json(str(key))} not shown)")
    if len(arguments) > MAX_ARGUMENTS:
        lines.append(f"… and {len(arguments) - MAX_ARGUMENTS} more arguments not shown")
    return "\n".join(lines) or "(no arguments)"


def tool_call_body(details: Text, arguments: dict[str, Any]) -> Vertical:
    """A tool call's question: ``details`` over its arguments (``shown_arguments``)."""
    return Vertical(
        Static(details, classes="details"),
        Static(Text(shown_arguments(arguments), style="bold"), classes="mcp-arguments"),
    )


def dont_run() -> Choice:
    """The refusal of a tool call, with a note for the model (Esc chooses it)."""
    return Choice(
        "Don't run",
        REFUSE,
        "deny",
        note="Anything the model should know? (optional; Enter sends, nothing runs)",
    )


def _json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=True, default=repr)
    except ValueError:  # a circular structure cannot come from JSON, but a bug could make one
        return repr(value).encode("ascii", "backslashreplace").decode()


def mcp_approval_dialog(
    server: str, tool: str, arguments: dict[str, Any], *, read_only: bool
) -> ChoiceDialog:
    """A dialog whose value is ``ONCE``, ``SESSION``, ``ALWAYS`` or ``REFUSE`` (Esc; the note goes to the model)."""
    details = Text(f"MCP server {server!r}  ·  tool {tool!r}", style="dim")
    if read_only:
        details.append("\nthe server marks it read-only (its own claim)")
    choices = [
        Choice("Run once", ONCE, "affirm"),
        Choice(f"Allow {tool} of {server} for this session", SESSION),
        Choice("Always allow it in this project", ALWAYS),
        dont_run(),
    ]
    body = tool_call_body(details, arguments)
    return ChoiceDialog(f"Run the MCP tool {server} › {tool}?", body, choices, decline_value=REFUSE)
