"""Large pastes kept whole but shown as one short placeholder, ``[Pasted 240 lines #1]``.

The composer holds the placeholder; the text behind it is put back on submit and for the external
editor. A placeholder that is edited (or deleted) no longer matches and so no longer expands: the
paste is gone from the prompt. The pasted text is kept as it came, except that CR LF and lone CR
become LF, as Textual's text area does for any typed or small pasted text (terminals often send
CR for each line break of a paste).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Any placeholder this module writes; the exact text is checked against the stored one.
PLACEHOLDER = re.compile(r"\[Pasted [\d,]+ (?:lines|chars) #(\d+)\]")


def normalize_line_endings(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)


@dataclass
class PasteStore:
    """The pastes of one composer, numbered from 1 in order."""

    #: A paste with more lines than this, or more characters than ``max_chars``, is collapsed.
    max_lines: int = 10
    max_chars: int = 1000
    _texts: dict[int, str] = field(default_factory=dict)
    _placeholders: dict[int, str] = field(default_factory=dict)
    _next: int = 1

    def is_large(self, text: str) -> bool:
        text = normalize_line_endings(text)
        return line_count(text) > self.max_lines or len(text) > self.max_chars

    def add(self, text: str) -> str:
        """Keep ``text``; return the placeholder that stands for it."""
        text = normalize_line_endings(text)
        number = self._next
        self._next += 1
        lines = line_count(text)
        size = f"{lines:,} lines" if lines > 1 else f"{len(text):,} chars"
        placeholder = f"[Pasted {size} #{number}]"
        self._texts[number] = text
        self._placeholders[number] = placeholder
        return placeholder

    def __len__(self) -> int:
        return len(self._texts)

    def text_of(self, number: int) -> str | None:
        return self._texts.get(number)

    def expand(self, text: str) -> str:
        """``text`` with every intact placeholder replaced by its paste (in one pass, so a paste
        that itself contains placeholder-like text is left as it is)."""
        if "[Pasted " not in text:
            return text
        return PLACEHOLDER.sub(self._expansion, text)

    def _expansion(self, match: re.Match[str]) -> str:
        number = int(match.group(1))
        if self._placeholders.get(number) != match.group(0):
            return match.group(0)
        return self._texts[number]

    def compact(self, text: str) -> str:
        """The reverse of ``expand`` for text that came back from an editor: each paste found
        there unchanged is collapsed again into its placeholder (newest paste first)."""
        for number in sorted(self._texts, reverse=True):
            pasted = self._texts[number]
            if pasted and pasted in text:
                text = text.replace(pasted, self._placeholders[number], 1)
        return text

    def span_ending_at(self, line: str, column: int) -> tuple[int, int] | None:
        """The (start, end) of an intact placeholder in ``line`` that ends at ``column``."""
        for match in PLACEHOLDER.finditer(line, 0, column):
            if match.end() == column and self._is_intact(match):
                return match.start(), match.end()
        return None

    def span_starting_at(self, line: str, column: int) -> tuple[int, int] | None:
        """The (start, end) of an intact placeholder in ``line`` that starts at ``column``."""
        match = PLACEHOLDER.match(line, column)
        if match is not None and self._is_intact(match):
            return match.start(), match.end()
        return None

    def _is_intact(self, match: re.Match[str]) -> bool:
        return self._placeholders.get(int(match.group(1))) == match.group(0)

    def keep_only(self, texts: Iterable[str]) -> None:
        """Forget the pastes that none of ``texts`` refers to (the prompt and its history)."""
        used = {int(match.group(1)) for text in texts for match in PLACEHOLDER.finditer(text)}
        for number in [number for number in self._texts if number not in used]:
            del self._texts[number]
            del self._placeholders[number]
