"""What a sandboxed command may not leave behind: files that run later, outside the sandbox.

The sandbox contains what a command does while it runs. What it writes into the project stays,
and some files in a project are run or loaded later by something outside any sandbox, with no
question: git reads ``.git`` (config, ``commondir``, a ``gitdir:`` file, hooks, fsmonitor) on the
user's next ``git status`` and on zett's own file finder; a login shell reads ``.bashrc``; an
editor runs ``.vscode/tasks.json``; another agent starts the MCP servers of ``.mcp.json`` or the
hooks of ``.claude/settings.json``; the sandbox program itself may be found on a ``PATH`` entry
the command can write. Three structures keep those out of a command's reach:

- ``sandbox_program.pinned_bwrap``: the sandbox program comes from a fixed, verified place, never
  from ``PATH``;
- ``ProjectSandbox`` (bubblewrap): a project's ``.git`` is bound read-only *as a whole* (so it
  cannot be written, renamed, or replaced by a file), and where a project has none, zett puts an
  empty placeholder folder there (git passes an empty ``.git`` over) and binds that read-only, so
  no command can create one; ``.zett`` and the names in ``LATER_NAMES`` that exist are read-only
  as well, and so is the Python zett runs from when it lies in the project (its own ``.venv``);
- ``LaterNames``: a name of ``LATER_NAMES`` that did not exist when a command started and exists
  when it ended was created by it: it is moved out of the project into zett's state folder
  (hidden from commands) and the command counts as stopped by the sandbox, so the user is asked
  before it runs again outside. (A mount cannot stand on a name that does not exist without
  creating it; ``.git`` gets a placeholder because git and shell prompts read it all the time.)

A git write by the model (``git commit``, ``git init``) therefore fails with "Read-only file
system", and the usual question offers to run it once outside the sandbox.

Not protected, on purpose: files the project's own tools run when the user runs the project
(``conftest.py``, ``setup.py``, ``Makefile``, ``package.json`` scripts, ``.pre-commit-config.yaml``,
``.npmrc``): writing the project's code is the work the model is asked to do, and running it is
the user's decision. No Textual here.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from zett_agent.sandbox import SandboxedCommand, SandboxPolicy
from zett_agent.sandbox.errors import SandboxUnavailableError
from zett_agent.sandbox.linux import LinuxSandbox, build_bubblewrap_arguments
from zett_agent.sandbox.policy import PROTECTED_DIRECTORY_NAMES, PROTECTED_FILE_NAMES, resolve_policy

from zett_tui.runtime.shell.sandbox_program import SYSTEM_BWRAP, pinned_bwrap

__all__ = [
    "LATER_NAMES",
    "LaterNames",
    "ProjectSandbox",
    "place_placeholder",
    "project_sandbox",
    "remove_placeholder",
]

log = logging.getLogger(__name__)

#: Names in a project's root folder that something outside the sandbox runs or loads later, with
#: no question of its own: zett-agent's list (shell start-up files, ``.gitconfig``,
#: ``.gitmodules``, ``.ripgreprc``, ``.mcp.json``, ``.vscode``, ``.idea``) and these:
#: ``.git`` (git's configuration and hooks), ``.hg`` (Mercurial's hooks in ``.hg/hgrc``),
#: ``.zett`` (zett's own project folder), ``.claude`` (another agent's hooks and MCP servers),
#: ``.cursor``/``.gemini``/``.codex`` (the same for other tools), ``.devcontainer``
#: (``initializeCommand`` runs on the host), ``.envrc`` (direnv), ``.zshenv``, ``.bash_login``,
#: ``.bash_logout``, ``.inputrc``, ``.tmux.conf``, ``.vimrc``/``.exrc``/``.nvim.lua`` (an editor
#: started in the folder may source them).
LATER_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            ".git",
            *PROTECTED_FILE_NAMES,
            *PROTECTED_DIRECTORY_NAMES,
            ".hg",
            ".zett",
            ".claude",
            ".cursor",
            ".gemini",
            ".codex",
            ".devcontainer",
            ".envrc",
            ".zshenv",
            ".bash_login",
            ".bash_logout",
            ".inputrc",
            ".tmux.conf",
            ".vimrc",
            ".exrc",
            ".nvim.lua",
        )
    )
)

_GIT = ".git"
_LATER_SET = frozenset(LATER_NAMES)


# -- the sandbox ------------------------------------------------------------------------------------


def place_placeholder(root: Path) -> None:
    """An empty ``.git`` folder where a project has none, so a read-only mount can stand there."""
    try:
        os.mkdir(root / _GIT, 0o755)
    except FileExistsError:
        pass
    except OSError as error:
        log.warning("could not protect %s/.git: %s", root, error)


def _extra_mounts(root: Path, protected: Sequence[Path]) -> list[str]:
    """Read-only binds for every ``.git`` (whole) and for the later names that exist at ``root``."""
    arguments: list[str] = []
    bound: set[Path] = set()
    gits = [path.parent for path in protected if path.name == "hooks" and path.parent.name == _GIT]
    gits += repositories_in(root)  # also a submodule's ``gitdir:`` file, and past zett-agent's search
    named = [root / name for name in LATER_NAMES]
    for path in (*gits, *named):
        if path in bound or not os.path.lexists(path):
            continue
        if path.is_symlink():
            continue  # a mount would stand on the link's target; ``safe_git`` refuses such a .git
        bound.add(path)
        arguments += ["--ro-bind", str(path), str(path)]
    return arguments


def _own_python(root: Path) -> list[str]:
    """A read-only bind for the Python zett itself runs from when it lies in the project (zett
    installed in the project's own ``.venv``): a command must not change zett's code, or leave a
    ``.pth`` file that runs at zett's next start."""
    prefix = Path(os.path.realpath(sys.prefix))
    if prefix == root or not prefix.is_relative_to(root) or not prefix.is_dir():
        return []
    return ["--ro-bind", str(prefix), str(prefix)]


class ProjectSandbox(LinuxSandbox):
    """zett-agent's bubblewrap sandbox, run with a pinned program, with every ``.git`` (a
    placeholder where the project has none), ``.zett`` and the existing ``LATER_NAMES`` read-only."""

    def __init__(self, policy: SandboxPolicy, *, bwrap: str, project: Path) -> None:
        super().__init__(policy, bwrap_path=bwrap)
        self._bwrap = bwrap
        self.project = Path(os.path.realpath(project))

    def _wrap(self, argv: tuple[str, ...], cwd: Path, env: dict[str, str]) -> SandboxedCommand:
        """``LinuxSandbox._wrap`` (the policy resolved once) with the mounts above added last.

        Only the hidden places that exist now are handed to the policy (bubblewrap can mask
        nothing else; resolving every one of ~80 candidates twice cost ~20 ms a wrap). The full
        list stays ``self.policy``'s, so ``wrap_ahead`` watches the folders each would appear in."""
        policy = self.policy
        existing = tuple(path for path in policy.denied_read_paths if os.path.lexists(path))
        if len(existing) != len(policy.denied_read_paths):
            policy = dataclasses.replace(policy, denied_read_paths=existing)
        resolved = resolve_policy(policy)
        root = self.project
        extra: list[str] = []
        if root in resolved.writable:  # a read-only sandbox (Plan Mode) needs no more mounts
            if not os.path.lexists(root / _GIT):
                place_placeholder(root)
            inside = [path for path in resolved.protected_write if path.is_relative_to(root)]
            extra = _extra_mounts(root, inside) + _own_python(root)
        arguments, warnings = build_bubblewrap_arguments(resolved, argv, cwd, env, bwrap=self._bwrap)
        at = arguments.index("--clearenv")
        arguments[at:at] = extra
        return SandboxedCommand(
            argv=tuple(arguments),
            env={**env, "TMPDIR": "/tmp"},
            cwd=cwd,
            warnings=(*resolved.warnings, *warnings),
        )


def project_sandbox(policy: SandboxPolicy, project: Path, roots: Sequence[Path]) -> ProjectSandbox:
    """The checked sandbox for ``project``: raises ``SandboxUnavailableError`` when no verified
    bubblewrap exists, or it cannot start here."""
    bwrap = pinned_bwrap(roots)
    if bwrap is None:
        raise SandboxUnavailableError(
            "no bubblewrap (bwrap) at a fixed place that sandboxed commands cannot write "
            f"({', '.join(SYSTEM_BWRAP)}, or zett-agent's bundled build outside the project); "
            "install it with your package manager, for example `apt install bubblewrap`"
        )
    sandbox = ProjectSandbox(policy, bwrap=bwrap, project=project)
    sandbox.check()
    return sandbox


def remove_placeholder(root: Path) -> None:
    """Remove the empty ``.git`` placeholder, if it is still that (a ``git init`` meanwhile keeps it)."""
    path = root / _GIT
    try:
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()
    except OSError:
        pass


# -- names a command created ------------------------------------------------------------------------


def _changed_since(path: Path, since_ns: int) -> bool:
    try:
        return os.lstat(path).st_ctime_ns >= since_ns
    except OSError:
        return False


def bound_repositories(argv: Sequence[str]) -> frozenset[Path]:
    """The ``.git`` entries a wrapped command has bound read-only (they existed when it was wrapped)."""
    found = set()
    for index, argument in enumerate(argv[:-2]):
        if argument == "--ro-bind" and argv[index + 2].endswith("/" + _GIT):
            found.add(Path(argv[index + 2]))
    return frozenset(found)


def repositories_in(root: Path) -> list[Path]:
    """Every ``.git`` entry (folder, file or link) below ``root``, searched as the sandbox's policy
    searches for protected names: a few folders deep, skipping bulky ones, within a bound."""
    from zett_tui.runtime.agent_compat import protected_path_scan

    skipped, depth_limit, entry_limit = protected_path_scan()
    found: list[Path] = []
    visited = 0
    pending: list[tuple[Path, int]] = [(root, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            visited += 1
            if visited > entry_limit:
                return found
            if entry.name == _GIT:
                found.append(Path(entry.path))
                continue
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_folder and entry.name not in skipped and depth + 1 < depth_limit:
                pending.append((Path(entry.path), depth + 1))
    return found


class LaterNames:
    """Which ``LATER_NAMES`` exist at a project's root, and moving aside the ones a command created
    (at the root; a new ``.git`` also in the folders below it: a shell prompt runs ``git status``
    in whatever folder the user is in)."""

    def __init__(self, root: Path, refused_dir: Path) -> None:
        self.root = root
        self.refused_dir = refused_dir

    def present(self) -> frozenset[str]:
        """The ``LATER_NAMES`` at the root now (one listing of the root, not a ``stat`` per name)."""
        try:
            with os.scandir(self.root) as listing:
                names = {entry.name for entry in listing}
        except OSError:
            return frozenset(name for name in LATER_NAMES if os.path.lexists(self.root / name))
        return frozenset(_LATER_SET & names)

    def move_created(
        self, before: frozenset[str], repositories: frozenset[Path] | None = None, *, since_ns: int = 0
    ) -> list[tuple[str, Path]]:
        """Move every name that exists now and did not in ``before`` out of the project, and every
        ``.git`` below the root that is not one of ``repositories`` (bound read-only, so as they
        were) and came into being at ``since_ns`` or later (its inode's change time: a command cannot
        set it back); None: none is looked for. What was moved (relative to the root), and where to."""
        moved: list[tuple[str, Path]] = []
        created = [self.root / name for name in sorted(self.present() - before)]
        if repositories is not None:  # (the root's ``.git`` is in ``created`` if it is new)
            known = repositories  # the root's own ``.git`` too: only a link there is not bound
            created += [
                path
                for path in repositories_in(self.root)
                if path not in known and path not in created and _changed_since(path, since_ns)
            ]
        for source in created:
            name = source.relative_to(self.root).as_posix()
            target = (
                self.refused_dir
                / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{len(moved)}"
                / source.name
            )
            try:
                target.parent.mkdir(parents=True, mode=0o700)
                shutil.move(str(source), str(target))
            except OSError as error:
                log.warning("could not move %s out of the project: %s", source, error)
                try:
                    if source.is_dir() and not source.is_symlink():
                        shutil.rmtree(source)
                    else:
                        source.unlink()
                except OSError:
                    log.error("%s was created by a sandboxed command and could not be removed", source)
                    continue
                target = Path(os.devnull)
            moved.append((name, target))
        return moved
