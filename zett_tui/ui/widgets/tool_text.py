"""What a tool row shows of a call's text: safe to draw, and bounded however large the text is.

- `OutputPreview`: a tool's output as at most a few hundred lines of at most a thousand characters
  (its first and last lines), every escape and control written out (``make_output_visible``).
- `one_line_visible`: a call's key argument on one line, every hidden character written out as an
  escape, with where the escapes are (a row draws them reversed, as the approval dialogs do).

Pure text, no rendering: the row itself is ``tool_block.ToolBlock``.
"""

from __future__ import annotations

from zett_tui.core.inert_text import hidden_characters, make_output_visible, visible_escape


class OutputPreview:
    """A bounded, inert view of tool output: at most `max_lines` lines of at most `max_line_chars`.

    Only the first and last lines are ever looked at, so a 50 MB output costs one newline count.
    """

    def __init__(self, output: str, max_lines: int = 200, max_line_chars: int = 1000) -> None:
        total = output.count("\n") + 1 if output else 0
        if output.endswith("\n"):
            total -= 1
        self.total_lines = total
        if total <= max_lines:
            head, tail = _first_lines(output, total), []
        else:
            head_count = max_lines * 2 // 3
            head, tail = _first_lines(output, head_count), _last_lines(output, max_lines - head_count)
        self.head = [_bounded_line(output, start, end, max_line_chars) for start, end in head]
        self.tail = [_bounded_line(output, start, end, max_line_chars) for start, end in tail]
        self.hidden_lines = total - len(head) - len(tail)

    def text(self) -> str:
        if not self.hidden_lines:
            return "\n".join(self.head)
        return "\n".join([*self.head, f"… {self.hidden_lines} lines hidden …", *self.tail])


def _first_lines(text: str, count: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    while len(spans) < count and start <= len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        spans.append((start, end))
        start = end + 1
    return spans


def _last_lines(text: str, count: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    end = len(text) - 1 if text.endswith("\n") else len(text)
    while len(spans) < count and end >= 0:
        start = text.rfind("\n", 0, end) + 1
        spans.append((start, end))
        end = start - 1
    spans.reverse()
    return spans


#: How an escaped character stands out in a tool row (as in the dialogs: ``ui.modals.shown_text``).
ESCAPE_STYLE = "reverse"


def one_line_visible(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` on one line (a newline as `` ⏎ ``, a tab as a space) with every hidden character
    written as an escape (``make_visible``), and where each escape lies in the result."""
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    length = 0
    start = 0

    def flat(part: str) -> str:
        return part.replace("\n", " ⏎ ").replace("\t", " ")

    for offset in hidden_characters(text):
        plain = flat(text[start:offset])
        escape = visible_escape(text[offset])
        pieces += [plain, escape]
        spans.append((length + len(plain), length + len(plain) + len(escape)))
        length += len(plain) + len(escape)
        start = offset + 1
    pieces.append(flat(text[start:]))
    return "".join(pieces), spans


def _bounded_line(text: str, start: int, end: int, max_chars: int) -> str:
    if end - start <= max_chars:
        return make_output_visible(text[start:end])
    return make_output_visible(text[start : start + max_chars]) + f" … (+{end - start - max_chars} chars)"
