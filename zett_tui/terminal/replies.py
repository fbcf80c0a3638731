"""The terminal's answers to questions are not keys: they are taken out of what is read. No Textual.

A terminal answers on the same line as the keyboard: a Primary or Secondary Device Attributes
request (``ESC [ c``) comes back as ``ESC [ ? 62 ; 22 c``, a colour question (OSC 10/11/4) as
``ESC ] 11 ; rgb:... ST``, a DCS request (XTVERSION, DECRQSS) as ``ESC P ... ST``. Textual's
parser understands none of these, so it hands them on as typed characters: ``[?1;2c`` in the
prompt, sent to the model. zett asks for the background colour before the app starts (an answer
can arrive late, over SSH say), and other programs sharing the terminal (tmux, a shell hook) ask
too, so every chunk read from the terminal goes through :class:`ReplyFilter` first.

Focus in/out (``ESC [ I``/``ESC [ O``), cursor position reports and mode reports are left alone:
Textual parses those itself.
"""

from __future__ import annotations

import re

#: A whole answer: device attributes (primary ``?``, secondary ``>``, tertiary as DCS), an OSC
#: answer ended by BEL or ST, or a DCS answer ended by ST.
_REPLY = re.compile(
    r"\x1b\[[?>][0-9;]*c"  # DA1, DA2
    r"|\x1b\][0-9]+;[^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC 4/10/11/12/52... answers
    r"|\x1bP[^\x1b]*\x1b\\"  # DCS answers: DA3, XTVERSION, DECRQSS
)
#: The start of an answer cut off at the end of a read (the rest comes with the next read).
_UNFINISHED = re.compile(r"(?:\x1b\[[?>][0-9;]*|\x1b\][0-9]*(?:;[^\x07\x1b]*)?\x1b?|\x1bP[^\x1b]*\x1b?)\Z")
#: An unfinished answer longer than this is not one: it is let through as typed.
_LONGEST_HELD = 512


def strip_replies(text: str) -> str:
    """``text`` without the whole terminal answers in it."""
    return _REPLY.sub("", text) if "\x1b" in text else text


class ReplyFilter:
    """Takes the terminal's answers out of a stream of reads, also when one is split across two.

    Only what no key sends is held back between reads (``ESC [ ?``, ``ESC [ >``, ``ESC ]``,
    ``ESC P`` and what follows them), so a lone Escape or an arrow key is never delayed; Alt+]
    and Alt+Shift+P, the only keys that start that way, wait for the next read.
    """

    def __init__(self) -> None:
        self._held = ""

    def feed(self, text: str) -> str:
        """What of ``text`` (after what was held from the last read) is input, in order."""
        if self._held:
            text, self._held = self._held + text, ""
        if "\x1b" not in text:
            return text
        text = _REPLY.sub("", text)
        unfinished = _UNFINISHED.search(text)
        if unfinished is None or len(unfinished.group()) > _LONGEST_HELD:
            return text
        self._held = unfinished.group()
        return text[: unfinished.start()]

    def flush(self) -> str:
        """What is held back (the input ended): handed on as it came."""
        held, self._held = self._held, ""
        return held
