"""The dialog that hands a remote MCP server's sign-in address to the user: open it, copy it, or later.

The sign-in goes on whatever is chosen here (zett listens for the browser in the background, at
most a few minutes); closing the dialog only closes it, and ``/mcp`` shows the address again. The
address comes from the server, so it is shown as plain text, never as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog

OPEN = "open"
COPY = "copy"
LATER = "later"


def sign_in_dialog(server: str, url: str, *, again: bool, minutes: float) -> ChoiceDialog:
    why = "Its sign-in has expired: sign in again" if again else "It needs you to sign in"
    body = Text()
    body.append(
        f"{why} in your browser. zett waits up to {minutes:g} minutes for the browser to come back.\n\n"
    )
    body.append(url, style="underline")
    choices = (
        Choice("Open it in the browser", OPEN, "affirm"),
        Choice("Copy the address", COPY),
        Choice("Later (/mcp shows the address)", LATER, "deny"),
    )
    return ChoiceDialog(f"Sign in to MCP server {server}", Static(body), choices, decline_value=LATER)
