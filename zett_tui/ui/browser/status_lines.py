"""What the session browser's lines say: the scope line and the damage line, as text.

The scope line says how many sessions the filter shows and where, or how far the search has read
and what it found; the damage line names the session files that cannot be read. The screen
decides when to show them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zett_tui.sessions.index import SessionSummary
    from zett_tui.sessions.reader import ReadNotice
    from zett_tui.ui.browser.search import SessionSearch


def listing_status(summaries: list[SessionSummary] | None, shown: int, where: str, note: str) -> str:
    """The scope line with no search: loading, no sessions at all, or ``shown`` sessions in
    ``where`` (``note`` before it says why that is all folders)."""
    if summaries is None:
        return "Loading sessions…"
    if not summaries:
        return "No sessions yet: they appear here after your first prompt."
    return f"{note}{shown:,} session{'s' if shown != 1 else ''} in {where}"


def search_status(search: SessionSearch, query: str, where: str) -> str:
    """The scope line while ``search`` for ``query`` runs in ``where``, and once it has ended."""
    found = len(search.results)
    done, total = search.searched
    matches = f"{found:,} session{'s match' if found != 1 else ' matches'} “{query}”"
    if search.running:
        return f"Searching {where}… {done:,} of {total:,} sessions read · {matches}"
    if not found:
        return f"No session in {where} contains “{query}”."
    return f"{matches} ({total:,} searched in {where})"


def damage_status(notices: list[ReadNotice]) -> str:
    """The session files that cannot be read, the first reason with it; empty when all could."""
    files = sorted({notice.path.name for notice in notices})
    if not files:
        return ""
    first = notices[0]
    where = f" line {first.line_no}" if first.line_no else ""
    more = f" (and {len(notices) - 1} more)" if len(notices) > 1 else ""
    plural = "s have parts that" if len(files) != 1 else " has a part that"
    detail = f"{first.path.name}{where}: {first.reason}{more}"
    return f"⚠ {len(files)} session file{plural} cannot be read: {detail}"
