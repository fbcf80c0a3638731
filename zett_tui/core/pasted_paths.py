"""Whether pasted text is the path of an image file: what a terminal pastes for a dragged file.

Terminals paste a dropped file's path in one of a few forms: ``/home/me/Shot 1.png`` quoted
(``'...'`` or ``"..."``), with escaped spaces (``/home/me/Shot\\ 1.png``), as a ``file://`` URI
(``%20`` for a space), and several files separated by spaces. ``image_paths`` returns the paths
when the whole paste is one or more such paths of existing image files, else None (the paste is
then ordinary text).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from urllib.parse import unquote, urlsplit

from zett_tui.core.images import is_image_name

__all__ = ["image_paths"]

#: A paste longer than this is text, not a dropped file.
MAX_PASTE = 4096


def _as_path(word: str, cwd: Path) -> Path:
    if word.startswith("file://"):
        parts = urlsplit(word)
        word = unquote(parts.path)
    path = Path(os.path.expanduser(word))
    return path if path.is_absolute() else cwd / path


def image_paths(text: str, cwd: Path) -> list[Path] | None:
    """The image files ``text`` names, when that is all it is (see the module docstring)."""
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_PASTE or "\n" in stripped.replace("\r\n", "\n").strip("\n"):
        lines = [line.strip() for line in stripped.splitlines() if line.strip()]
        if not lines or len(stripped) > MAX_PASTE:
            return None
        words = lines
    else:
        try:
            words = shlex.split(stripped, posix=True)
        except ValueError:
            return None
    if not words:
        return None
    paths = [_as_path(word, cwd) for word in words]
    if all(is_image_name(path.name) and path.is_file() for path in paths):
        return paths
    whole = _as_path(stripped.strip("'\""), cwd)  # one path with spaces, pasted bare
    if is_image_name(whole.name) and whole.is_file():
        return [whole]
    return None
