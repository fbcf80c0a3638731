"""Ask the terminal for its background colour (OSC 11) before the app starts. No Textual import.

Many terminals (Ghostty, Warp, iTerm2...) do not set ``COLORFGBG``, but nearly all answer
``ESC ] 11 ; ? ST`` with ``ESC ] 11 ; rgb:RRRR/GGGG/BBBB ST``. The question is followed by a
Primary Device Attributes request (``ESC [ c``), which every terminal answers, and answers after
the colour: so a terminal that ignores OSC 11 costs one round trip, not the whole timeout.

Runs only when standard input and output are the same kind of terminal zett will draw on, only
before Textual takes the terminal, and puts the terminal mode back whatever happens.
"""

from __future__ import annotations

import os
import re
import select
import sys
import time
from collections.abc import Mapping
from typing import Any, Literal

from zett_tui.terminal import typeahead
from zett_tui.terminal.replies import strip_replies

Background = Literal["dark", "light"]

QUERY = b"\x1b]11;?\x1b\\\x1b[c"
DEFAULT_TIMEOUT = 0.25
_COLOR_REPLY = re.compile(rb"\x1b\]11;rgba?:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})")
_DEVICE_ATTRIBUTES_REPLY = re.compile(rb"\x1b\[\?[0-9;]*c")


def query_background(
    env: Mapping[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT
) -> Background | None:
    """The terminal's background, "dark" or "light"; None when not on a terminal or it did not answer."""
    pending = BackgroundQuery.send(env)
    return None if pending is None else pending.answer(timeout)


class BackgroundQuery:
    """The question, asked early; the answer, read later.

    zett asks as it starts and reads the answer after its imports, so the terminal's round trip
    (a network round trip over SSH) overlaps work that has to be done anyway. Until the answer is
    read the terminal stays in non-canonical, no-echo mode, so neither the answer nor keys typed
    meanwhile are echoed; the keys are handed to ``typeahead``.
    """

    def __init__(self, fd: int, saved: list[Any], sent_at: float) -> None:
        self._fd = fd
        self._saved = saved
        self._sent_at = sent_at
        self._answered = False
        self._background: Background | None = None

    @classmethod
    def send(cls, env: Mapping[str, str] | None = None) -> BackgroundQuery | None:
        """Ask the terminal now; None when not on a terminal (nothing was sent)."""
        environment = os.environ if env is None else env
        if os.name != "posix" or environment.get("TERM", "") in ("", "dumb"):
            return None
        try:
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                return None
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        except (OSError, ValueError):
            return None
        return cls.send_on(fd)

    @classmethod
    def send_on(cls, fd: int) -> BackgroundQuery | None:
        """Ask on terminal ``fd``, which the query then owns (closed once answered)."""
        try:
            saved = _send(fd)
        except (OSError, ImportError):
            os.close(fd)
            return None
        return cls(fd, saved, time.monotonic())

    def answer(self, timeout: float = DEFAULT_TIMEOUT) -> Background | None:
        """Read the answer (waiting at most ``timeout`` from when it was asked) and put the terminal back.

        Only the first call reads; later ones return the same answer.
        """
        if self._answered:
            return self._background
        self._answered = True
        try:
            self._background = background_from_reply(_collect(self._fd, self._saved, self._sent_at + timeout))
        except OSError:
            pass
        finally:
            os.close(self._fd)
        return self._background


def ask(fd: int, timeout: float) -> bytes:
    """Send the question on terminal ``fd`` in non-canonical, no-echo mode; return what came back."""
    saved = _send(fd)
    return _collect(fd, saved, time.monotonic() + timeout)


def _send(fd: int) -> list[Any]:
    """Switch ``fd`` to non-canonical, no-echo mode and ask; returns the mode to restore."""
    import termios

    saved = termios.tcgetattr(fd)
    quiet = termios.tcgetattr(fd)
    quiet[3] &= ~(termios.ICANON | termios.ECHO)
    quiet[6][termios.VMIN] = 0
    quiet[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        os.write(fd, QUERY)
    except OSError:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
        raise
    return saved


def _collect(fd: int, saved: list[Any], deadline: float) -> bytes:
    """Read the answer until ``deadline``, restore the mode ``saved``, keep the keys typed meanwhile."""
    import termios

    answered = False
    try:
        reply, answered = _read_reply(fd, deadline)
    finally:
        # Without the closing answer a late reply could still arrive: drop what is queued.
        termios.tcsetattr(fd, termios.TCSADRAIN if answered else termios.TCSAFLUSH, saved)
    typeahead.keep(typed_keys(reply))
    return reply


def typed_keys(reply: bytes) -> bytes:
    """What the user typed while the terminal was answering: the reply minus the terminal's answers."""
    text = strip_replies(reply.decode("utf-8", errors="surrogateescape"))
    return text.encode("utf-8", errors="surrogateescape")


def _read_reply(fd: int, deadline: float) -> tuple[bytes, bool]:
    """Read until the closing answer or ``deadline``; what is already there is read even after it."""
    reply = b""
    while True:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 1024)
        if not chunk:
            break
        reply += chunk
        if _DEVICE_ATTRIBUTES_REPLY.search(reply):
            return reply, True
    return reply, False


def background_from_reply(reply: bytes) -> Background | None:
    """Classify an OSC 11 answer: "light" when dark text reads better on it than light text."""
    found = _COLOR_REPLY.search(reply)
    if found is None:
        return None
    red, green, blue = (int(part, 16) / (16 ** len(part) - 1) for part in found.groups())
    return "light" if _relative_luminance(red, green, blue) > _MIDDLE_LUMINANCE else "dark"


# Black and white text have the same contrast ratio on a background of this luminance.
_MIDDLE_LUMINANCE = (1.05 * 0.05) ** 0.5 - 0.05


def _relative_luminance(red: float, green: float, blue: float) -> float:
    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
