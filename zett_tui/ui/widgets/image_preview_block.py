"""An image's small preview under its line in the transcript (``[ui] image_previews``)."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from zett_tui.core.image_thumbnail import Cells
from zett_tui.ui.widgets.transcript_blocks import Block, _line
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

__all__ = ["ImagePreviewBlock"]

_INDENT = "  "


class ImagePreviewBlock(Block):
    """Half-block cells (``core.image_thumbnail``), two pixels a cell, indented under the line."""

    compact = True

    def __init__(self, cells: Cells) -> None:
        super().__init__()
        self.cells = cells

    def plain_text(self) -> str:
        return ""  # a copy or a search of the transcript has the image's line, not its pixels

    def _estimate(self, width: int) -> int:
        return max(1, len(self.cells) // 2)

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        lines: list[Line] = []
        for top, bottom in zip(self.cells[0::2], self.cells[1::2], strict=False):
            text = Text(_INDENT)
            for upper, lower in zip(top, bottom, strict=False):
                text.append("▀", Style(color=_hex(upper), bgcolor=_hex(lower)))
            lines.append(_line(text, width, ctx))
        return lines


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)
