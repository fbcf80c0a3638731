"""Approval for one file change: the path and operation in the title, the diff below.

Choices: Apply · Apply all edits for this session · Don't apply… (an optional note for the model).
A change outside the project folder or to git's own files (``.git/``: hooks and config run
commands) opens on "Don't apply", with number keys off (``ChoiceDialog``'s ``safe_choice``).
"""

from __future__ import annotations

from pathlib import PurePath

from rich.text import Text

from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog
from zett_tui.ui.modals.diff_view import DiffView
from zett_tui.ui.modals.shown_text import shown

APPLY = "apply"
APPLY_ALL = "apply_all"
REJECT = "reject"

_TITLES = {
    "create": "Create {path}?",
    "write": "Overwrite {path}?",
    "edit": "Apply this edit to {path}?",
    "delete": "Delete {path}?",
}


def under_git(*paths: str) -> bool:
    """Any of ``paths`` has a ``.git`` folder among its parts (any case: ``.GIT`` is the same
    folder on macOS and Windows file systems)."""
    return any(part.casefold() == ".git" for path in paths if path for part in PurePath(path).parts)


def edit_title(operation: str, path: str) -> str:
    return _TITLES.get(operation, "Change {path}?").format(path=path)


def edit_approval_dialog(
    path: str,
    operation: str,
    diff: str,
    *,
    added: int = 0,
    removed: int = 0,
    outside_project: bool = False,
    absolute_path: str = "",
) -> ChoiceDialog:
    """A dialog whose value is ``APPLY``, ``APPLY_ALL`` or ``REJECT`` (Esc; the note goes to the model)."""
    title = Text.assemble(
        shown(edit_title(operation, path)),
        ("   "),
        (f"+{added}", "bold green"),
        " ",
        (f"−{removed}", "bold red"),
    )
    warning = ""
    if outside_project:
        warning = f"⚠  Outside the project folder: {absolute_path or path}. This always asks, in every mode."
    elif under_git(path, absolute_path):
        warning = "⚠  Inside .git/: git runs commands named in its config and hooks."
    cautious = outside_project or under_git(path, absolute_path)
    choices = [
        Choice("Delete it" if operation == "delete" else "Apply", APPLY, "affirm"),
        Choice("Apply all edits for this session (no more questions)", APPLY_ALL),
        Choice(
            "Don't delete" if operation == "delete" else "Don't apply",
            REJECT,
            "deny",
            note="Anything the model should know? (optional; Enter sends, the file stays as it is)",
        ),
    ]
    return ChoiceDialog(
        title,
        DiffView(diff),
        choices,
        decline_value=REJECT,
        warning=warning,
        safe_choice=REJECT if cautious else None,
    )
