"""Plan Mode's dialogs: entering it, approving (or editing, or sending back) a plan, and showing
the kept plan again (``/plan``)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from zett_tui.core.inert_text import make_visible
from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog, Picked
from zett_tui.ui.modals.shown_text import shown
from zett_tui.ui.widgets.markdown_view import MarkdownView

ENTER = "enter"
STAY_OUT = "stay_out"
APPROVE_ASK = "approve_ask"
APPROVE_FREE = "approve_free"
KEEP_PLANNING = "keep_planning"

EXPLAIN_PLAN_MODE = (
    "In Plan Mode zett reads and searches but changes no file except its own plan, asks before "
    "every shell command, and finishes by showing you the plan to approve."
)


def enter_plan_dialog(reason: str) -> ChoiceDialog:
    """A dialog whose value is ``ENTER`` or ``STAY_OUT`` (Esc)."""
    body = Static(
        Text.assemble(
            ("zett wants to plan before it changes anything:\n\n", "bold"),
            shown(reason.strip() or "(no reason given)"),
            ("\n\n" + EXPLAIN_PLAN_MODE, "dim"),
        )
    )
    return ChoiceDialog(
        "Enter Plan Mode?",
        body,
        [Choice("Enter Plan Mode", ENTER, "affirm"), Choice("Continue without Plan Mode", STAY_OUT, "deny")],
        decline_value=STAY_OUT,
    )


class PlanReviewDialog(ChoiceDialog):
    """The plan, rendered as the transcript renders answers; approve it (asking before edits or not), edit it first, or send it back.

    The value is ``APPROVE_ASK``, ``APPROVE_FREE`` or ``KEEP_PLANNING`` (Esc; the note is the
    feedback). ``Picked.edited`` holds the user's version of the plan when they changed it.
    """

    DEFAULT_CSS = """
    PlanReviewDialog #editor {
        display: none;
        margin-top: 1;
        height: 12;
        border: round $primary;
    }
    PlanReviewDialog #editor.-shown {
        display: block;
    }
    """

    def __init__(self, plan: str) -> None:
        self.plan = plan
        self.edit_choice = Choice(
            "Edit the plan",
            None,
            then=(
                Choice("Approve my edited plan, ask before edits", APPROVE_ASK, "affirm"),
                Choice("Approve my edited plan, edit freely", APPROVE_FREE),
            ),
            then_title="Edit the plan above. Tab reaches these choices; Esc goes back and keeps your edits.",
        )
        super().__init__(
            "Approve this plan?",
            MarkdownView(plan, id="plan", show_controls=True),
            [
                Choice("Approve, ask before edits", APPROVE_ASK, "affirm"),
                Choice("Approve, edit freely", APPROVE_FREE),
                self.edit_choice,
                Choice(
                    "Keep planning",
                    KEEP_PLANNING,
                    "deny",
                    note="What should change? (optional; Enter sends it, and zett keeps planning)",
                ),
            ],
            decline_value=KEEP_PLANNING,
        )

    def compose_body(self) -> ComposeResult:
        yield from super().compose_body()
        editor = TextArea(
            make_visible(self.plan), id="editor", soft_wrap=True, tab_behavior="focus", language="markdown"
        )
        yield editor

    @property
    def editor(self) -> TextArea:
        return self.query_one("#editor", TextArea)

    @property
    def edited_plan(self) -> str | None:
        """The user's version of the plan, or None when they did not change it."""
        text = self.editor.text.strip()
        return text if text and text != make_visible(self.plan).strip() else None

    def stage_changed(self) -> None:
        editing = self.in_stage is self.edit_choice
        self.query_one("#body").display = not editing
        self.editor.set_class(editing, "-shown")
        if editing:
            self.editor.focus()
            self.set_keys("Tab/Shift+Tab move · Enter newline or choose · Esc back")
        else:
            self.query_one("#plan", MarkdownView).update(self.edited_plan or self.plan)

    def set_flex_height(self, height: int) -> None:
        super().set_flex_height(height)
        self.editor.styles.height = max(5, height)

    def result_for(self, choice: Choice, note: str) -> Picked:
        edited = self.edited_plan if choice.value in (APPROVE_ASK, APPROVE_FREE) else None
        return Picked(choice.value, note, edited)


def plan_viewer(plan: str, path: Path, *, title: str = "The kept plan") -> ChoiceDialog:
    """The kept plan, rendered and scrollable; Enter or Esc closes it."""
    body = Vertical(MarkdownView(plan, show_controls=True), Static(Text(f"kept in {path}", style="dim")))
    body.styles.height = "auto"
    return ChoiceDialog(
        title, body, [Choice("Close", None, "affirm")], decline_value=None, key_help="Enter or Esc close"
    )
