"""The escape sequences that ask the terminal for the user's attention: a desktop notification and
the window title.

- **Notification**: OSC 9 (``ESC ] 9 ; text BEL``: iTerm2, WezTerm, kitty, Ghostty...) and
  OSC 777 (``ESC ] 777 ; notify ; title ; body BEL``: VTE terminals such as GNOME Terminal,
  urxvt, foot, WezTerm, Ghostty). Which of the two a terminal honours cannot be asked (it never
  answers), so both are sent, except where the environment names a terminal known to show OSC 9:
  it gets only that one, so a terminal that honours both does not show the message twice. Inside
  tmux each is wrapped in tmux's passthrough (reaching the terminal with ``set -g allow-passthrough
  on``), inside GNU screen in screen's DCS string.
- **Title**: OSC 0 (window and icon title). The title in use is first pushed on the terminal's title
  stack (``CSI 22;0 t``) and popped back (``CSI 23;0 t``) afterwards; a terminal without the stack
  gets the plain "zett" title instead. Inside tmux the title is the pane's (``#{pane_title}``).

Every text in a sequence may come from the model or the user (a prompt, a dialog's question), so
:func:`snippet` makes it one short line of printable characters with no ``;``: nothing in it can
end the sequence early, start another, or split OSC 777's fields. No Textual here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from zett_tui.core.inert_text import make_inert
from zett_tui.terminal.passthrough import screen_chunks, tmux_passthrough

__all__ = [
    "PLAIN_TITLE",
    "SNIPPET_MAX_CHARS",
    "TITLE_DONE",
    "TITLE_WAITING",
    "notification",
    "osc9",
    "osc777",
    "restore_title",
    "set_title",
    "snippet",
]

SNIPPET_MAX_CHARS = 80
"""The longest snippet of a prompt or question a notification carries (an ellipsis marks the cut)."""

PLAIN_TITLE = "zett"
TITLE_WAITING = "zett: waiting for you"
TITLE_DONE = "zett: done"

_ESC = "\x1b"
_BEL = "\a"
_PUSH_TITLE = f"{_ESC}[22;0t"
_POP_TITLE = f"{_ESC}[23;0t"
_SPACES = re.compile(r"\s+")

#: ``TERM_PROGRAM`` values and ``TERM`` names of terminals known to show OSC 9 notifications.
_OSC9_PROGRAMS = ("iTerm.app", "WezTerm", "ghostty")
_OSC9_TERMS = ("xterm-kitty", "xterm-ghostty", "wezterm")


def snippet(text: str, limit: int = SNIPPET_MAX_CHARS) -> str:
    """The first non-empty line of ``text``, made safe to put inside an escape sequence: control
    characters (C0 with ESC and BEL, DEL, C1 such as ``\\x9c``) and bidi controls are dropped (what
    is left of an escape sequence is plain text), other unprintable characters and ``;`` become
    spaces, runs of spaces one, and it is cut to ``limit`` characters."""
    lines = (line.strip() for line in make_inert(text).splitlines())
    first = next((line for line in lines if line), "")[: limit * 4]  # bound the work on a huge line
    cleaned = "".join(
        character if character.isprintable() and character != ";" else " " for character in first
    )
    line = _SPACES.sub(" ", cleaned).strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def osc9(text: str) -> str:
    """The OSC 9 notification for ``text`` (made a :func:`snippet` of its own, never over
    ``SNIPPET_MAX_CHARS`` * 2)."""
    return f"{_ESC}]9;{snippet(text, SNIPPET_MAX_CHARS * 2)}{_BEL}"


def osc777(title: str, body: str) -> str:
    """The OSC 777 notification with ``title`` and ``body``, each made a :func:`snippet`."""
    return f"{_ESC}]777;notify;{snippet(title)};{snippet(body)}{_BEL}"


def _shows_osc9(env: Mapping[str, str]) -> bool:
    return env.get("TERM_PROGRAM", "") in _OSC9_PROGRAMS or env.get("TERM", "") in _OSC9_TERMS


def _through_multiplexer(sequence: str, env: Mapping[str, str]) -> list[str]:
    if env.get("TMUX"):
        return [tmux_passthrough(sequence)]
    if env.get("STY"):
        return screen_chunks(sequence)
    return [sequence]


def notification(headline: str, detail: str, env: Mapping[str, str]) -> list[str]:
    """What to write for a desktop notification saying ``headline`` (``zett: done``) about
    ``detail`` (a prompt or question, possibly hostile; may be empty)."""
    line = snippet(detail)
    text = f"{headline} - {line}" if line else headline
    sequences = [osc9(text)] if _shows_osc9(env) else [osc9(text), osc777(headline, line or headline)]
    return [wrapped for sequence in sequences for wrapped in _through_multiplexer(sequence, env)]


def set_title(title: str, *, push: bool) -> str:
    """Set the terminal title to ``title``; ``push``: keep the title in use on the title stack first."""
    return f"{_PUSH_TITLE if push else ''}{_ESC}]0;{snippet(title)}{_BEL}"


def restore_title() -> str:
    """Back to the title before :func:`set_title` pushed it; "zett" where there is no title stack."""
    return f"{_ESC}]0;{PLAIN_TITLE}{_BEL}{_POP_TITLE}"
