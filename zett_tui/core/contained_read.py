"""Read a file only when its real path is inside a folder, only when it is a regular file, and only so much.

A cloned repository decides what its paths point at: ``AGENTS.md -> ~/key.pem``,
``.zett/config.toml`` a named pipe (an ``open`` that never returns), a 2 GB file, a link loop.
Everything zett reads from a project folder on its own (instruction files, ``.zett/``) goes
through ``read_contained``: the path is resolved (every symlink, ``..``), the real path must be
inside ``inside``, the file is checked with ``lstat`` before it is opened (a device or a pipe is
never opened), opened without following a last link and without blocking, checked again with
``fstat``, and never read past ``max_bytes``.

Anything that cannot be read this way raises ``NotRead`` with the reason in words fit for a
one-line notice ("is a link to a file outside the project"); a file that does not exist raises
``FileNotFoundError`` as usual, so callers can tell "absent" from "refused".
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: What one ``os.read`` of ``read_at_most`` asks for at the most.
_CHUNK = 1 << 20
#: What zett reads of a project's own settings files (``.zett/``) at most, in all.
PROJECT_FILES_MAX_BYTES = 1 << 20


class NotRead(Exception):
    """A file that was left unread on purpose; ``str()`` is the reason ("is a named pipe, not a file")."""


@dataclass(frozen=True)
class ContainedText:
    """What was read: at most ``max_bytes`` of the file, and whether there was more."""

    data: bytes
    truncated: bool
    size: int
    """The file's size when it was opened."""
    real_path: Path


def is_inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it (both already resolved). Compares text: the
    read gate calls it for every entry of a walk."""
    text, root = str(path), str(folder)
    return text == root or text.startswith(root.rstrip("/") + "/")


def resolve(path: Path, *, inside: Path | None) -> Path:
    """The real path of ``path``, which exists and (when ``inside`` is given) lies inside it.

    Raises ``FileNotFoundError`` when nothing is there, ``NotRead`` for a loop, a link to a
    missing file, or a real path outside ``inside``.
    """
    try:
        real = Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:
        if os.path.lexists(path):
            raise NotRead("is a link to a file that does not exist") from None
        raise
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotRead("is a link that loops back on itself") from None
        raise NotRead(f"cannot be read ({error.strerror or error})") from None
    if inside is not None and not is_inside(real, Path(os.path.realpath(inside))):
        kind = "folder" if real.is_dir() else "file"
        if os.path.islink(path):
            raise NotRead(f"is a link to a {kind} outside the project")
        raise NotRead(f"is in a folder that links outside the project (to {real.parent})")
    return real


def read_contained(path: Path, *, inside: Path | None, max_bytes: int) -> ContainedText:
    """Up to ``max_bytes`` of the regular file at ``path``, whose real path is inside ``inside``.

    ``inside=None`` skips the containment check (the user's own files) but not the others.
    """
    real = resolve(path, inside=inside)
    try:
        before = os.lstat(real)
    except OSError as error:
        raise NotRead(f"cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(before.st_mode):
        raise NotRead(describe_kind(before.st_mode))
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except PermissionError:
        raise NotRead("cannot be read: permission denied") from None
    except OSError as error:
        raise NotRead(f"cannot be read ({error.strerror or error})") from None
    try:
        after = os.fstat(fd)
        if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
            raise NotRead("changed while it was being opened")
        data = read_at_most(fd, max_bytes + 1)  # one byte more tells "exactly max_bytes" from "more"
    except OSError as error:
        raise NotRead(f"cannot be read ({error.strerror or error})") from None
    finally:
        os.close(fd)
    return ContainedText(data[:max_bytes], len(data) > max_bytes, after.st_size, real)


def read_at_most(fd: int, limit: int) -> bytes:
    """What ``fd`` holds from where it stands, but never more than ``limit`` bytes (a file that
    grows while it is read, or a 2 GB one, costs no more than that)."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(_CHUNK, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_whole_contained(path: Path, *, inside: Path | None, max_bytes: int, limit: str = "") -> bytes:
    """The whole file, as ``read_contained`` allows; ``NotRead`` when it is larger than ``max_bytes``.

    ``limit`` names the limit in the refusal ("the 1 MB zett reads of a project's files in all").
    """
    limit = limit or f"the {describe_size(max_bytes)} limit"
    real = resolve(path, inside=inside)
    try:
        before = os.lstat(real)
    except OSError as error:
        raise NotRead(f"cannot be read ({error.strerror or error})") from None
    if stat.S_ISREG(before.st_mode) and before.st_size > max_bytes:  # one stat, nothing opened
        raise NotRead(f"is {describe_size(before.st_size)}, over {limit}")
    read = read_contained(path, inside=inside, max_bytes=max_bytes)
    if read.truncated:
        raise NotRead(f"grew past {limit} while it was read")
    return read.data


def describe_kind(mode: int) -> str:
    """Why something that is not a regular file is not read: "is a named pipe, not a file"."""
    for check, kind in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if check(mode):
            return f"is {kind}, not a file"
    return "is not a regular file"


def describe_size(size: int) -> str:
    """``2.0 GB``, ``1 MB``, ``312 bytes``: a size in words for a notice (powers of 1024)."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"
