"""The question after the sandbox probably stopped a command: run it again outside, once?

Choices, the refusing one first so that Enter keeps the command in the sandbox: Don't run
(with an optional note for the model) · Run once with network (when the network being off is
what stopped it) · Run once outside the sandbox. Esc also means don't run.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog
from zett_tui.ui.modals.shell_approval import CommandView
from zett_tui.ui.modals.shown_text import shown

STAY = "stay"
NETWORK = "network"
OUTSIDE = "outside"


def sandbox_escape_dialog(
    command: str, cwd: Path, reason: str, *, offer_network: bool = False
) -> ChoiceDialog:
    """A dialog whose value is ``STAY`` (also Esc), ``NETWORK`` or ``OUTSIDE``."""
    details = Text(f"in {cwd}", style="dim")
    if reason:
        details.append("\n")
        details.append_text(shown(reason))
    details.append(
        "\nIt already ran once inside the sandbox; running it again repeats what it did there.",
        style="dim",
    )
    choices = [
        Choice(
            "Don't run it again",
            STAY,
            "deny",
            note="Anything the model should know? (optional; Enter sends, the command stays failed)",
        )
    ]
    if offer_network:
        choices.append(Choice("Run once with network (still in the sandbox)", NETWORK, "warning"))
    choices.append(Choice("Run once outside the sandbox", OUTSIDE, "warning"))
    body = Vertical(CommandView(command), Static(details, classes="details"), classes="shell-command")
    warning = (
        "Outside the sandbox this command can change any of your files, read your keys and use the network."
    )
    return ChoiceDialog(
        "The sandbox stopped this command. Run it again?", body, choices, decline_value=STAY, warning=warning
    )
