"""A secret's place in a text, and the regex pieces that say where a key may start.

Shared by the passes of :mod:`zett_tui.core.secret_scan` and :mod:`zett_tui.core.secret_names`.
"""

from __future__ import annotations

from typing import NamedTuple


class Span(NamedTuple):
    """``text[start:end]`` is a secret of ``kind``; among spans at one place, lower ``rank`` wins."""

    start: int
    end: int
    kind: str
    rank: float


#: Where a key may start: not inside a word, but right after a JSON escape (``\n``) in a JSON line.
START = r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9_]))"


def starting(prefix: str) -> str:
    """``prefix`` (fixed width) where a key may start (as :data:`START`), tested after the
    literal so that the regex engine can scan for it."""
    return rf"{prefix}(?:(?<=\\[nrt]{prefix})|(?<![A-Za-z0-9_]{prefix}))"


def merge(spans: list[Span]) -> list[Span]:
    """``spans`` sorted and without overlaps: overlapping spans become one, named by the first."""
    merged: list[Span] = []
    for span in sorted(spans, key=lambda span: (span.start, span.rank)):
        if merged and span.start < merged[-1].end:
            if span.end > merged[-1].end:
                merged[-1] = merged[-1]._replace(end=span.end)
            continue
        merged.append(span)
    return merged
