"""Text made harmless for a terminal: no escape sequences, no control characters, no bidi tricks.

Model text and tool output are possibly hostile: an OSC 52 sequence in an answer can put
``rm -rf ~`` on the clipboard, OSC 0 retitles the terminal, a bidi override reorders what a line
shows. Everything zett prints (the transcript, ``zett -p``, ``zett sessions show``) goes through
one of these first. No Textual here.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TextIO

__all__ = [
    "MAX_TITLE_CHARS",
    "InertWriter",
    "encodable",
    "hidden_characters",
    "inert_json",
    "make_inert",
    "make_output_visible",
    "make_terminal_output_inert",
    "make_visible",
    "one_line",
    "visible_escape",
]


# Control characters other than tab and newline, DEL, and the C1 range: never sent to the terminal.
_CONTROL_CHARS = "".join(chr(c) for c in (*range(0, 9), *range(11, 32), 127, *range(128, 160)))
# Bidi embeddings, overrides and isolates reorder what a terminal shows (Trojan Source); the line and
# paragraph separators break lines in some terminals and not in others; a lone surrogate cannot be
# written to a UTF-8 terminal at all (it can come out of a JSON "\ud800" escape).
_BIDI_CONTROLS = "".join(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))
_INERT_TABLE: dict[int, str | None] = {
    **dict.fromkeys(map(ord, _CONTROL_CHARS + _BIDI_CONTROLS)),
    0x2028: "\n",
    0x2029: "\n",
    **dict.fromkeys(range(0xD800, 0xE000), "\ufffd"),
}
# In tool output a separator must not add lines: the preview counts them before this runs.
_OUTPUT_INERT_TABLE = {**_INERT_TABLE, 0x2028: " ", 0x2029: " "}
_ANSI_SEQUENCE = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]                 # CSI: colours, cursor moves, clears
    | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?     # OSC: titles, hyperlinks, clipboard
    | \x1b[PX^_][^\x1b]*(?:\x1b\\)?          # DCS, SOS, PM, APC strings
    | \x1b[@-Z\\-_]                          # two-character escapes
    | \x9b[0-?]*[ -/]*[@-~]                  # 8-bit CSI
    """,
    re.VERBOSE,
)


def make_inert(text: str) -> str:
    """Drop control characters (ESC, CR, BEL, ...) and bidi controls from model text; keep tabs and
    newlines. Line separators become newlines, lone surrogates U+FFFD.

    Stateless per character, so it is safe on stream deltas that split an escape sequence.
    """
    if text.isprintable():
        return text
    return text.translate(_INERT_TABLE)


def make_terminal_output_inert(text: str) -> str:
    """Tool output: remove whole ANSI/OSC sequences, resolve carriage returns, drop other controls.

    Output may be binary, so anything a terminal lays out its own way goes too: format characters
    (zero-width joiners, bidi marks) are dropped, line separators become spaces, and code points
    with no character assigned (whose width terminals disagree on) show as U+FFFD.
    """
    if text.isprintable():
        return text
    text = _ANSI_SEQUENCE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        text = "\n".join(_overstrike(line) if "\r" in line else line for line in text.split("\n"))
    text = text.translate(_OUTPUT_INERT_TABLE)
    table = _output_table(text)
    return text.translate(table) if table else text


#: Colours and text styles: what a terminal draws as style, not as text, and hides nothing.
_SGR_SEQUENCE = re.compile(r"\x1b\[[0-9;:]*m")


def make_output_visible(text: str) -> str:
    """Tool output for the transcript, shown as a terminal would show it but hiding nothing:
    colours (SGR) are dropped and carriage-return overstrikes resolved (a progress bar); every other
    escape sequence (cursor moves, erases, titles, hyperlinks, the clipboard), control and format
    character (bidi, zero-width) is written out as an escape, as ``make_visible`` does for what a
    dialog shows. Other spaces and private-use characters (icon fonts) stay."""
    if text.isprintable():
        return text
    text = _SGR_SEQUENCE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        text = "\n".join(_overstrike(line) if "\r" in line else line for line in text.split("\n"))
    if text.isprintable():
        return text
    return "".join(char if _shown_in_output(char) else visible_escape(char) for char in text)


def _shown_in_output(char: str) -> bool:
    return char.isprintable() or char in "\t\n" or unicodedata.category(char) in ("Zs", "Co")


_OUTPUT_REPLACEMENTS = {"Cf": None, "Cn": "\ufffd"}


def _output_table(text: str) -> dict[int, str | None]:
    """A translation table for the distinct unprintable characters left in `text` (spaces such as
    U+00A0 stay; private-use characters stay too: they are icon fonts' glyphs)."""
    table: dict[int, str | None] = {}
    for char in set(text):
        if not char.isprintable() and char not in "\t\n":
            category = unicodedata.category(char)
            if category in _OUTPUT_REPLACEMENTS:
                table[ord(char)] = _OUTPUT_REPLACEMENTS[category]
    return table


def _overstrike(line: str) -> str:
    """What a terminal shows for a line with carriage returns (progress bars): later parts overwrite."""
    shown = ""
    for part in line.split("\r"):
        shown = part + shown[len(part) :]
    return shown


def visible_escape(char: str) -> str:
    """How ``make_visible`` writes one character: ``\\x1b``, ``\\r``, ``\\u202e``, ``\\U000e0041``."""
    code = ord(char)
    if char == "\r":
        return "\\r"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _shown_as_it_is(char: str) -> bool:
    return char.isprintable() or char in "\n\t"


def hidden_characters(text: str) -> list[int]:
    """The offsets in ``text`` of what ``make_visible`` writes as an escape (empty for most text)."""
    if text.isprintable():
        return []
    return [index for index, char in enumerate(text) if not _shown_as_it_is(char)]


def make_visible(text: str) -> str:
    """``text`` with everything a terminal would act on, hide or draw as nothing written out as an
    escape (``\\x1b``, ``\\r``, ``\\u202e``, ``\\u200b``...); newlines and tabs stay.

    For what a person approves (a command, a diff, a path, a server's command line): unlike
    ``make_inert``, which drops these characters, it shows that they are there. Escaped are the C0
    and C1 controls and DEL, format characters (bidi controls, zero-width spaces and joiners, tag
    characters), line and paragraph separators, lone surrogates, unassigned and private-use code
    points, and spaces other than U+0020 (a no-break space can pass for a word break).
    """
    if text.isprintable():
        return text
    return "".join(char if _shown_as_it_is(char) else visible_escape(char) for char in text)


#: What JSON leaves as it is but a terminal would act on: C1 controls, bidi controls, separators.
_JSON_UNSAFE = re.compile("[\u0080-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def inert_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with what a terminal would act on escaped.

    ``json.dumps`` escapes the C0 controls (ESC included) but not C1 or bidi controls; these become
    ``\\uXXXX`` escapes, so the data is unchanged for a JSON reader and inert on a screen.
    """
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class InertWriter:
    """A text stream that passes everything through ``make_inert`` (``zett sessions list|show``).

    Only ``write``, ``flush`` and ``isatty`` are offered: what zett's printing code uses.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(make_inert(text))

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()


_LONE_SURROGATES = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with lone surrogates (which no UTF-8 file, database or terminal can hold) as U+FFFD.

    They reach zett from a JSON ``"\\ud800"`` escape in a model's answer or tool arguments, and from
    undecodable bytes typed or pasted into the prompt; one of them used to fail a whole turn (and
    its record) with ``UnicodeEncodeError``.
    """
    return _LONE_SURROGATES.sub("\ufffd", text) if not text.isascii() else text


MAX_TITLE_CHARS = 200
#: Whitespace controls become spaces; other C0 controls, DEL and bidi overrides are removed.
_ONE_LINE_TABLE = {
    **dict.fromkeys([*range(0x20), 0x7F, *map(ord, _BIDI_CONTROLS)]),
    **{ord(char): " " for char in "\t\n\r\x0b\x0c"},
}


def one_line(text: str, limit: int = MAX_TITLE_CHARS) -> str:
    """``text`` as one trimmed line: whitespace runs become one space; control and bidi-override
    characters (which could disguise what a terminal shows) are dropped."""
    # Only the start can end up in the result; cleaning all of a 1 MB prompt would be wasted.
    flat = " ".join(text[: limit * 4 + 64].translate(_ONE_LINE_TABLE).split())
    if len(flat) > limit:
        return flat[: limit - 1].rstrip() + "…"
    return flat
