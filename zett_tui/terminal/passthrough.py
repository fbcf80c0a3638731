"""Getting an escape sequence through a terminal multiplexer to the terminal behind it.

tmux and GNU screen keep the sequences they do not know for themselves; both pass on a sequence
wrapped in a DCS string. The clipboard (OSC 52) and desktop notifications (OSC 9, OSC 777) use
these. No Textual here.
"""

from __future__ import annotations

__all__ = ["SCREEN_DCS_MAX_BYTES", "screen_chunks", "tmux_passthrough"]

SCREEN_DCS_MAX_BYTES = 768
"""GNU screen drops DCS strings longer than this (since 4.2.1), framing included."""

_ESC = "\x1b"
_ST = "\x1b\\"


def tmux_passthrough(sequence: str) -> str:
    """``sequence`` in tmux's DCS passthrough (``ESC P tmux; … ESC \\``, every ESC inside doubled),
    which tmux hands to the outer terminal when ``set -g allow-passthrough on``. ``sequence`` must
    not hold an ST of its own other than as doubled ESCs (end OSCs with BEL)."""
    return f"{_ESC}Ptmux;{sequence.replace(_ESC, _ESC + _ESC)}{_ST}"


def screen_chunks(sequence: str) -> list[str]:
    """``sequence`` split into DCS strings GNU screen passes on (each at most
    :data:`SCREEN_DCS_MAX_BYTES`, framing included)."""
    size = SCREEN_DCS_MAX_BYTES - 4  # each chunk is framed by ESC P … ESC \
    return [f"{_ESC}P{sequence[start : start + size]}{_ST}" for start in range(0, len(sequence), size)]
