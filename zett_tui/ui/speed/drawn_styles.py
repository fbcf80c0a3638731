"""Let go of the styles of lines drawn long ago: Textual's cache of their ANSI codes.

Textual keeps the escape codes of the last 16,384 styles it wrote to the terminal
(``Strip.render_ansi``, an ``lru_cache``), keyed by the whole style. Every line of the transcript
carries a style of its own: the ``offset`` meta text selection reads (``Strip.apply_offsets``, the
line's place in the whole transcript), so each line drawn for the first time adds entries that no
later frame asks for again unless that line is drawn again. In ``benchmarks/bench_growth.py``'s
session that is ~290 entries a turn, ~550 bytes each: the cache is full by turn ~60 and holds
~8.6 MB from then on. Emptied when the user has left zett alone, it holds only the styles of the
lines drawn since (a screen is a few hundred); the next frame makes the codes of its own again.
"""

from __future__ import annotations


def forget_drawn_styles() -> None:
    """Empty Textual's cache of ANSI codes by style (a quiet moment's job: the next frame refills
    what it draws)."""
    from textual.strip import Strip

    Strip.render_ansi.cache_clear()


def drawn_styles_kept() -> int:
    """How many styles' codes the cache holds now."""
    from textual.strip import Strip

    return int(Strip.render_ansi.cache_info().currsize)
