"""Approval for one shell command: the exact command, where it runs, for how long, and why it asks.

Choices: Run once · Always allow… (a saved rule, exact or a word prefix, editable before it is
saved; not offered for dangerous commands, nor to a read-only subagent) · Don't run… (with an
optional note for the model).
"""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from zett_tui.core.inert_text import hidden_characters, make_visible
from zett_tui.runtime.shell.policy import Rule, prefix_problem
from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog
from zett_tui.ui.modals.shown_text import ESCAPE_STYLE, shown

RUN = "execute"
#: Run once, in the sandbox with the network on (offered while the sandbox keeps it off).
RUN_WITH_NETWORK = "execute_with_network"
DONT_RUN = "abort"

#: Verdict reasons that say nothing the user needs (every dialog exists because nothing allowed it).
_UNREMARKABLE = ("no saved rule matches",)
_LABEL_WIDTH = 70
#: More blank lines in a row than this are shown as one line that says how many there are.
MAX_EMPTY_LINES_SHOWN = 2


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
    once_only: str = "",
) -> ChoiceDialog:
    """A dialog whose value is ``RUN``, a ``Rule`` to save (the note is its edited command), or
    ``DONT_RUN`` (Esc; the note is what the user wants the model to know). ``where`` says how the
    command is confined (``ShellSandbox.where_it_runs``). ``once_only``: no rule is offered, and
    this says why (``runtime.shell.rule_offers``)."""
    details = Text(f"in {cwd}  ·  stops after {timeout_seconds}s", style="dim")
    lines = command.count("\n") + 1
    if lines > 1:
        details.append(f"  ·  {lines} lines")
    if where:
        details.append(f"\nruns {where}")
    if reason and not dangerous and reason not in _UNREMARKABLE:
        details.append("\nasks because: ")
        details.append_text(shown(reason))
    if once_only:
        details.append(f"\n{once_only}")
    choices = [Choice("Run once", RUN, "affirm")]
    # a rule is edited in a one-line field that cannot show hidden characters: none is offered
    rules = [] if dangerous or once_only or hidden_characters(command) else list(suggestions or [])
    if rules:
        choices.append(
            Choice(
                "Always allow",
                None,
                then=tuple(_rule_choice(rule) for rule in rules),
                then_title="Allow without asking from now on, in this project (the main agent and its subagents):",
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
    """The command, highlighted as shell, on a band of its own (colours follow the theme).

    Hidden characters are drawn as escapes (``shown_text``), and a run of blank lines longer than
    ``MAX_EMPTY_LINES_SHOWN`` is one line that says how many there are, so what follows it is in
    sight."""

    SHOWS_CONTROLS_VISIBLY = True

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
        visible = make_visible(self.command)
        code = Syntax(visible, "bash", theme=syntax_theme_name(self.app.current_theme)).highlight(visible)
        code.rstrip()
        for start, end in _escape_ranges(self.command):
            code.stylize(ESCAPE_STYLE, start, end)
        return Text.assemble(("$ ", "dim"), *_fold_empty_lines(code))


def _escape_ranges(command: str) -> list[tuple[int, int]]:
    """Where ``make_visible(command)`` has an escape (start, end offsets in it)."""
    ranges = []
    shift = 0
    for offset in hidden_characters(command):
        length = len(make_visible(command[offset]))
        ranges.append((offset + shift, offset + shift + length))
        shift += length - 1
    return ranges


def _fold_empty_lines(code: Text) -> list[Text]:
    """``code``'s lines, a long run of blank ones as one highlighted line saying how many."""
    lines = code.split("\n", allow_blank=True)
    out: list[Text] = []
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and not lines[end].plain.strip():
            end += 1
        run = end - index
        if run > MAX_EMPTY_LINES_SHOWN:
            out.append(Text(f"⋮ {run} blank lines", style="bold reverse"))
            index = end
            continue
        out.append(lines[index])
        index += 1
    joined: list[Text] = []
    for number, line in enumerate(out):
        if number:
            joined.append(Text("\n"))
        joined.append(line)
    return joined


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
