"""How one session looks as a row of the session browser: columns, relative times, short folders.

Pure functions over :class:`SessionSummary` (no widget state), so the layout is tested without
a screen. A row is a list of ``(text, role)`` pieces; the list widget maps roles to theme styles.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from rich.cells import cell_len, set_cell_size

from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.search import SearchHit

#: Roles a piece of a row can have; the list widget gives each a component style.
Role = str
Piece = tuple[str, Role]

STATUS_MARKS: dict[str, tuple[str, Role]] = {
    "completed": ("✓", "completed"),
    "cancelled": ("⏹", "cancelled"),
    "failed": ("✗", "failed"),
    "interrupted": ("✂", "cancelled"),  # zett was stopped during the turn
    "empty": ("·", "muted"),
}
UNKNOWN_MARK = ("?", "muted")
MIN_TITLE = 30
GAP = "  "
MARK_CELLS = 3
ACTIVITY_CELLS = 10
TURNS_CELLS = 5
FOLDER_MIN, FOLDER_MAX = 12, 28
BRANCH_MIN, BRANCH_MAX = 8, 18
MODEL_MIN, MODEL_MAX = 8, 24


@dataclass(slots=True)
class SessionRow:
    """One session in the list, with its search match when the list shows search results."""

    summary: SessionSummary
    #: The first matching turn, in search results.
    hit: SearchHit | None = None
    #: How many turns of the session match the search.
    matching_turns: int = 0
    #: Whether the search stopped counting this session's matches (there may be more).
    counting_stopped: bool = False


@dataclass(frozen=True, slots=True)
class Columns:
    """Cell widths of a row's columns at one width; 0 hides a column."""

    title: int
    folder: int = 0
    branch: int = 0
    model: int = 0
    activity: int = 0
    turns: int = 0


def relative_time(when: datetime, now: datetime | None = None) -> str:
    """``just now``, ``12 min ago``, ``3 h ago``, ``5 d ago``, then the date."""
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    if seconds < 86400 * 30:
        return f"{int(seconds // 86400)} d ago"
    return when.astimezone().strftime("%Y-%m-%d")


def short_folder(path: str | None, home: str | None = None) -> str:
    """The folder with the home directory written as ``~``; ``?`` when unknown."""
    if not path:
        return "?"
    home = home if home is not None else os.path.expanduser("~")
    if home and home != os.sep and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


def fit(text: str, cells: int) -> str:
    """``text`` cut (with an ellipsis) or padded to exactly ``cells`` terminal cells."""
    if cells <= 0:
        return ""
    if cell_len(text) <= cells:
        return set_cell_size(text, cells)
    return set_cell_size(text, cells - 1) + "…"


def fit_left(text: str, cells: int) -> str:
    """Like :func:`fit`, but keeps the end of ``text`` (the last folders of a path)."""
    if cells <= 0:
        return ""
    if cell_len(text) <= cells:
        return set_cell_size(text, cells)
    kept = text[-(cells - 1) :]
    while cell_len(kept) > cells - 1:
        kept = kept[1:]
    return set_cell_size("…" + kept, cells)


def plan_columns(width: int, rows: list[SessionRow], home: str | None = None) -> Columns:
    """Which columns fit in ``width`` cells, and how wide each is.

    The title keeps at least :data:`MIN_TITLE` cells (or two fifths of a wide row). Columns are
    added at their narrowest, in the order last activity, turns, folder, branch, model, while the
    title keeps that much; space left over widens them up to what their contents need (the one
    that needs the least first, so a short branch name shows whole), and the rest goes to the title.
    """
    wanted = {
        "activity": (ACTIVITY_CELLS, ACTIVITY_CELLS),
        "turns": (TURNS_CELLS, TURNS_CELLS),
        "folder": _span(FOLDER_MIN, FOLDER_MAX, (short_folder(row.summary.cwd, home) for row in rows)),
        "branch": _span(BRANCH_MIN, BRANCH_MAX, (row.summary.branch or "" for row in rows)),
        "model": _span(MODEL_MIN, MODEL_MAX, (row.summary.model or "" for row in rows)),
    }
    room = width - MARK_CELLS
    least_title = max(MIN_TITLE, room * 2 // 5)
    chosen: dict[str, int] = {}
    for name, (narrowest, _widest) in wanted.items():
        if narrowest and room - (narrowest + len(GAP)) >= least_title:
            chosen[name] = narrowest
            room -= narrowest + len(GAP)
    for name in sorted(chosen, key=lambda name: wanted[name][1] - chosen[name]):
        extra = min(wanted[name][1] - chosen[name], room - least_title)
        if extra > 0:
            chosen[name] += extra
            room -= extra
    return Columns(title=max(1, room), **chosen)


def _span(narrowest: int, widest: int, values: Iterable[str]) -> tuple[int, int]:
    """(narrowest, widest) cells of a column for ``values``; (0, 0) when they are all empty."""
    longest = max((cell_len(value) for value in values), default=0)
    if not longest:
        return 0, 0
    return min(narrowest, longest), min(widest, longest)


def header_pieces(columns: Columns) -> list[Piece]:
    pieces: list[Piece] = [(" " * MARK_CELLS, "header"), (fit("Title", columns.title), "header")]
    for label, cells, right in _optional(columns, ("Folder", "Branch", "Model", "Activity", "Turns")):
        pieces.append(
            (GAP + (fit(label, cells) if not right else fit(label, cells).rstrip().rjust(cells)), "header")
        )
    return pieces


def _optional(columns: Columns, values: tuple[str, str, str, str, str]) -> list[tuple[str, int, bool]]:
    widths = (columns.folder, columns.branch, columns.model, columns.activity, columns.turns)
    right_aligned = (False, False, False, True, True)
    return [
        (value, cells, right)
        for value, cells, right in zip(values, widths, right_aligned, strict=True)
        if cells
    ]


def row_pieces(row: SessionRow, columns: Columns, now: datetime, home: str | None = None) -> list[Piece]:
    """The session's line: status mark, title, then the columns that fit."""
    summary = row.summary
    mark, role = STATUS_MARKS.get(summary.last_status, UNKNOWN_MARK)
    pieces: list[Piece] = [(f" {mark} ", role)]
    suffix = " (open)" if summary.in_use else ""
    title_cells = columns.title - cell_len(suffix)
    if title_cells >= 8:
        pieces.append((fit(summary.title, title_cells), "title"))
        pieces.append((suffix, "muted"))
    else:
        pieces.append((fit(summary.title, columns.title), "title"))
    values = (
        short_folder(summary.cwd, home),
        summary.branch or "",
        summary.model or "",
        relative_time(summary.last_activity, now),
        str(summary.turns),
    )
    for value, cells, right in _optional(columns, values):
        if right:
            text = value.rjust(cells) if cell_len(value) <= cells else fit(value, cells)
        elif value.startswith(("~", os.sep)):
            text = fit_left(value, cells)
        else:
            text = fit(value, cells)
        pieces.append((GAP + text, "muted"))
    return pieces


def fit_snippet(snippet: str, spans: tuple[tuple[int, int], ...], cells: int) -> list[Piece]:
    """``snippet`` cut to ``cells`` so that its first match shows, matches marked ``match``."""
    if cells <= 0:
        return []
    text, shift = snippet, 0
    if spans and cell_len(snippet) > cells:
        lead = max(0, spans[0][0] - cells // 4)
        if lead > 0:
            text, shift = "…" + snippet[lead:], lead - 1
    pieces: list[Piece] = []
    position = 0
    for start, end in spans:
        start, end = start - shift, end - shift
        if start < position or end <= start:
            continue
        pieces.append((text[position:start], "snippet"))
        pieces.append((text[start:end], "match"))
        position = end
    pieces.append((text[position:], "snippet"))
    return _cut_pieces([piece for piece in pieces if piece[0]], cells)


def _cut_pieces(pieces: list[Piece], cells: int) -> list[Piece]:
    """Pieces cut (with an ellipsis) or padded to exactly ``cells`` cells."""
    total = sum(cell_len(text) for text, _ in pieces)
    if total <= cells:
        return [*pieces, (" " * (cells - total), "snippet")]
    result: list[Piece] = []
    room = cells - 1
    for text, role in pieces:
        width = cell_len(text)
        if width <= room:
            result.append((text, role))
            room -= width
            continue
        if room > 0:
            result.append((set_cell_size(text, room), role))
        break
    result.append(("…", "snippet"))
    return result


def snippet_pieces(row: SessionRow, width: int) -> list[Piece]:
    """The second line of a search result: where the match is and the text around it."""
    hit = row.hit
    if hit is None:
        return [(" " * width, "snippet")]
    more = row.matching_turns - 1
    label = f"   ↳ turn {hit.turn_index + 1}, {hit.where}: "
    tail = ""
    if more > 0:
        tail = f"  (+{more}{' or more' if row.counting_stopped else ''} turn{'s' if more != 1 else ''})"
    room = width - cell_len(label) - cell_len(tail)
    if room < 10:
        return _cut_pieces([(label, "muted")], width)
    return [(label, "muted"), *fit_snippet(hit.snippet, hit.match_spans, room), (tail, "muted")]
