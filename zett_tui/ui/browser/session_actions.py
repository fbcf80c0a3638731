"""The session browser's actions on one session's files: delete it (after asking), export it.

Neither waits on the disk in the event loop: the export runs in a thread worker and posts
``Exported`` back to the screen, which hands it to ``say_exported``; the delete awaits its dialog,
then ``sessions.manage.delete_session``. Whether a session may be touched at all (the one open
here, or one open in another zett: ``busy_text``) the screen decides first.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.screen import Screen

from zett_tui.sessions.export_file import export_to_file, free_export_path
from zett_tui.sessions.ids import short_ids
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.lock import SessionBusy
from zett_tui.ui.modals.choice_dialog import Choice, ChoiceDialog

log = logging.getLogger(__name__)

DELETE, KEEP = "delete", "keep"


class Exported(Message):
    """An export ended: where it wrote, how many turns and unreadable parts, or why it could not."""

    def __init__(self, target: Path, turns: int, unreadable: int, error: str | None = None) -> None:
        super().__init__()
        self.target = target
        self.turns = turns
        self.unreadable = unreadable
        self.error = error


def busy_text(summary: SessionSummary) -> str:
    pid = f" (process {summary.in_use_by})" if summary.in_use_by and summary.in_use_by > 0 else ""
    return f"That session is open in another zett{pid}; close it there first."


async def delete_after_asking(screen: Screen[Any], summary: SessionSummary, history: Path) -> bool:
    """Ask, then delete ``summary``'s session and its history; True once it is gone (a refusal by
    the user says nothing; a failure is said in a notification)."""
    from zett_tui.sessions.manage import delete_session

    # The one dialog where the safe answer comes first: Enter on a dialog that just opened
    # must not delete a session.
    dialog = ChoiceDialog(
        f"Delete session “{summary.title}”? This removes its transcript and history.",
        None,
        [Choice("Keep", KEEP), Choice("Delete", DELETE, "deny")],
        decline_value=KEEP,
        key_help="Enter choose · ↑/↓ move · 1-2 pick · Esc keep",
    )
    picked = await screen.app.push_screen_wait(dialog)
    if picked is None or picked.value != DELETE:
        return False
    try:
        await delete_session(summary, history)
    except SessionBusy as error:
        screen.notify(f"Not deleted: {error}", severity="warning", markup=False)
        return False
    except Exception as error:  # a file or database error: say so, keep the browser going
        log.warning("session delete failed", exc_info=True)
        screen.notify(f"Could not delete the session: {error}", severity="error", markup=False)
        return False
    return True


def export_in_background(
    screen: Screen[Any], summary: SessionSummary, everyone: list[SessionSummary], folder: Path
) -> None:
    """Write ``summary``'s session as Markdown to a free file in ``folder``, named by its short id
    among ``everyone``, in a thread worker; ``Exported`` comes back to ``screen``."""

    def export() -> None:
        short = short_ids(everyone).get(summary.session_id, summary.session_id)
        target = free_export_path(folder, short)
        try:
            turns, notices = export_to_file(summary, "md", target)
        except OSError as error:
            screen.post_message(Exported(target, 0, 0, str(error.strerror or error)))
            return
        screen.post_message(Exported(target, turns, len(notices)))

    screen.run_worker(export, thread=True, group="export", exit_on_error=False)


def say_exported(screen: Screen[Any], message: Exported) -> None:
    if message.error is not None:
        screen.notify(f"Could not write {message.target}: {message.error}", severity="error", markup=False)
        return
    unreadable = f" ({message.unreadable} unreadable part(s) noted at the end)" if message.unreadable else ""
    plural = "s" if message.turns != 1 else ""
    screen.notify(f"Exported {message.turns} turn{plural} to {message.target}{unreadable}", markup=False)
