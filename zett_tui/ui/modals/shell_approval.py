"""Approval for one shell command: the exact command, where it runs, for how long, and why it asks.

Choices: Run once · Always allow… (a saved rule, exact or a word prefix, editable before it is
saved; not offered for dangerous commands) · Don't run… (with an optional note for the model).
"""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from zett_tui.runtime.shell.policy import Rule, prefix_problem
from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog

RUN = "execute"
#: Run once, in the sandbox with the network on (offered while the sandbox keeps it off).
RUN_WITH_NETWORK = "execute_with_network"
DONT_RUN = "abort"

#: Verdict reasons that say nothing the user needs (every dialog exists because nothing allowed it).
_UNREMARKABLE = ("no saved rule matches",)
_LABEL_WIDTH = 70


def shell_approval_dialog(
    command: str,
    cwd: Path,
    timeout_seconds: int,
    *,
    reason: str = "",
    dangerous: bool = False,
    suggestions: list[Rule] | None = None,
    offer_network: bool = False,
    where: str = "",
) -> ChoiceDialog:
    """A dialog whose value is ``RUN``, a ``Rule`` to save (the note is its edited command), or
    ``DONT_RUN`` (Esc; the note is what the user wants the model to know). ``where`` says how the
    command is confined (``ShellSandbox.where_it_runs``)."""
    details = Text(f"in {cwd}  ·  stops after {timeout_seconds}s", style="dim")
    if where:
        details.append(f"\nruns {where}")
    if reason and not dangerous and reason not in _UNREMARKABLE:
        details.append(f"\nasks because: {reason}")
    choices = [Choice("Run once", RUN, "affirm")]
    rules = [] if dangerous else list(suggestions or [])
    if rules:
        choices.append(
            Choice(
                "Always allow",
                None,
                then=tuple(_rule_choice(rule) for rule in rules),
                then_title="Allow without asking from now on, in this project:",
            )
        )
    choices.append(
        Choice(
            "Don't run",
            DONT_RUN,
            "deny",
            note="Anything the model should know? (optional; Enter sends, the command is not run)",
        )
    )
    if offer_network:  # last: the sandbox keeps the network off unless the user says so here
        choices.append(Choice("Run once with network", RUN_WITH_NETWORK, "warning"))
    warning = f"⚠  Dangerous: {reason}. This always asks, in every mode." if dangerous else ""
    body = Vertical(CommandView(command), Static(details, classes="details"), classes="shell-command")
    return ChoiceDialog(
        "Run this shell command?",
        body,
        choices,
        decline_value=DONT_RUN,
        warning=warning,
        # dangerous: opens on "Don't run" (Enter refuses), number keys off, running takes ↑ + Enter
        safe_choice=DONT_RUN if dangerous else None,
    )


class CommandView(Widget):
    """The command, highlighted as shell, on a band of its own (colours follow the theme)."""

    DEFAULT_CSS = """
    CommandView {
        height: auto;
        background: $panel;
        padding: 0 1;
    }
    """

    def __init__(self, command: str) -> None:
        super().__init__()
        self.command = command

    def render(self) -> Text:
        from zett_tui.ui.themes import syntax_theme_name

        # the theme's code style (checked for contrast), not the terminal's ANSI colours
        code = Syntax(self.command, "bash", theme=syntax_theme_name(self.app.current_theme)).highlight(
            self.command
        )
        code.rstrip()
        return Text.assemble(("$ ", "dim"), code)


def _rule_choice(rule: Rule) -> Choice:
    if rule.kind == "prefix":
        label = f"Any command that starts with: {_shorten(rule.command)}"
        prompt = "Commands that start with these words run without asking (edit, then Enter saves):"
    else:
        label = f"Exactly this command: {_shorten(rule.command)}"
        prompt = "This exact command runs without asking (edit, then Enter saves):"
    return Choice(
        label, rule, note=prompt, note_value=rule.command, check=lambda text: rule_problem(rule.kind, text)
    )


def rule_problem(kind: str, text: str) -> str | None:
    """Why ``text`` cannot be saved as a rule of ``kind``, or None when it can."""
    if not text.strip():
        return "A rule needs a command."
    if kind != "prefix":
        return None
    return prefix_problem(text)


def _shorten(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _LABEL_WIDTH else flat[: _LABEL_WIDTH - 1] + "…"
