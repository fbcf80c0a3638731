"""Files the user's own config runs from a folder sandboxed commands write: run only as the bytes
the user allowed.

An extension of the user's config (``file = "~/work/app/tools/ext.py"``) or one of its MCP
servers (``command = "./tools/mcp.sh"``) may name a file inside the project, where any sandboxed
command, or an auto-approved edit, can write. zett runs those outside the sandbox. A project's own
files are covered by the folder's trust hash (``config.trust``); these are the user's, so each
such file is pinned instead: ``pins.json`` in zett's data folder (0600) keeps the SHA-256 of the
bytes the user allowed, per real path. A file with no pin, or whose bytes differ, does not run;
the message says to review it and run ``/extensions allow``, which pins what is there now.
An extension then runs the very bytes that were checked (compiled from them, never read again).

A file outside every folder a sandboxed command may write (``core.outside_programs``) needs no
pin. No Textual here.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from zett_tui.config.hooks import files_named
from zett_tui.core import paths
from zett_tui.core.outside_programs import is_writable_by_sandbox

__all__ = ["NotPinned", "allow", "pinned_bytes", "pins_path", "unpinned", "writable_files_named"]

PINS_FILE_NAME = "pins.json"
_STORE_VERSION = 1
#: A pinned file is read whole up to this size; a bigger one is never run from a writable folder.
MAX_PINNED_BYTES = 8 * 1024 * 1024


class NotPinned(Exception):
    """A file in a writable folder whose bytes the user has not allowed; the message says so."""


def pins_path() -> Path:
    return paths.data_dir() / PINS_FILE_NAME


def _read(path: Path) -> bytes:
    with path.open("rb") as handle:
        data = handle.read(MAX_PINNED_BYTES + 1)
    if len(data) > MAX_PINNED_BYTES:
        raise NotPinned(f"{path} is bigger than {MAX_PINNED_BYTES // (1024 * 1024)} MB; not run")
    return data


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _pins(store: Path | None = None) -> dict[str, str]:
    try:
        document: Any = json.loads((store or pins_path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = document.get("files") if isinstance(document, dict) else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def pinned_bytes(path: Path, *, store: Path | None = None) -> bytes | None:
    """``path``'s bytes when it may run: None when it lies outside every writable folder (run it as
    usual); its bytes when they are the ones pinned. Raises ``NotPinned`` otherwise (and
    ``OSError`` when it cannot be read)."""
    real = Path(os.path.realpath(path))
    if not is_writable_by_sandbox(real):
        return None
    data = _read(real)
    pinned = _pins(store).get(str(real))
    if pinned == _digest(data):
        return data
    what = "changed since you allowed it" if pinned else "is not one you allowed"
    raise NotPinned(
        f"{real} lies where sandboxed commands write and {what}; review it, then /extensions allow"
    )


def writable_files_named(command: str, folder: Path) -> list[Path]:
    """The existing files ``command``'s words name from ``folder`` that lie where a sandboxed
    command may write (real paths)."""
    found: list[Path] = []
    for word in files_named(command):
        real = Path(os.path.realpath(folder / os.path.expanduser(word)))
        if real.is_file() and is_writable_by_sandbox(real) and real not in found:
            found.append(real)
    return found


def unpinned(files: Iterable[Path], *, store: Path | None = None) -> list[Path]:
    """Those of ``files`` that may not run now (no pin, other bytes, unreadable)."""
    refused = []
    for path in files:
        try:
            pinned_bytes(path, store=store)
        except (NotPinned, OSError):
            refused.append(path)
    return refused


def allow(files: Iterable[Path], *, store: Path | None = None) -> list[Path]:
    """Pin the bytes ``files`` hold now (0600, written atomically); the ones pinned."""
    target = store or pins_path()
    pins = _pins(target)
    done = []
    for path in files:
        real = Path(os.path.realpath(path))
        try:
            pins[str(real)] = _digest(_read(real))
        except (OSError, NotPinned):
            continue
        done.append(real)
    paths.write_private_text(target, json.dumps({"version": _STORE_VERSION, "files": pins}, indent=2) + "\n")
    return done
