"""Approval for one shell command: the exact command, where it runs and for how long."""

from __future__ import annotations

from pathlib import Path

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.widgets import Static

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog

RUN = "execute"
DONT_RUN = "abort"


def shell_approval_dialog(command: str, cwd: Path, timeout_seconds: int) -> ChoiceDialog:
    """A dialog whose result is ``"execute"`` or ``"abort"`` (Esc)."""
    body = Static(
        Group(
            Syntax(command, "bash", word_wrap=True, background_color="default"),
            Text(f"\nin {cwd}  ·  stops after {timeout_seconds}s", style="dim"),
        )
    )
    return ChoiceDialog(
        "Run this shell command?",
        body,
        [Choice("Run", RUN, "primary"), Choice("Don't run", DONT_RUN, "error")],
        decline_value=DONT_RUN,
    )
