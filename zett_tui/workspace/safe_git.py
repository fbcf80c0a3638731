"""zett's own read-only git calls on the project (the file finder's listing): nothing of the
project's git configuration may run.

Git runs programs named in its configuration (``core.fsmonitor``, hooks, pagers, external diff
and textconv drivers, credential helpers, ``ssh``), and it reads that configuration from places a
project controls: ``.git/config``, ``.git/commondir`` (another folder's config),
``config.worktree``, a ``.git`` *file* naming any folder (``gitdir:``). A sandboxed command may
write the project, so before git runs zett finds the repository itself (``repository_of``) and
refuses one whose git folder, or the common folder it names, lies where a sandboxed command can
write, except the project's own ``.git`` folder (read-only inside the sandbox as a whole). Then
git runs with:

- ``GIT_DIR`` and ``GIT_WORK_TREE`` set (no discovery, no ``core.worktree``), the user's ``GIT_*``
  variables dropped, no system or global config, no terminal prompt, no lazy fetch, no locks;
- ``-c`` overrides for every setting that runs something (fsmonitor, hooks, pager, editor,
  external diff, ssh, askpass, credential helpers) and no protocol at all (nothing is fetched);
- the program itself found by ``outside_programs.find_program`` (never ``<project>/.venv/bin/git``).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from zett_tui.core.outside_programs import (
    find_program,
    is_writable_by_sandbox,
    safe_environment,
    writable_roots,
)

__all__ = [
    "HARDENED_CONFIG",
    "Repository",
    "git_environment",
    "hardened_command",
    "repository_of",
    "run_safe_git",
]

#: Given to every command: nothing the repository's configuration names may run.
HARDENED_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.editor=true",
    "core.sshCommand=false",
    "core.askPass=",
    "core.untrackedCache=false",
    "credential.helper=",
    "diff.external=",
    "diff.noprefix=false",
    "protocol.allow=never",
    "gc.auto=0",
    "maintenance.auto=false",
)

_GITDIR_PREFIX = "gitdir:"


@dataclass(frozen=True, slots=True)
class Repository:
    """A repository zett may ask git about: its work tree and its git folder."""

    work_tree: Path
    git_dir: Path


def _gitdir_of_file(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return None
    first = text.strip().splitlines()[0] if text.strip() else ""
    if not first.startswith(_GITDIR_PREFIX):
        return None
    named = Path(first[len(_GITDIR_PREFIX) :].strip())
    return Path(os.path.realpath(named if named.is_absolute() else dot_git.parent / named))


def _common_dir(git_dir: Path) -> Path | None:
    """The folder ``git_dir/commondir`` names, or None when there is none."""
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except FileNotFoundError:
        return None
    except OSError:
        return git_dir / "\0unreadable"
    named = Path(text)
    return Path(os.path.realpath(named if named.is_absolute() else git_dir / named))


def _acceptable(git_dir: Path, own: Path, roots: Collection[Path]) -> bool:
    """A git folder is usable when a sandboxed command cannot have written it: the project's own
    ``.git`` folder (read-only in the sandbox), or a folder outside everything it may write."""
    if not (git_dir / "HEAD").is_file():
        return False
    if git_dir != own and is_writable_by_sandbox(git_dir, roots):
        return False
    common = _common_dir(git_dir)
    if common is None:
        return True
    if "\0" in str(common):
        return False
    inside_own = common == own or common.is_relative_to(own)
    return inside_own or not is_writable_by_sandbox(common, roots)


def repository_of(folder: Path, roots: Sequence[Path] | None = None) -> Repository | None:
    """The repository holding ``folder``, found as git would, or None when there is none that zett
    may run git on (see the module docstring). An empty ``.git`` folder (zett's placeholder in a
    project without one) is passed over, as git passes it over."""
    known = set(roots) if roots is not None else set(writable_roots())
    start = Path(os.path.realpath(folder))
    for candidate in (start, *start.parents):
        dot_git = candidate / ".git"
        if not os.path.lexists(dot_git):
            continue
        if dot_git.is_symlink():
            if is_writable_by_sandbox(candidate, known):
                return None  # a link in the project could point anywhere a command prepared
            git_dir = Path(os.path.realpath(dot_git))
        elif dot_git.is_dir():
            git_dir = dot_git
        elif dot_git.is_file():
            named = _gitdir_of_file(dot_git)
            if named is None:
                return None
            git_dir = named
        else:
            return None
        if not (git_dir / "HEAD").exists() and dot_git.is_dir() and not dot_git.is_symlink():
            continue  # not a repository: git goes on to the folder above
        return Repository(candidate, git_dir) if _acceptable(git_dir, dot_git, known) else None
    return None


def git_environment(repository: Repository) -> dict[str, str]:
    """The environment of a hardened command: the user's ``GIT_*`` dropped, the repository set."""
    env = {key: value for key, value in safe_environment().items() if not key.startswith("GIT_")}
    env.update(
        {
            "GIT_DIR": str(repository.git_dir),
            "GIT_WORK_TREE": str(repository.work_tree),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_NO_LAZY_FETCH": "1",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
        }
    )
    return env


def hardened_command(folder: Path, args: Sequence[str]) -> tuple[list[str], dict[str, str]] | None:
    """The argument vector and environment of ``git args`` hardened in ``folder``'s repository;
    None when there is no repository zett may use, or no git outside the writable folders."""
    roots = writable_roots()
    repository = repository_of(folder, roots)
    git = find_program("git", roots)
    if repository is None or git is None:
        return None
    command = [git, "--no-pager"]
    for setting in HARDENED_CONFIG:
        command += ["-c", setting]
    return [*command, *args], git_environment(repository)


def run_safe_git(
    folder: Path, args: Sequence[str], *, timeout: float = 30
) -> subprocess.CompletedProcess[bytes] | None:
    """Run ``git args`` hardened in ``folder``'s repository (blocking); None when there is no
    repository zett may use, no git outside the writable folders, or git could not run."""
    hardened = hardened_command(folder, args)
    if hardened is None:
        return None
    command, env = hardened
    try:
        return subprocess.run(
            command,
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
