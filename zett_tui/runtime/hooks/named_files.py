"""The project files a hook of the user's own config runs, as they were when the session started.

A hook in ``~/.config/zett/config.toml`` such as ``./scripts/check.sh`` runs outside the sandbox,
and its script lives in the project, where the agent may write (an edit in accept-edits or auto
mode, or any sandboxed shell command). Left alone, a hostile model could rewrite the script and
have the user's own hook run it unsandboxed. So the files a user hook names inside the project are
fingerprinted when the session starts; a hook whose files changed since does not run again this
session (the user reviews the file and restarts zett to take the new version).

A project's own hooks are covered by the trust hash instead (``config.trust.still_trusted``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from zett_tui.config.hooks import files_named

#: How much of a named file is hashed; a bigger one is fingerprinted by its first bytes and stat.
HASHED_BYTES = 4 * 1024 * 1024

Fingerprints = Mapping[Path, str | None]
"""A named file's real path -> its fingerprint (None: it was not there or not readable)."""


def project_files(command: str, project: Path) -> list[Path]:
    """The real paths inside ``project`` that ``command``'s words name (existing files only)."""
    root = Path(os.path.realpath(project))
    found: list[Path] = []
    for word in files_named(command):
        real = Path(os.path.realpath(root / word))
        if real != root and real.is_relative_to(root) and real.is_file() and real not in found:
            found.append(real)
    return found


def fingerprint(path: Path) -> str | None:
    """A digest of ``path``'s bytes (and size and mode past ``HASHED_BYTES``); None when unreadable."""
    try:
        with path.open("rb") as handle:
            status = os.fstat(handle.fileno())
            digest = hashlib.sha256(handle.read(HASHED_BYTES))
    except OSError:
        return None
    digest.update(f"{status.st_size}:{status.st_mode}".encode())
    return digest.hexdigest()


def fingerprints(paths: list[Path]) -> dict[Path, str | None]:
    return {path: fingerprint(path) for path in paths}


def changed(before: Fingerprints) -> list[Path]:
    """The files of ``before`` whose fingerprint differs now."""
    return [path for path, was in before.items() if fingerprint(path) != was]
