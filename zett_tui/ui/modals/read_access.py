"""Permission for a file tool to read outside the project: the exact path, which tool, and why.

Choices: Read it once · Allow for this session (what that covers is said on the button and in
the body: the exact file, or the folder and what is below it) · Don't read… (an optional note
for the model). For a credential store, zett's own folders or a process's environment, "Don't
read" comes first and is the focused choice: Enter refuses.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog
from zett_tui.ui.modals.shown_text import shown

ONCE = "once"
SESSION = "session"
DENY = "deny"


def read_access_dialog(
    tool: str,
    path: str,
    *,
    requested: str | None = None,
    is_folder: bool = False,
    secret: str | None = None,
    reason: str = "",
    session_scope: str = "",
) -> ChoiceDialog:
    """A dialog whose value is ``ONCE``, ``SESSION`` or ``DENY`` (Esc; the note goes to the model)."""
    what = "search" if tool in ("glob", "grep") else "read"
    asked = Text()
    if requested and requested != path:
        asked.append_text(shown(requested, "bold"))
        asked.append("  ->  ", "dim")
    asked.append_text(shown(path, "bold"))
    details = Text(f"{tool} wants to {what} this {'folder' if is_folder else 'file'}", style="dim")
    if reason:
        details.append("\nasks because: ")
        details.append_text(shown(reason))
    if session_scope:
        details.append(f"\n“for this session” covers: {session_scope}")
    body = Vertical(Static(asked, classes="read-path"), Static(details, classes="details"))
    once = Choice(f"{what.capitalize()} it once", ONCE, "warning" if secret else "affirm")
    session = Choice(f"Allow for this session ({session_scope or 'this path'})", SESSION)
    deny = Choice(
        f"Don't {what}",
        DENY,
        "deny",
        note="Anything the model should know? (optional; Enter sends, nothing is read)",
    )
    if secret:
        title = f"Let {tool} {what} {secret}?"
        warning = f"⚠  This holds {secret}. It always asks, even after a broad “yes”."
        return ChoiceDialog(
            title, body, [deny, once, session], decline_value=DENY, warning=warning, safe_choice=DENY
        )
    title = f"Let {tool} {what} outside the project?"
    return ChoiceDialog(title, body, [once, session, deny], decline_value=DENY)
