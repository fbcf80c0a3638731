"""The sandbox program zett runs: from a fixed place, verified, never found on ``PATH``.

zett-agent looks ``bwrap`` up on ``PATH`` before its bundled build. With the project's virtualenv
active, ``PATH`` starts with ``<project>/.venv/bin``, which a sandboxed command may write: one
command could leave a ``bwrap`` there that passes the start-up probe and runs every later
"sandboxed" command unconfined. ``pinned_bwrap`` takes the system's copy (``SYSTEM_BWRAP``), else
zett-agent's bundled build, and only a regular executable file that no sandboxed command can
change: outside every folder a command may write, and neither it nor its folder writable by
others. No Textual here.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from zett_agent.sandbox.binaries import bundled_bwrap

from zett_tui.core.outside_programs import is_writable_by_sandbox

__all__ = ["SYSTEM_BWRAP", "pinned_bwrap"]

#: Where a system's bubblewrap lives; tried before the bundled build (a distribution's own may be
#: the one its AppArmor profile lets create namespaces).
SYSTEM_BWRAP: tuple[str, ...] = ("/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap")


def _verified(candidate: str | Path, roots: Sequence[Path]) -> str | None:
    """``candidate``'s real path when it is a regular executable file no sandboxed command can
    change: outside every writable folder, and neither it nor its folder writable by others."""
    real = Path(os.path.realpath(candidate))
    try:
        info = os.stat(real)
        folder = os.stat(real.parent)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or not os.access(real, os.X_OK):
        return None
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or folder.st_mode & stat.S_IWOTH:
        return None
    if is_writable_by_sandbox(real, roots):
        return None
    return str(real)


def pinned_bwrap(roots: Sequence[Path], *, system: Iterable[str] = SYSTEM_BWRAP) -> str | None:
    """The bubblewrap zett runs: the first verified system copy, else zett-agent's bundled build
    (verified the same way: a zett installed in the project's own virtualenv does not qualify);
    never one found on ``PATH``. None when there is none."""
    for candidate in system:
        found = _verified(candidate, roots)
        if found is not None:
            return found
    bundled = bundled_bwrap()
    return None if bundled is None else _verified(bundled, roots)
