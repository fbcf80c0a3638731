"""The dialogs of ``/rewind``: which turn, what to take back, and what to do with a file changed by hand.

All three are ``ChoiceDialog``s, so none can be typed through. The "what" dialog opens on its
first choice, with number keys, as every ordinary question does: the user asked for the rewind by
picking a turn, and a rewind of the code is itself listed (and can be undone) in ``/rewind``. The
conflict dialog, which would overwrite a change made by hand, opens on "Keep mine" with number keys
off, so taking the checkpoint's needs an arrow key and Enter.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from zett_tui.checkpoints.journal import TurnRecord
from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog
from zett_tui.ui.modals.diff_view import DiffView

CODE_AND_CONVERSATION = "both"
CODE_ONLY = "code"
CONVERSATION_ONLY = "conversation"
CANCEL = "cancel"
KEEP_MINE = "keep"
TAKE_CHECKPOINT = "take"
SHOW_DIFF = "diff"


def describe_record(number: int, record: TurnRecord, *, undoes: bool = False) -> str:
    """One line of the turn list: turn number, prompt, when, and what changed (or why it cannot say).
    ``undoes``: the record is a rewind that undid an earlier rewind (it names the same prompt)."""
    when = _when(record.at)
    prompt = " ".join(record.prompt.split())[:60] or "(no prompt)"
    # "turn N", not "N.": the dialog numbers its choices newest first, and the two would clash
    if record.kind == "rewind" and undoes:
        head = f"turn {number}: before undoing the rewind to “{prompt}”"
    elif record.kind == "rewind":
        head = f"turn {number}: before the rewind to “{prompt}”"
    else:
        head = f"turn {number}: {prompt}"
    if record.missing:
        what = "checkpoint missing"
    elif record.changes:
        what = f"{len(record.changes)} file{'s' if len(record.changes) != 1 else ''} +{record.added} -{record.removed}"
    else:
        what = "no files changed"
    return f"{head}  · {when} · {what}"


def _when(at: str) -> str:
    try:
        return datetime.fromisoformat(at).astimezone().strftime("%H:%M")
    except ValueError:
        return "?"


def turn_list_dialog(records: list[TurnRecord], store_size: int) -> ChoiceDialog:
    """Which turn to go back to (the newest first); the value is the record's index."""
    rewinds = {record.turn for record in records if record.kind == "rewind"}
    choices = [
        Choice(describe_record(index + 1, record, undoes=record.target in rewinds), index)
        for index, record in reversed(list(enumerate(records)))
    ]
    choices.append(Choice("Cancel", None, "deny"))
    size = f"Checkpoints of this project take {store_size / 1_048_576:.1f} MB."
    body = Static(Text(f"Go back to just before which turn?\n{size}", style="dim"))
    return ChoiceDialog("Rewind", body, choices, decline_value=None)


def what_dialog(
    record: TurnRecord, *, code_possible: str | None, too_large: list[str], unreadable: Sequence[str] = ()
) -> ChoiceDialog:
    """Code and conversation, code only, conversation only; ``code_possible`` says why code cannot."""
    lines = [f"Back to just before: {record.prompt[:200] or '(no prompt)'}"]
    if code_possible is not None:
        lines.append(f"The code cannot be rewound: {code_possible}.")
    if too_large:
        lines.append("Not recorded (too large), left as they are: " + ", ".join(too_large[:10]))
    if unreadable:
        lines.append("Could not be read when recorded, left as they are: " + ", ".join(unreadable[:10]))
    choices = []
    if code_possible is None:
        choices += [
            Choice("Code and conversation", CODE_AND_CONVERSATION, "warning"),
            Choice("Code only", CODE_ONLY, "warning"),
        ]
    choices += [Choice("Conversation only", CONVERSATION_ONLY), Choice("Cancel", CANCEL, "deny")]
    return ChoiceDialog(
        "Rewind: what to take back", Static(Text("\n".join(lines))), choices, decline_value=CANCEL
    )


def conflict_dialog(path: str, *, elsewhere: bool = False) -> ChoiceDialog:
    """A file the user changed by hand after the agent touched it (or another zett session on the
    project changed while or after these turns ran: ``elsewhere``)."""
    if elsewhere:
        title = f"{path} was also changed by another zett session in this project"
        body = "Rewinding would overwrite that session's change."
    else:
        title, body = (
            f"{path} was changed by hand after the agent changed it",
            "Rewinding would overwrite your change.",
        )
    return ChoiceDialog(
        title,
        Static(Text(body)),
        [
            Choice("Keep mine", KEEP_MINE, "affirm"),
            Choice("Take the checkpoint's", TAKE_CHECKPOINT, "warning"),
            Choice("Show the diff", SHOW_DIFF),
        ],
        decline_value=KEEP_MINE,
        safe_choice=KEEP_MINE,
    )


def conflict_diff_dialog(path: str, diff: str) -> ChoiceDialog:
    """The conflict again, with the diff from yours to the checkpoint's shown."""
    return ChoiceDialog(
        f"{path}: from yours (−) to the checkpoint's (+)",
        VerticalScroll(DiffView(diff or "(no difference in text)")),
        [
            Choice("Keep mine", KEEP_MINE, "affirm"),
            Choice("Take the checkpoint's", TAKE_CHECKPOINT, "warning"),
        ],
        decline_value=KEEP_MINE,
        safe_choice=KEEP_MINE,
    )
