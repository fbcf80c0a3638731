"""The prompt box, drawn with a few escape sequences before Textual is imported. No Textual import.

The app's own first frame comes after about 0.2 s of imports. As soon as the command line says the
app will open, ``draw`` puts the same rounded prompt box at the bottom of the screen (on the
alternate screen, which the app uses too), with whatever was typed so far in it, and a status line
that says zett is starting. The app then repaints every cell of the screen. Keys typed in between
are held by ``typeahead`` (raw input, no echo) and replayed into the real prompt, in order.

Keys typed meanwhile show in the box as they arrive (``show_typed``, from ``early_echo``'s thread).

If the app never starts (a start-up error, Ctrl+C), ``erase`` leaves the alternate screen, so the
message is printed where the user's shell was. ``hand_over`` is called right before the app takes
the terminal; from then on ``erase`` does nothing, and ``show_typed`` nothing once the app paints
(``app_paints``, ``ui/speed/box_echo``).
"""

from __future__ import annotations

import contextlib
import os
import threading
import unicodedata
from collections.abc import Mapping

#: The prompt box's placeholder (the composer's, when idle): the same words before and after the app.
PLACEHOLDER = "Ask zett…  (Enter sends, Shift+Enter newline, / commands, @ files, Ctrl+C clear/stop)"
STATUS = " ○ starting…"
#: Below this size the app lays itself out differently: nothing is drawn.
MIN_COLUMNS, MIN_ROWS = 20, 6

_ENTER_ALTERNATE = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"
_LEAVE_ALTERNATE = "\x1b[2J\x1b[?1049l\x1b[?25h\r"
_DIM, _REVERSE, _PLAIN = "\x1b[2m", "\x1b[7m", "\x1b[0m"

#: The terminal the box is on, and its size (None: not drawn, or the app's now).
_drawn_on: tuple[int, int, int] | None = None
#: The app has the terminal (``hand_over``): the box is never erased from here.
_handed_over = False
#: Held while writing: ``show_typed`` runs in another thread than ``hand_over`` and ``erase``.
_writing = threading.Lock()


def draw(fd: int, typed: str, env: Mapping[str, str]) -> bool:
    """Draw the box on terminal ``fd`` (once); False when not drawn (not a terminal, too small...)."""
    global _drawn_on, _handed_over
    if _drawn_on is not None or env.get("TERM", "") in ("", "dumb"):
        return False
    try:
        if not os.isatty(fd):
            return False
        columns, rows = os.get_terminal_size(fd)
    except (OSError, ValueError):
        return False
    if columns < MIN_COLUMNS or rows < MIN_ROWS:
        return False
    try:
        os.write(fd, frame(columns, rows, typed).encode("utf-8", errors="replace"))
    except OSError:
        return False
    _drawn_on = (fd, columns, rows)
    _handed_over = False
    return True


def show_typed(typed: str) -> None:
    """Redraw the box's line with ``typed`` (from any thread); nothing once the app has the screen."""
    with _writing:
        if _drawn_on is None:
            return
        fd, columns, rows = _drawn_on
        with contextlib.suppress(OSError):
            os.write(fd, f"\x1b[{rows - 2};1H│ {_prompt_line(columns, typed)} │".encode(errors="replace"))


def frame(columns: int, rows: int, typed: str) -> str:
    """The escape sequences that draw the box and the status line on a ``columns`` x ``rows`` screen."""
    return (
        _ENTER_ALTERNATE
        + f"\x1b[{rows - 3};1H╭{'─' * (columns - 2)}╮"
        + f"\x1b[{rows - 2};1H│ {_prompt_line(columns, typed)} │"
        + f"\x1b[{rows - 1};1H╰{'─' * (columns - 2)}╯"
        + f"\x1b[{rows};1H{_DIM}{STATUS[: columns - 1]}{_PLAIN}"
    )


def _prompt_line(columns: int, typed: str) -> str:
    """Inside the box's borders: what was typed and the cursor, or the placeholder."""
    inner = columns - 4  # the border and one column of padding on each side
    shown = _printable_tail(typed, inner - 1)
    if shown:
        return shown + _REVERSE + " " + _PLAIN + " " * (inner - len(shown) - 1)
    line = _REVERSE + PLACEHOLDER[:1] + _PLAIN + _DIM + PLACEHOLDER[1:inner] + _PLAIN
    return line + " " * max(0, inner - len(PLACEHOLDER))


def hand_over() -> None:
    """The app takes the terminal now: ``erase`` leaves it alone. The box stays until the app
    paints over it (``app_paints``); ``show_typed`` still redraws its line meanwhile."""
    global _handed_over
    _handed_over = True


def app_paints() -> None:
    """The app draws its first frame now: nothing here writes to the terminal any more."""
    global _drawn_on
    with _writing:
        _drawn_on = None


def erase() -> None:
    """Leave the alternate screen if the box is still there (the app never started)."""
    global _drawn_on
    with _writing:
        drawn, _drawn_on = _drawn_on, None
        if drawn is None or _handed_over:
            return
        with contextlib.suppress(OSError):
            os.write(drawn[0], _LEAVE_ALTERNATE.encode())


def _printable_tail(typed: str, width: int) -> str:
    """What the prompt will hold of ``typed``, as far as one line shows it: the printable characters
    of the last line, its end when it is wider than ``width``. Escape sequences are left out."""
    text = typed.replace("\r", "\n").rsplit("\n", 1)[-1]
    kept: list[str] = []
    skipping = False
    for char in text:
        if char == "\x1b":
            skipping = True
            continue
        if skipping:
            skipping = not char.isalpha() and char != "~"
            continue
        # one column each, so the box keeps its width (wide and combining signs wait for the app)
        if (
            char.isprintable()
            and unicodedata.east_asian_width(char) not in "WF"
            and not unicodedata.combining(char)
        ):
            kept.append(char)
    return "".join(kept)[-width:] if width > 0 else ""
