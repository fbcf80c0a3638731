"""Approval for one MCP tool call: which server, which tool, and the exact arguments.

Choices: Run once · Allow this tool for the session · Don't run… (an optional note for the model).
There is no "always" yet: zett has nowhere to keep an MCP rule, and a choice that says "always"
but forgets at quit would be a promise not kept.

The arguments come from the model: they are shown as JSON with every non-ASCII and control
character escaped (nothing in them can restyle the terminal or hide text), and bounded so a huge
argument cannot push the choices off the screen (the dialog says how much is not shown).
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
REFUSE = "refuse"

MAX_LINES = 30
MAX_CHARS = 4000


def shown_arguments(arguments: dict[str, Any]) -> str:
    """The arguments as the dialog shows them: escaped JSON, at most ``MAX_LINES`` lines."""
    try:
        text = json.dumps(arguments, indent=2, ensure_ascii=True, sort_keys=True, default=repr)
    except ValueError:  # a circular structure cannot come from JSON, but a bug could make one
        text = repr(arguments).encode("ascii", "backslashreplace").decode()
    lines = text[:MAX_CHARS].splitlines()
    cut = len(text) > MAX_CHARS or len(lines) > MAX_LINES
    lines = lines[:MAX_LINES]
    if cut:
        lines.append(f"… ({len(text) - len(chr(10).join(lines)):,} more characters not shown)")
    return "\n".join(lines)


def mcp_approval_dialog(
    server: str, tool: str, arguments: dict[str, Any], *, read_only: bool
) -> ChoiceDialog:
    """A dialog whose value is ``ONCE``, ``SESSION`` or ``REFUSE`` (Esc; the note goes to the model)."""
    details = Text(f"MCP server {server!r}  ·  tool {tool!r}", style="dim")
    if read_only:
        details.append("\nthe server marks it read-only (its own claim)")
    body = Vertical(
        Static(details, classes="details"),
        Static(Text(shown_arguments(arguments), style="bold"), classes="mcp-arguments"),
    )
    choices = [
        Choice("Run once", ONCE, "affirm"),
        Choice(f"Allow {tool} of {server} for this session", SESSION),
        Choice(
            "Don't run",
            REFUSE,
            "deny",
            note="Anything the model should know? (optional; Enter sends, nothing runs)",
        ),
    ]
    return ChoiceDialog(f"Run the MCP tool {server} › {tool}?", body, choices, decline_value=REFUSE)
