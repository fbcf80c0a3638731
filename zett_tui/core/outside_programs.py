"""Programs zett starts itself, outside the sandbox, are never found where a sandboxed command writes.

A sandboxed command may write the project (and a few package caches). With the project's
virtualenv active, ``PATH`` starts with ``<project>/.venv/bin``: one command could leave a
``git``, ``npx`` or ``python3`` there, and the next time zett itself ran that name (the file
finder's ``git``, a hook, an MCP server, the editor) the planted program would run as the user,
outside any sandbox. So every program zett starts on its own is looked up on ``safe_path``:
``PATH`` without its relative entries and without any folder inside ``writable_roots``.

``writable_roots`` is what the sandbox lets commands write: the folders ``ShellSandbox``
registers (the project and the caches), and always the current working folder. A command the
user approved to run outside the sandbox keeps the user's own ``PATH``: the user chose to run it.
No Textual here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = [
    "find_program",
    "is_writable_by_sandbox",
    "register_writable",
    "safe_environment",
    "safe_path",
    "writable_roots",
]

#: Registered folders, in the order they came (a dict as an ordered set: a long ``zett acp`` or a
#: test process registers thousands of projects, and a lookup walks the path's parents, not these).
_registered: dict[Path, None] = {}


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def register_writable(paths: Iterable[Path]) -> None:
    """The sandbox of this process lets commands write these folders (added to what is known)."""
    for path in paths:
        _registered[_real(path)] = None


def writable_roots() -> list[Path]:
    """Every folder a sandboxed command (or an auto-approved edit) may write, as real paths."""
    roots = list(_registered)
    try:
        cwd = _real(os.getcwd())
    except OSError:
        return roots
    if cwd not in roots:
        roots.append(cwd)
    return roots


def is_writable_by_sandbox(path: str | Path, roots: Iterable[Path] | None = None) -> bool:
    """Whether ``path`` (after its links) lies in a folder a sandboxed command may write."""
    real = _real(path)
    known = roots if isinstance(roots, (set, frozenset)) and roots else set(roots or writable_roots())
    return real in known or any(parent in known for parent in real.parents)


def safe_path(path: str | None = None, roots: Iterable[Path] | None = None) -> str:
    """``PATH`` (the process's by default) without relative entries and without any entry inside
    a folder a sandboxed command may write."""
    value = os.environ.get("PATH", os.defpath) if path is None else path
    known = set(roots) if roots is not None else set(writable_roots())
    kept = [
        entry
        for entry in value.split(os.pathsep)
        if entry and os.path.isabs(entry) and not is_writable_by_sandbox(entry, known)
    ]
    return os.pathsep.join(dict.fromkeys(kept))


def find_program(name: str, roots: Iterable[Path] | None = None) -> str | None:
    """The program zett may start for ``name``: looked up on ``safe_path`` (an absolute ``name``
    is taken as it is, unless it lies where a sandboxed command writes)."""
    known = set(roots) if roots is not None else set(writable_roots())
    if os.path.isabs(name):
        if is_writable_by_sandbox(name, known) or not os.access(name, os.X_OK):
            return None
        return name
    found = shutil.which(name, path=safe_path(roots=known))
    if found is None or is_writable_by_sandbox(found, known):  # a link from /usr/bin into the project
        return None
    return found


def safe_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment for a program zett starts itself: ``PATH`` made safe, and Python's bytecode
    cache moved out of the project (``PYTHONPYCACHEPREFIX``), so a planted ``__pycache__`` is not
    what a hook's Python script imports."""
    from zett_tui.core.paths import ensure_private_dir, state_dir

    env = dict(os.environ if environ is None else environ)
    env["PATH"] = safe_path(env.get("PATH", os.defpath))
    env["PYTHONPYCACHEPREFIX"] = str(ensure_private_dir(state_dir() / "pycache"))
    return env
