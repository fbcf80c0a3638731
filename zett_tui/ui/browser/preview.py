"""The session browser's preview: which turns to show for a session (read in a worker thread) and
how they are painted on the preview's ``Transcript``."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.reader import TurnRecord, iter_records
from zett_tui.sessions.recorded_turns import load_last_turns, turn_view
from zett_tui.sessions.rewind_marks import mark_of, read_rewound
from zett_tui.sessions.search import SearchHit
from zett_tui.sessions.turn_views import TurnView
from zett_tui.ui.chat.past_turns import show_turn
from zett_tui.ui.widgets.transcript import NoticeBlock, Transcript

#: How many turns the preview shows.
PREVIEW_TURNS = 30


@dataclass(frozen=True, slots=True)
class PreviewPage:
    session_id: str
    turns: list[TurnView]
    #: Turns before the first one shown.
    has_earlier: bool
    #: Turns after the last one shown (the preview of a search match ends at the matching turn).
    later_turns: int
    #: What could not be read: counted, a few kept.
    notices: ReadNotices
    hit: SearchHit | None


def load_preview(summary: SessionSummary, hit: SearchHit | None, count: int = PREVIEW_TURNS) -> PreviewPage:
    """The last ``count`` turns, or for a search match the ``count`` turns that end with the match.

    Blocking: call it from a worker thread. A match near the end is read backwards from the end
    of the file, one near the start forwards from the start, whichever parses fewer turns.
    """
    notices = ReadNotices()
    distance = summary.lines - hit.turn_index if hit is not None else 0  # indexes count every line
    if hit is None or distance <= 1:
        page = load_last_turns(summary.path, count, notices)
        return PreviewPage(summary.session_id, page.turns, page.has_earlier, 0, notices, hit)
    if distance <= hit.turn_index:
        page = load_last_turns(summary.path, distance + count - 1, notices)
        kept = [turn for turn in page.turns if turn.index <= hit.turn_index][-count:]
        earlier = page.has_earlier or (bool(page.turns) and bool(kept) and kept[0] is not page.turns[0])
    else:
        kept, earlier = _turns_up_to(summary.path, hit.turn_index, count, notices)
    later = max(0, summary.lines - 1 - kept[-1].index) if kept else 0
    return PreviewPage(summary.session_id, kept, earlier, later, notices, hit)


def _turns_up_to(
    path: Path, last_index: int, count: int, notices: ReadNotices
) -> tuple[list[TurnView], bool]:
    window: deque[TurnRecord] = deque(maxlen=count)
    seen = 0
    for record in iter_records(path, notices):
        if record.index > last_index:
            break
        if mark_of(record.data) is not None:
            continue
        window.append(record)
        seen += 1
    kept = list(window)
    rewound = read_rewound(path)
    turns = [
        turn_view(record, kept[index - 1] if index else None, rewound) for index, record in enumerate(kept)
    ]
    return turns, seen > len(window)


def paint_preview(transcript: Transcript, page: PreviewPage) -> None:
    """Show ``page`` as the chat showed it, the matching turn marked, the view at the bottom."""
    transcript.clear()
    if page.has_earlier:
        transcript.add(NoticeBlock("Earlier turns are not shown here. Enter resumes the session.", "info"))
    if not page.turns and not page.notices:
        transcript.add(NoticeBlock("This session has no turns.", "info"))
    for turn in page.turns:
        if page.hit is not None and turn.index == page.hit.turn_index:
            transcript.add(
                NoticeBlock(
                    f"▼ Match in turn {turn.index + 1} ({page.hit.where}): {page.hit.snippet}", "decision"
                )
            )
        show_turn(transcript, turn, list_changes=True)
    if page.later_turns:
        plural = "s" if page.later_turns != 1 else ""
        transcript.add(NoticeBlock(f"… {page.later_turns} later turn{plural} not shown.", "info"))
    for line in page.notices.lines():
        transcript.add(NoticeBlock(line, "warning"))
    transcript.following = True
