"""Every on-disk location zett uses, from platformdirs (so XDG_* variables move them on Linux).

Nothing here creates anything at import time. Directories that hold transcripts, history or
logs are created 0700 and files 0600 whatever the umask: they hold code and secrets.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, TypeVar

import platformdirs

APP_NAME = "zett"
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600

T = TypeVar("T")


def config_dir() -> Path:
    """User configuration: config.toml, themes/, extensions/."""
    return Path(platformdirs.user_config_dir(APP_NAME))


def config_file() -> Path:
    return config_dir() / "config.toml"


def data_dir() -> Path:
    """Session transcripts and history: what the user would be sad to lose."""
    return Path(platformdirs.user_data_dir(APP_NAME))


def sessions_dir() -> Path:
    """One JSONL file per session, one line per turn."""
    return data_dir() / "sessions"


def history_db() -> Path:
    """The SQLite store the model context is restored from."""
    return data_dir() / "history.sqlite3"


def state_dir() -> Path:
    """Logs and small state (prompt history) that can be rebuilt."""
    return Path(platformdirs.user_state_dir(APP_NAME))


def log_file() -> Path:
    return state_dir() / "zett.log"


def prompt_history_file() -> Path:
    return state_dir() / "prompt-history.jsonl"


def checkpoints_dir() -> Path:
    """The checkpoint stores: one private git object store per project (``zett_tui.checkpoints``)."""
    return data_dir() / "checkpoints"


def tool_output_dir() -> Path:
    """Where shell side files go instead of the user's project folder."""
    return data_dir() / "tool-output"


def bundled_dir(kind: str) -> Path:
    """The bundled ``extensions`` or ``themes`` folder.

    In a wheel they live inside the package (``zett_tui/_bundled/<kind>``); in a source
    checkout they are the top-level folders of the repository.
    """
    package = Path(__file__).resolve().parent.parent  # zett_tui/, this file is in zett_tui/core/
    inside = package / "_bundled" / kind
    if inside.is_dir():
        return inside
    return package.parent / kind


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) as 0700 and tighten it if it already exists looser."""
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made by someone else meanwhile
            directory.mkdir(mode=PRIVATE_DIR_MODE)
        os.chmod(directory, PRIVATE_DIR_MODE)
    tighten(path, PRIVATE_DIR_MODE)
    return path


def tighten(path: Path, mode: int) -> None:
    """Remove group and other permission bits that go beyond ``mode``."""
    try:
        current = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return
    if current & ~mode & 0o077:
        os.chmod(path, current & mode)


def open_private_append(path: Path) -> int:
    """Open ``path`` for appending (and reading its tail) as a 0600 descriptor, its folder 0700."""
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
    os.fchmod(fd, PRIVATE_FILE_MODE)
    return fd


def write_private_text(path: Path, text: str, *, sync: bool = True) -> None:
    """Replace ``path`` atomically (temp file, fsync, rename) as a 0600 file in a 0700 folder.

    ``sync=False`` skips the fsync: the file still survives the process being killed, though
    not the machine losing power (for files rewritten every second).
    """
    ensure_private_dir(path.parent)
    write_private(path, lambda stream: stream.write(text), sync=sync)


_TEMPORARY_STEM_BYTES = 100


def _new_temporary_beside(path: Path) -> tuple[int, Path]:
    """A new 0600 file next to ``path``, created exclusively: ``.<start of name>.<random>.tmp``."""
    stem = os.fsdecode(os.fsencode(path.name)[:_TEMPORARY_STEM_BYTES])
    while True:
        temporary = path.with_name(f".{stem}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE), temporary
        except FileExistsError:
            continue


def write_private(path: Path, write: Callable[[TextIO], T], *, sync: bool = True) -> T:
    """Run ``write`` into a 0600 temporary file beside ``path``, fsync it, and rename it into place.

    Readers see the old file or the new one, never half of one; a failure leaves the old file.
    Two writers at once (threads or processes) each get their own temporary file, whose name
    stays short enough for any file system however long ``path``'s name is. The folder must exist.
    """
    fd, temporary = _new_temporary_beside(path)
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as stream:
            result = write(stream)
            stream.flush()
            if sync:
                os.fsync(stream.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)
    return result
