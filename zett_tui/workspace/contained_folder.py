"""The files of a user's or a project's command or skill folder, read under fixed bounds.

Each file is read with ``read_contained``: only a regular file whose real path is inside the
folder it was found in (a link to ``~/.ssh/id_rsa`` or ``/dev/zero`` is refused with its
reason), never more than ``max_bytes``, and only valid UTF-8. A folder may hold at most
``MAX_ENTRIES`` entries in all and ``MAX_DEPTH`` levels below it; what goes past is one problem.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from zett_tui.core.contained_read import NotRead, describe_size, read_whole_contained, resolve

#: A command or skill file larger than this is refused (Claude Code's are a few KB).
MAX_FILE_BYTES = 64 * 1024
MAX_ENTRIES = 2_000
MAX_DEPTH = 4


@dataclass(frozen=True)
class Problem:
    """One file (or folder) that did not load, and why: shown as one line."""

    path: Path
    why: str

    def __str__(self) -> str:
        return f"{shown_path(self.path)}: {self.why}"


def shown_path(path: Path) -> str:
    """``path`` fit for one line of the screen: bytes that are not UTF-8 and control characters
    (a file named ``\x1b[2J.md``) become ``?``."""
    text = str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return "".join(char if char.isprintable() else "?" for char in text)


def read_text(path: Path, *, inside: Path) -> str:
    """The whole of ``path`` as UTF-8 text; ``NotRead`` with the reason when it cannot be."""
    data = read_whole_contained(
        path, inside=inside, max_bytes=MAX_FILE_BYTES, limit=describe_size(MAX_FILE_BYTES)
    )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotRead(f"is not valid UTF-8 (byte {error.start})") from None


def real_folder(
    folder: Path, *, inside: Path | None = None, problems: list[Problem] | None = None
) -> Path | None:
    """The real path of ``folder`` when it is a folder inside ``inside`` (when given), else None
    (a folder that is not there is no problem; one that links out is, in ``problems``)."""
    try:
        real = resolve(folder, inside=inside)
    except FileNotFoundError:
        return None
    except NotRead as why:
        if problems is not None:
            problems.append(Problem(folder, str(why)))
        return None
    return real if real.is_dir() else None


def walk_files(folder: Path, problems: list[Problem], *, suffix: str) -> Iterator[Path]:
    """Every file ending in ``suffix`` below ``folder`` (sorted, links not followed out of it)."""
    root = real_folder(folder)
    if root is None:
        return
    budget = [MAX_ENTRIES]
    yield from _walk(folder, root, 0, budget, problems, suffix)


def _walk(
    folder: Path, root: Path, depth: int, budget: list[int], problems: list[Problem], suffix: str
) -> Iterator[Path]:
    try:
        with os.scandir(folder) as listing:
            names = sorted(entry.name for entry in listing)
    except OSError as error:
        problems.append(Problem(folder, f"cannot be read ({error.strerror or error})"))
        return
    if len(names) > budget[0]:
        problems.append(Problem(folder, f"holds more than {MAX_ENTRIES} entries; the rest was not read"))
        names = names[: budget[0]]
    budget[0] -= len(names)
    for name in names:
        if name.startswith("."):
            continue
        path = folder / name
        try:
            real = resolve(path, inside=root)
        except FileNotFoundError:
            continue
        except NotRead as why:
            if name.endswith(suffix) or os.path.isdir(path):
                problems.append(Problem(path, str(why).replace("the project", "its folder")))
            continue
        if real.is_dir():
            if depth + 1 > MAX_DEPTH:
                problems.append(Problem(path, f"is nested more than {MAX_DEPTH} folders deep"))
                continue
            yield from _walk(path, root, depth + 1, budget, problems, suffix)
        elif name.endswith(suffix):
            yield path
