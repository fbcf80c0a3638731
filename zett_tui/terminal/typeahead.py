"""Keys typed while zett starts: kept exactly as typed until the app can take them. No Textual import.

A shell starts a program with its terminal in cooked mode: the line discipline echoes what is
typed and turns Enter into a newline, which the app would read as Ctrl+J ("insert a newline")
instead of Enter ("send"). Textual switches the terminal to raw input only once it runs, a few
hundred milliseconds later. So, as soon as the command line says the app will open, ``hold``
switches the terminal to the input mode Textual uses (Ctrl+C still interrupts a slow start) and
takes what was typed before, giving Enter back its meaning. The app replays it before anything
typed later (``zett_tui.ui.speed.typeahead_replay``); ``release`` puts the terminal back as it was.

Anything else that reads the terminal before the app starts must hand over the key bytes it read
but did not want, with ``keep``.
"""

from __future__ import annotations

import contextlib
import os
import select
from typing import Any, TextIO

_held: tuple[int, list[Any]] | None = None
_pending = bytearray()


def hold(stdin: TextIO) -> None:
    """Switch ``stdin``'s terminal to raw input now and keep what was typed so far (once; else a no-op)."""
    global _held
    if _held is not None:
        return
    try:
        import termios

        fd = stdin.fileno()
        if not os.isatty(fd):
            return
        saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError, AttributeError):
        return
    raw = [*saved[:6], list(saved[6])]
    raw[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR | termios.IXON | termios.IXOFF)
    raw[3] &= ~(termios.ICANON | termios.ECHO | termios.IEXTEN)
    raw[6][termios.VMIN] = 1
    raw[6][termios.VTIME] = 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, raw)
    except termios.error:
        return
    _held = (fd, saved)
    typed = _read_pending(fd)
    if saved[0] & termios.ICRNL:  # typed in cooked mode: each Enter became a newline
        typed = typed.replace(b"\n", b"\r")
    _pending.extend(typed)


def holding() -> bool:
    """True while ``hold`` has the terminal in raw input (and what is typed is kept for the app)."""
    return _held is not None


def keep(data: bytes) -> None:
    """Add key bytes read from the terminal by someone else before the app started (in order)."""
    _pending.extend(data)


def peek() -> str:
    """Everything kept so far, decoded; the buffer keeps it."""
    return _pending.decode("utf-8", errors="replace")


def take() -> str:
    """Everything kept so far, decoded; the buffer is emptied."""
    text = _pending.decode("utf-8", errors="replace")
    _pending.clear()
    return text


def release() -> None:
    """Put the terminal back the way ``hold`` found it; safe to call when nothing is held."""
    global _held
    held, _held = _held, None
    if held is None:
        return
    import termios

    fd, saved = held
    with contextlib.suppress(termios.error):
        termios.tcsetattr(fd, termios.TCSANOW, saved)


def _read_pending(fd: int) -> bytes:
    data = b""
    while select.select([fd], [], [], 0)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return data
