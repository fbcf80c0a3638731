"""Find's highlighting: where a query's hits lie on a block's rendered lines, and marking them.

Counting is done on each block's search text (transcript_search.py); this module places the hits
on what is drawn, for the lines on screen and the block of the current match only. A hit is one
piece per row it covers: one for a hit on one row, two for one that a soft wrap broke, a phrase
wrapped at its space ("zebra" ending a row, "crossing" starting the next) or a word too long for a
row folded inside it.

Which two rows a wrap joined cannot be read from the rows alone (a row of tool output followed by
another looks the same), so the count decides: a block's hits across two rows are looked for only
when its rows hold fewer hits than its search text, and no more than are missing. Across two rows,
the lower row's text starts after its indent (spaces, a quote bar, the prompt's marker); a fold
(no space between the two parts) is taken only where the upper row is full to the edge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from zett_tui.ui.widgets.transcript_render import Line, overlay
from zett_tui.ui.widgets.transcript_search import FindState, fold

Span = tuple[int, int]
"""Cells [start, end) of a hit on a rendered line."""
Piece = tuple[int, int, int]
"""(line of the block, first cell, cell after the last) of a hit, or of its part on one row."""
Hit = tuple[Piece, ...]
"""A hit in a block's rendered lines: its pieces, top row first."""

_INDENT = re.compile(r"[\s\u2500-\u259f]*")
"""What a row starts with before its text: spaces, box-drawing and block characters (bars, gutters)."""
_KEPT_BLOCKS = 256
"""Blocks whose hits are kept; more and the cache starts again (a few screens' worth)."""


def line_spans(line: Line, needle: str, case_sensitive: bool) -> list[Span]:
    """Where `needle` (already folded) occurs on a rendered line, in cells."""
    return _text_spans("".join(part for part, _style in line), needle, case_sensitive)


def _text_spans(text: str, needle: str, case_sensitive: bool) -> list[Span]:
    if not needle:
        return []
    haystack = fold(text, case_sensitive)
    spans: list[Span] = []
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        spans.append((start, end))
        start = haystack.find(needle, end)
    if spans and not text.isascii():  # wide characters: a character index is not a column
        spans = [(cell_len(text[:start]), cell_len(text[:end])) for start, end in spans]
    return spans


def block_hits(
    lines: Sequence[Line], needle: str, case_sensitive: bool, expected: int | None = None
) -> list[Hit]:
    """Every hit in a block's rendered lines, in reading order. With `expected` (the block's count
    in its search text), hits broken across two rows make up what the rows alone are short of."""
    texts = ["".join(part for part, _style in line) for line in lines]
    on_rows = [_text_spans(text, needle, case_sensitive) for text in texts]
    hits: list[Hit] = [((row, *span),) for row, spans in enumerate(on_rows) for span in spans]
    missing = 0 if expected is None else expected - len(hits)
    if missing <= 0 or len(needle) < 2:
        return hits
    wrapped = _wrapped_hits(texts, on_rows, needle, case_sensitive)
    return sorted(hits + wrapped[:missing])


def _wrapped_hits(
    texts: Sequence[str], on_rows: Sequence[list[Span]], needle: str, case_sensitive: bool
) -> list[Hit]:
    """Hits that start on one row and end on the next, in reading order."""
    found: list[Hit] = []
    reach = len(needle) - 1
    for row in range(len(texts) - 1):
        upper, lower = texts[row], texts[row + 1]
        upper_end = len(upper.rstrip())
        lower_start = _INDENT.match(lower).end()  # type: ignore[union-attr]  # matches the empty string
        if not upper_end or lower_start >= len(lower):
            continue
        tail = upper[max(0, upper_end - reach) : upper_end]
        head = lower[lower_start : lower_start + reach]
        joins = (" ", "") if upper_end == len(upper) else (" ",)
        for join in joins:
            joined = fold(tail + join + head, case_sensitive)
            start = joined.find(needle)
            while start >= 0:
                end = start + len(needle)
                if start < len(tail) and end > len(tail) + len(join):
                    top = (row, _cells(upper, upper_end - len(tail) + start), _cells(upper, upper_end))
                    rest = lower_start + end - len(tail) - len(join)
                    bottom = (row + 1, _cells(lower, lower_start), _cells(lower, rest))
                    if not _overlaps(top, on_rows[row]) and not _overlaps(bottom, on_rows[row + 1]):
                        found.append((top, bottom))
                start = joined.find(needle, start + 1)
    return found


def _cells(text: str, index: int) -> int:
    return index if text.isascii() else cell_len(text[:index])


def _overlaps(piece: Piece, spans: Sequence[Span]) -> bool:
    _row, start, end = piece
    return any(other_start < end and start < other_end for other_start, other_end in spans)


def _apart(pieces: list[tuple[Span, int]]) -> list[tuple[Span, int]]:
    """Sorted pieces of one row without those that overlap an earlier one (`mark` needs them apart)."""
    kept: list[tuple[Span, int]] = []
    for piece in pieces:
        if not kept or piece[0][0] >= kept[-1][0][1]:
            kept.append(piece)
    return kept


def mark(strip: Strip, spans: Sequence[tuple[Span, Style]]) -> Strip:
    """`strip` with each span of cells overlaid with its style (spans in order, not overlapping)."""
    cuts = [cut for (start, end), _style in spans for cut in (start, end)]
    pieces = strip.divide([*cuts, strip.cell_length])
    marked = [pieces[0]]
    for number, (_span, style) in enumerate(spans):
        marked.extend((overlay(pieces[2 * number + 1], style), pieces[2 * number + 2]))
    return Strip.join(marked)


def match_styles(widget: Widget) -> tuple[Style, Style]:
    """(every match: a background under the text's own colours, the current match), from the
    `transcript--find-match` and `transcript--find-current` component classes of `widget`."""
    match = widget.get_component_rich_style("transcript--find-match")
    return (
        Style(bgcolor=match.bgcolor, bold=match.bold, underline=match.underline, reverse=match.reverse),
        widget.get_component_rich_style("transcript--find-current"),
    )


@dataclass(frozen=True)
class _Placed:
    """A block's hits for one query on one render of its lines, by row."""

    lines: Sequence[Line]
    query: tuple[str, bool, int | None]
    hits: list[Hit]
    rows: dict[int, list[tuple[Span, int]]]
    """Row of the block -> its pieces there, with the number of the hit each belongs to."""


class FindHighlight:
    """The hits of the query on the blocks drawn, each block's kept until it renders again."""

    def __init__(self) -> None:
        self._placed: dict[int, _Placed] = {}

    def forget(self) -> None:
        self._placed.clear()

    def hits(
        self, index: int, lines: Sequence[Line], needle: str, case_sensitive: bool, expected: int | None
    ) -> list[Hit]:
        """`block_hits` for block `index`, computed once per render of its lines and query."""
        return self._place(index, lines, needle, case_sensitive, expected).hits

    def mark_row(
        self,
        strip: Strip,
        state: FindState,
        at: tuple[int, int],
        lines: Sequence[Line],
        styles: tuple[Style, Style],
    ) -> Strip:
        """`strip`, the row `at` = (block, row of the block) of `lines`, with the hits of `state`'s
        query on it marked: the pieces of the current match in the current style (`styles` is
        (every match, the current one), from `match_styles`)."""
        index, row = at
        counts, needle, case_sensitive = state.counts, state.needle, state.case_sensitive
        expected = counts[index] if index < len(counts) else 0
        current = state.current[1] if state.current is not None and state.current[0] == index else None
        if not expected:  # counted nothing (or not yet): only what this row shows, as drawn
            found = [(span, -1) for span in line_spans(lines[row], needle, case_sensitive)]
        else:
            placed = self._place(index, lines, needle, case_sensitive, expected)
            found = placed.rows.get(row, [])
            if current is not None and placed.hits:
                current = min(current, len(placed.hits) - 1)
        width = strip.cell_length
        spans = [((start, min(end, width)), number) for (start, end), number in found if start < width]
        if not spans:
            return strip
        match, current_style = styles
        return mark(strip, [(span, current_style if number == current else match) for span, number in spans])

    def _place(
        self, index: int, lines: Sequence[Line], needle: str, case_sensitive: bool, expected: int | None
    ) -> _Placed:
        query = (needle, case_sensitive, expected)
        placed = self._placed.get(index)
        if placed is not None and placed.lines is lines and placed.query == query:
            return placed
        hits = block_hits(lines, needle, case_sensitive, expected)
        rows: dict[int, list[tuple[Span, int]]] = {}
        for number, hit in enumerate(hits):
            for row, start, end in hit:
                rows.setdefault(row, []).append(((start, end), number))
        for row, pieces in rows.items():
            rows[row] = _apart(sorted(pieces))
        if len(self._placed) >= _KEPT_BLOCKS:
            self._placed.clear()
        placed = self._placed[index] = _Placed(lines, query, hits, rows)
        return placed
