"""Let go of the styles of lines drawn long ago: Textual's cache of their ANSI codes.

Textual keeps the escape codes of the last 16,384 styles it wrote to the terminal
(``Strip.render_ansi``, an ``lru_cache``), keyed by the whole style. Every line of the transcript
carries a style of its own: the ``offset`` meta text selection reads (``Strip.apply_offsets``, the
line's place in the whole transcript), so each line drawn for the first time adds entries that no
later frame asks for again unless that line is drawn again. In ``benchmarks/bench_growth.py``'s
session that is ~290 entries a turn, ~550 bytes each: the cache is full by turn ~60 and holds
~8.6 MB from then on. Emptied as each turn ends (and at the quiet moment's collection), it holds
the styles of one turn's lines and those scrolled through since (a screen is a few hundred): the
first frame after it makes its codes again (a few microseconds a style), and the turn's styles die
with the rest of the turn's garbage instead of staying scattered among the objects that live on.
"""

from __future__ import annotations


def forget_drawn_styles() -> None:
    """Empty Textual's cache of ANSI codes by style (the next frame makes the codes it draws).

    Nothing happens on a Textual whose ``render_ansi`` is no longer an ``lru_cache``
    (``tests/test_upstream_contracts.py`` says so)."""
    from textual.strip import Strip

    clear = getattr(Strip.render_ansi, "cache_clear", None)
    if clear is not None:
        clear()


def drawn_styles_kept() -> int:
    """How many styles' codes the cache holds now (0 without such a cache)."""
    from textual.strip import Strip

    info = getattr(Strip.render_ansi, "cache_info", None)
    return int(info().currsize) if info is not None else 0
