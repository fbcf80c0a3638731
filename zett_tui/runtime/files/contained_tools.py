"""zett's own ``read_file``, ``read``, ``view_image``, ``glob`` and ``grep``, kept to what may be read.

zett-agent's versions open whatever path they are given and walk wherever a glob leads (through a
symlinked folder, to ``/``), and a file name that is not UTF-8 fails every ``glob`` and ``grep``.
The read gate runs these instead, under the same names, with the same arguments, defaults,
limits and result format, so the model sees no difference, except that:

- every file is opened by its real path without following a last link and without blocking, the
  real path of what was actually opened is checked again (``/proc/self/fd``), and only a regular
  file is read: a path swapped for a link after the check, a named pipe, a device or a folder is
  refused (``read_file``) or skipped (``grep``) with a clear line;
- the glob walk never lists or enters a folder whose real path may not be read, and never returns
  a path that leads outside: those are left out and named (by their name inside the searched
  folder, never by what is behind them) in a last line, with a hint that reading one asks;
- names that are not valid UTF-8 (or hold control characters) are shown escaped (``bad\\xffname``).

``may_read`` takes a real path and says whether it may be read (``read_access.ReadAccess``).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zett_agent.messages import ImageBytesSource, ImageContent, TextContent
from zett_agent.tools.coding import (
    MAX_FILE_BYTES,
    _matched_path,
    _read_text_range,
    _resolve_glob_pattern,
)
from zett_agent.tools.images import IMAGE_SIGNATURE_BYTES, MAX_IMAGE_BYTES, image_media_type
from zett_agent.tools.output import MAX_MATCH_BYTES, MAX_OUTPUT_BYTES, utf8_prefix

from zett_tui.core.contained_read import read_at_most

__all__ = [
    "NotReadable",
    "SearchStart",
    "glob",
    "grep",
    "open_verified",
    "printable",
    "read",
    "read_file",
    "search_start",
    "view_image",
]

MayRead = Callable[[Path], bool]
#: How many left-out names the last line of a glob or grep lists.
WAY_OUTS_SHOWN = 5
_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class NotReadable(ValueError):
    """A file a read tool refuses to open; the message is one line for the model."""


def printable(text: str) -> str:
    """``text`` safe to show: undecodable bytes and control characters as ``\\xNN`` escapes."""
    try:
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


# -- opening one file -------------------------------------------------------------------------------


@contextlib.contextmanager
def open_verified(label: str, real: Path, may_read: MayRead) -> Iterator[tuple[int, os.stat_result]]:
    """Open the regular file at the real path ``real``; yields the descriptor and its ``fstat``.

    Raises ``FileNotFoundError`` when it does not exist and ``NotReadable`` (one line naming
    ``label``, the path the model gave) for anything that must not or cannot be read.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise NotReadable(f"Cannot read {printable(label)}: {error.strerror or error}") from error
    try:
        opened = _opened_path(fd, real)
        if opened is None or not may_read(opened):
            raise NotReadable(f"Cannot read {printable(label)}: it changed while it was being opened")
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            kind = _KINDS.get(stat.S_IFMT(status.st_mode), "not a regular file")
            raise NotReadable(f"Not read: {printable(label)} is {kind}; only regular files are read")
        yield fd, status
    finally:
        os.close(fd)


def _opened_path(fd: int, real: Path) -> Path | None:
    """The real path of what ``fd`` is open on (None when that cannot be made sure of)."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        pass
    try:  # no /proc (macOS): the same file as the one checked, or nothing
        opened, checked = os.fstat(fd), os.stat(real)
    except OSError:
        return None
    return real if (opened.st_dev, opened.st_ino) == (checked.st_dev, checked.st_ino) else None


def _fd_path(fd: int) -> Path:
    """A path that opens the same file as ``fd`` (for zett-agent's helpers, which take a path)."""
    proc = Path(f"/proc/self/fd/{fd}")
    return proc if proc.exists() else Path(f"/dev/fd/{fd}")


# -- read_file, read, view_image ------------------------------------------------------------------


def read_file(
    label: str, real: Path, may_read: MayRead, start_line: int, line_count: int, start_column: int
) -> str:
    """zett-agent's ``read_file`` on the real path ``real`` (``label``: the path the model gave)."""
    try:
        with open_verified(label, real, may_read) as (fd, _status):
            return _read_text_range(label, _fd_path(fd), start_line, line_count, start_column)
    except FileNotFoundError:
        raise ValueError(f"File does not exist: {printable(label)}") from None


def read(
    label: str, real: Path, may_read: MayRead, start_line: int, line_count: int, start_column: int
) -> str | list[TextContent | ImageContent]:
    """zett-agent's ``read``: UTF-8 text as a line range, a PNG/JPEG/GIF/WebP as an image."""
    try:
        with open_verified(label, real, may_read) as (fd, status):
            header = os.pread(fd, IMAGE_SIGNATURE_BYTES, 0)
            try:
                media_type = image_media_type(header)
            except ValueError:
                return _read_text_range(label, _fd_path(fd), start_line, line_count, start_column)
            if status.st_size > MAX_IMAGE_BYTES:
                raise ValueError(f"Image exceeds the {MAX_IMAGE_BYTES}-byte limit: {printable(label)}")
            data = read_at_most(fd, MAX_IMAGE_BYTES + 1)
    except FileNotFoundError:
        raise ValueError(f"File does not exist: {printable(label)}") from None
    name = printable(real.name)
    return [
        TextContent(text=f"Image {name}: {media_type}, {len(data)} bytes"),
        ImageContent(source=ImageBytesSource(data=data, media_type=media_type), alt_text=name),
    ]


def view_image(label: str, real: Path, may_read: MayRead, max_bytes: int) -> ImageContent:
    """zett-agent's ``view_image`` for a local file (URLs are refused before this)."""
    try:
        with open_verified(label, real, may_read) as (fd, _status):
            data = read_at_most(fd, max_bytes + 1)
    except FileNotFoundError:
        raise FileNotFoundError(f"Image is not a regular file: {printable(label)}") from None
    if len(data) > max_bytes:
        raise ValueError(f"Image exceeds the {max_bytes}-byte limit")
    return ImageContent(
        source=ImageBytesSource(data=data, media_type=image_media_type(data)),
        alt_text=printable(real.name),
    )


# -- glob and grep --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SearchStart:
    """Where a glob pattern starts: its fixed leading folders (the folder the dialog asks about)."""

    root: Path
    absolute: bool
    #: The pattern's parts; ``fixed`` of them lead from ``root`` to ``start``.
    parts: tuple[str, ...]
    fixed: int

    @property
    def start(self) -> Path:
        return self.root.joinpath(*self.parts[: self.fixed])


def search_start(pattern: str) -> SearchStart:
    """Split ``pattern`` as zett-agent does (relative to the current folder, or absolute)."""
    root, relative, absolute = _resolve_glob_pattern(pattern)
    parts = tuple(part for part in relative.split("/") if part not in ("", "."))
    if not parts:
        raise ValueError(f"Unacceptable pattern: {pattern!r}")
    for part in parts:
        if "**" in part and part != "**":
            raise ValueError("Invalid pattern: '**' can only be an entire path component")
    fixed = 0
    while fixed < len(parts) and not _is_wildcard(parts[fixed]):
        fixed += 1
    return SearchStart(root, absolute, parts, fixed)


def _is_wildcard(part: str) -> bool:
    return "*" in part or "?" in part or "[" in part


@dataclass
class _Walk:
    """One glob walk: what matched, and the paths left out because they lead elsewhere."""

    may_read: MayRead
    found: dict[Path, Path] = field(default_factory=dict)  # match -> its real path
    left_out: set[Path] = field(default_factory=set)
    unreadable: set[Path] = field(default_factory=set)

    def select(self, path: Path, real: Path, parts: tuple[str, ...]) -> None:
        if not parts:
            if self.may_read(real):
                self.found.setdefault(path, real)
            else:
                self.left_out.add(path)
            return
        if not self.may_read(real):  # never look inside a folder that may not be read
            self.left_out.add(path)
            return
        part, rest = parts[0], parts[1:]
        if part == "**":
            for folder, folder_real in self._folders(path, real):
                self.select(folder, folder_real, rest)
        elif _is_wildcard(part):
            matches = re.compile(fnmatch.translate(part)).fullmatch
            for entry in self._entries(path):
                if matches(entry.name) and (not rest or _is_dir(entry)):
                    child = path / entry.name
                    self.select(child, _real_child(entry, child, real), rest)
        else:
            child = path / part
            if os.path.isdir(child) if rest else os.path.exists(child):
                self.select(child, Path(os.path.realpath(child)), rest)

    def _entries(self, path: Path) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(path) as entries:
                return list(entries)
        except OSError:
            self.unreadable.add(path)
            return []

    def _folders(self, path: Path, real: Path) -> Iterator[tuple[Path, Path]]:
        """``path`` and every folder below it, not entering linked folders (as pathlib's ``**``)."""
        yield path, real
        for entry in self._entries(path):
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_folder:
                child = path / entry.name
                child_real = real / entry.name
                if self.may_read(child_real):
                    yield from self._folders(child, child_real)
                else:
                    self.left_out.add(child)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _real_child(entry: os.DirEntry[str], child: Path, parent_real: Path) -> Path:
    try:
        linked = entry.is_symlink()
    except OSError:
        linked = True
    return Path(os.path.realpath(child)) if linked else parent_real / entry.name


def _walk(pattern: str, may_read: MayRead) -> tuple[_Walk, SearchStart]:
    start = search_start(pattern)
    walk = _Walk(may_read)
    begin = start.start
    if os.path.isdir(begin) or (start.fixed == len(start.parts) and os.path.exists(begin)):
        walk.select(begin, Path(os.path.realpath(begin)), start.parts[start.fixed :])
    return walk, start


def _sorted(paths: Any) -> list[Path]:
    return sorted(paths, key=lambda path: path.parts)


def _notes(walk: _Walk, working_directory: Path, absolute: bool) -> list[str]:
    notes: list[str] = []
    if walk.left_out:
        names = [
            printable(_matched_path(path, working_directory, absolute=absolute))
            for path in _sorted(walk.left_out)
        ]
        shown = ", ".join(names[:WAY_OUTS_SHOWN]) + (" …" if len(names) > WAY_OUTS_SHOWN else "")
        notes.append(
            f"... [left out: {len(names)} path(s) that lead where this search may not read "
            f"({shown}); glob or read_file one of them directly and the user is asked]"
        )
    if walk.unreadable:
        notes.append(f"... [{len(walk.unreadable)} path(s) could not be read (no permission or gone)]")
    return notes


def glob(pattern: str, max_results: int, may_read: MayRead) -> str:
    """zett-agent's ``glob``, contained."""
    working_directory = Path.cwd().resolve()
    walk, start = _walk(pattern, may_read)
    paths: list[str] = []
    output_bytes = 0
    truncated = False
    for candidate in _sorted(walk.found):
        rendered = printable(_matched_path(candidate, working_directory, absolute=start.absolute))
        size = len(rendered.encode("utf-8"))
        if len(paths) == max_results or output_bytes + size > MAX_OUTPUT_BYTES:
            truncated = True
            break
        paths.append(rendered)
        output_bytes += size
    lines = list(paths)
    if truncated:
        lines.append("... [truncated; narrow the pattern or increase max_results]")
    return "\n".join(lines + _notes(walk, working_directory, start.absolute))


def grep(pattern: str, file_pattern: str, case_sensitive: bool, max_results: int, may_read: MayRead) -> str:
    """zett-agent's ``grep``, contained: only regular, readable UTF-8 files up to 2 MiB are searched."""
    working_directory = Path.cwd().resolve()
    flags = 0 if case_sensitive else re.IGNORECASE
    try:
        expression = re.compile(pattern, flags)
    except re.error as error:
        raise ValueError(f"Invalid regular expression: {error}") from error
    walk, start = _walk(file_pattern, may_read)
    lines: list[str] = []
    output_bytes = 0
    truncated = False
    for candidate in _sorted(walk.found):
        content = _searchable_text(candidate, walk)
        if content is None:
            continue
        shown_path = printable(_matched_path(candidate, working_directory, absolute=start.absolute))
        for line_number, line in enumerate(content.splitlines(), start=1):
            match = expression.search(line)
            if match is None:
                continue
            if len(lines) == max_results:
                truncated = True
                break
            text_start = max(0, match.start() - 100) if len(line.encode("utf-8")) > MAX_MATCH_BYTES else 0
            preview = utf8_prefix(line[text_start:], MAX_MATCH_BYTES)
            rendered = f"{shown_path}:{line_number}: {preview}"
            size = len(rendered.encode("utf-8"))
            if output_bytes + size > MAX_OUTPUT_BYTES:
                truncated = True
                break
            lines.append(rendered)
            output_bytes += size
        if truncated:
            break
    if truncated:
        lines.append("... [truncated; narrow the search or increase max_results]")
    return "\n".join(lines + _notes(walk, working_directory, start.absolute))


def _searchable_text(candidate: Path, walk: _Walk) -> str | None:
    """The text of one regular UTF-8 file up to 2 MiB; None (skipped) for anything else."""
    real = walk.found[candidate]
    try:
        with open_verified(str(candidate), real, walk.may_read) as (fd, status):
            if status.st_size > MAX_FILE_BYTES:
                return None
            data = read_at_most(fd, MAX_FILE_BYTES + 1)
    except NotReadable as error:
        if "only regular files" not in str(error):
            walk.unreadable.add(candidate)
        return None
    except OSError:
        walk.unreadable.add(candidate)
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
