"""F1 and ``/help``: two columns in the transcript, keys or commands on the left, what they do on
the right, each description wrapping under itself; an entry is never split across the columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text

from zett_tui.core.inert_text import make_inert
from zett_tui.ui.widgets.transcript_blocks import NoticeBlock
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

HelpSection = tuple[str, Sequence[tuple[str, str]]]
"""A heading and its (left, right) rows."""

_GAP = 2
_MIN_DESCRIPTION = 24


class HelpBlock(NoticeBlock):
    """Sections of two-column rows. The left column is as wide as its widest entry, at most a
    third of the width; a longer entry takes a line of its own with its description below it.
    A notice (an info one) in every other way: copied, searched and listed as its plain text."""

    def __init__(self, sections: Sequence[HelpSection]) -> None:
        inert = [
            (make_inert(title), [(make_inert(left), make_inert(right)) for left, right in rows])
            for title, rows in sections
        ]
        parts = []
        for title, rows in inert:
            parts.append(title)
            parts.extend(f"  {left}  {right}" for left, right in rows)
        super().__init__("\n".join(parts), "info")
        self.sections = inert

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        style = ctx.styles.notice_info
        lines: list[Line] = []
        widest = max((cell_len(left) for _title, rows in self.sections for left, _ in rows), default=0)
        column = min(widest, max(8, width // 3))
        indent = 2
        description_width = width - indent - column - _GAP
        stacked = description_width < _MIN_DESCRIPTION  # too narrow: each description under its entry
        for title, rows in self.sections:
            lines.extend(ctx.render_text(Text(title, style=style), width))
            for left, right in rows:
                lines.extend(self._row(left, right, width, column, stacked, ctx))
        return lines

    def _row(
        self, left: str, right: str, width: int, column: int, stacked: bool, ctx: RenderContext
    ) -> list[Line]:
        style = ctx.styles.notice_info
        key_style = ctx.style_id(style)
        pad = ("  ", 0)
        if stacked or cell_len(left) > column:
            head = [(pad, *line) for line in ctx.render_text(Text(left, style=style), width - 2)]
            body = ctx.render_text(Text(right, style=style), max(1, width - 6))
            return head + [(("      ", 0), *line) for line in body]
        description = ctx.render_text(Text(right, style=style), width - 2 - column - _GAP)
        first = (pad, (left + " " * (column - cell_len(left) + _GAP), key_style))
        rest = (pad, (" " * (column + _GAP), 0))
        return [(*(first if index == 0 else rest), *line) for index, line in enumerate(description)]
