"""A small preview of an image in terminal cells: each cell shows two pixels, the upper half block
(``▀``) in the top pixel's colour over the bottom pixel's colour as its background.

The transcript draws it with its own cells, so it works wherever colours do (over SSH, in tmux)
and cannot be torn by a redraw, unlike a graphics protocol's picture laid over the cells.
"""

from __future__ import annotations

import io

__all__ = ["Cells", "thumbnail_cells"]

#: Rows of pixels, each ``(r, g, b)``; always an even number of rows (two per terminal line).
Cells = tuple[tuple[tuple[int, int, int], ...], ...]

#: The preview's size in terminal cells at most (a cell is about twice as tall as wide).
MAX_COLUMNS = 32
MAX_LINES = 8


def thumbnail_cells(data: bytes, max_columns: int = MAX_COLUMNS, max_lines: int = MAX_LINES) -> Cells | None:
    """The pixels of ``data`` (an encoded image) scaled to fit ``max_columns`` × ``max_lines``
    cells, keeping its proportions; None when it cannot be decoded."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.draft("RGB", (max_columns * 4, max_lines * 8))
            rgb = image.convert("RGB")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None
    scale = min(max_columns / rgb.width, (max_lines * 2) / rgb.height, 1.0)
    width = max(1, round(rgb.width * scale))
    height = max(2, round(rgb.height * scale / 2) * 2)
    small = rgb.resize((width, height), Image.Resampling.BOX)
    raw = small.tobytes()
    pixels = [(raw[at], raw[at + 1], raw[at + 2]) for at in range(0, len(raw), 3)]
    return tuple(tuple(pixels[row * width : (row + 1) * width]) for row in range(height))
