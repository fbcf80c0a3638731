"""Permission for ``web_fetch`` to contact a domain: the full URL it will request, and what it carries.

Choices: Fetch once · Always allow this domain in this project · Don't fetch… (an optional note
for the model). The URL is shown whole (non-ASCII escaped, so a look-alike character shows as
what it is), with the host in its ASCII form; a long query string, or one that looks like it
holds a credential, is called out: a URL can carry data off the machine. Then "Don't fetch" comes
first and is the focused choice, so Enter refuses.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog

ONCE = "once"
ALWAYS = "always"
DENY = "deny"


def web_fetch_dialog(
    url: str,
    domain: str,
    *,
    query_chars: int = 0,
    long_query: bool = False,
    query_secret: bool = False,
    non_ascii_domain: bool = False,
) -> ChoiceDialog:
    """A dialog whose value is ``ONCE``, ``ALWAYS`` or ``DENY`` (Esc; the note goes to the model)."""
    details = Text(f"web_fetch wants to fetch a page from {domain}", style="dim")
    details.append("\nThe whole URL above is sent to that server; the page's text goes to the model.")
    if non_ascii_domain:
        details.append(f"\nThe host name has non-ASCII letters: its real name is {domain}")
    warnings = []
    if query_secret:
        warnings.append("⚠  The URL looks like it carries a credential or token in it.")
    if long_query:
        warnings.append(f"⚠  Its query string is long ({query_chars:,} characters): it can carry data out.")
    body = Vertical(Static(Text(url, style="bold"), classes="web-url"), Static(details, classes="details"))
    once = Choice("Fetch it once", ONCE, "warning" if warnings else "affirm")
    always = Choice(f"Always allow {domain} in this project", ALWAYS)
    deny = Choice(
        "Don't fetch",
        DENY,
        "deny",
        note="Anything the model should know? (optional; Enter sends, nothing is fetched)",
    )
    title = f"Fetch a web page from {domain}?"
    if warnings:
        return ChoiceDialog(
            title,
            body,
            [deny, once, always],
            decline_value=DENY,
            warning="\n".join(warnings),
            safe_choice=DENY,
        )
    return ChoiceDialog(title, body, [once, always, deny], decline_value=DENY)
