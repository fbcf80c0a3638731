"""Where each key of a TOML text is: ``tomllib`` gives no positions, and a problem's message
should name its line (``config.toml:12: ui.theme: ...``).

A small scanner walks a text that ``tomllib`` already accepted. Positions only make messages
better, so a scanner mistake costs the line number, never the settings. Editing the text is not
its job (``toml_edit`` does that with ``tomlkit``).
"""

from __future__ import annotations

import bisect
import contextlib
import re
import tomllib
from dataclasses import dataclass, field

from zett_tui.config.toml_keys import BARE_KEY, Key

_SCALAR = re.compile(r"[^,\]}#\r\n]*")


@dataclass
class TomlOutline:
    """The lines of keys and headers in a valid TOML text, found by a small scanner."""

    lines: dict[Key, int] = field(default_factory=dict)
    """First line where each key or table (and each prefix of a dotted key) appears."""

    @classmethod
    def of(cls, text: str) -> TomlOutline:
        """Best effort: positions only make messages better, so a scanner mistake costs them, not the app."""
        scanner = _Scanner(text)
        with contextlib.suppress(Exception):
            scanner.run()
        return scanner.outline

    def line_of(self, key: Key) -> int | None:
        """The line of ``key``, else of the nearest enclosing table that has one."""
        for length in range(len(key), 0, -1):
            line = self.lines.get(key[:length])
            if line is not None:
                return line
        return None


class _ScanError(Exception):
    pass


class _Scanner:
    """Walks a TOML text that ``tomllib`` already accepted, noting where every key is."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line_starts = [0, *(index + 1 for index, char in enumerate(text) if char == "\n")]
        self.outline = TomlOutline()

    def run(self) -> None:
        table: Key = ()
        while self.pos < len(self.text):
            self.skip_blank()
            if self.peek() in ("#", "\n", "\r", ""):
                self.next_line()
            elif self.peek() == "[":
                table = self.header()
            else:
                start = self.pos
                key = self.key()
                self.expect("=")
                self.value((*table, *key), self.line_at(start))
                self.next_line()

    def header(self) -> Key:
        start = self.pos
        is_array = self.text.startswith("[[", start)
        self.pos += 2 if is_array else 1
        key = self.key()
        self.expect("]]" if is_array else "]")
        self.note(key, self.line_at(start))
        self.next_line()
        return key

    def key(self) -> tuple[str, ...]:
        parts: list[str] = []
        while True:
            self.skip_blank()
            start = self.pos
            if self.peek() == '"':
                self.basic_string()
                parts.append(tomllib.loads(f"k = {self.text[start : self.pos]}")["k"])
            elif self.peek() == "'":
                self.literal_string()
                parts.append(self.text[start + 1 : self.pos - 1])
            else:
                bare = BARE_KEY.match(self.text, self.pos)
                if bare is None:
                    raise _ScanError(self.pos)
                parts.append(bare.group())
                self.pos = bare.end()
            self.skip_blank()
            if self.peek() != ".":
                return tuple(parts)
            self.pos += 1

    def value(self, key: Key, line: int) -> None:
        start = self.pos
        if self.text.startswith(('"""', "'''"), start):
            self.multiline_string(self.text[start : start + 3])
        elif self.peek() == '"':
            self.basic_string()
        elif self.peek() == "'":
            self.literal_string()
        elif self.peek() == "[":
            self.array(key)
        elif self.peek() == "{":
            self.inline_table(key)
        else:
            scalar = _SCALAR.match(self.text, start)
            length = len(scalar.group().rstrip()) if scalar else 0
            if not length:
                raise _ScanError(start)
            self.pos += length
        self.note(key, line)

    def array(self, key: Key) -> None:
        self.pos += 1
        index = 0
        while True:
            self.skip_space()
            if self.peek() == "]":
                self.pos += 1
                return
            self.value((*key, index), self.line_at(self.pos))
            index += 1
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "]":
                raise _ScanError(self.pos)

    def inline_table(self, key: Key) -> None:
        self.pos += 1
        while True:
            self.skip_space()
            if self.peek() == "}":
                self.pos += 1
                return
            start = self.pos
            inner = self.key()
            self.expect("=")
            self.value((*key, *inner), self.line_at(start))
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "}":
                raise _ScanError(self.pos)

    def basic_string(self) -> None:
        self.pos += 1
        while self.peek() not in ('"', "\n", ""):
            self.pos += 2 if self.peek() == "\\" else 1
        if self.peek() != '"':
            raise _ScanError(self.pos)
        self.pos += 1

    def literal_string(self) -> None:
        end = self.text.find("'", self.pos + 1)
        if end < 0 or "\n" in self.text[self.pos : end]:
            raise _ScanError(self.pos)
        self.pos = end + 1

    def multiline_string(self, delimiter: str) -> None:
        self.pos += 3
        while not self.text.startswith(delimiter, self.pos):
            if self.pos >= len(self.text):
                raise _ScanError(self.pos)
            self.pos += 2 if delimiter == '"""' and self.peek() == "\\" else 1
        while self.peek() == delimiter[0]:  # up to two quotes may end the content before the delimiter
            self.pos += 1

    def note(self, key: Key, line: int) -> None:
        for length in range(1, len(key) + 1):
            self.outline.lines.setdefault(key[:length], line)

    def expect(self, token: str) -> None:
        self.skip_blank()
        if not self.text.startswith(token, self.pos):
            raise _ScanError(self.pos)
        self.pos += len(token)
        self.skip_blank()

    def peek(self) -> str:
        return self.text[self.pos : self.pos + 1]

    def skip_blank(self) -> None:
        while self.peek() in (" ", "\t"):
            self.pos += 1

    def skip_space(self) -> None:
        """Blanks, newlines and comments, as allowed inside arrays."""
        while True:
            self.skip_blank()
            if self.peek() == "#":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            elif self.peek() in ("\n", "\r"):
                self.pos += 1
            else:
                return

    def next_line(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end + 1

    def line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)
