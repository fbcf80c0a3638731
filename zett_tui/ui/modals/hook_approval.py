"""A hook asked zett to check with the user (``permissionDecision: "ask"``): run this tool call?

Choices: Run once · Don't run… (an optional note for the model). Running it once still leaves
the call to zett's own rules, which may ask again (an edit in ask mode, a shell command): the
hook's question comes on top of them, never instead of them. The arguments are shown as the MCP
question shows them (escaped, bounded); the hook's reason, like every text in a dialog, shows its
hidden characters as escapes (``shown_text``).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog
from zett_tui.ui.modals.mcp_approval import REFUSE, dont_run, tool_call_body
from zett_tui.ui.modals.shown_text import shown

ONCE = "once"
MAX_REASON_CHARS = 600


def hook_approval_dialog(tool: str, arguments: dict[str, Any], reason: str) -> ChoiceDialog:
    """A dialog whose value is ``ONCE`` or ``REFUSE`` (Esc; the note goes to the model)."""
    said = reason.strip()[:MAX_REASON_CHARS] or "(it gave no reason)"
    details = Text("A PreToolUse hook asks you first: ", style="dim")
    details.append_text(shown(said))
    choices = [Choice("Run once", ONCE, "affirm"), dont_run()]
    return ChoiceDialog(f"Run {tool}?", tool_call_body(details, arguments), choices, decline_value=REFUSE)
