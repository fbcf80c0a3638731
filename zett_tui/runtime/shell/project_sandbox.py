"""zett's bubblewrap sandbox for one project: a pinned program, and what in the project stays
read-only inside it.

- the sandbox program comes from a fixed, verified place, never from ``PATH``
  (``sandbox_program.pinned_bwrap``);
- a project's ``.git`` is bound read-only *as a whole* (so it cannot be written, renamed, or
  replaced by a file), and so is every ``.git`` the policy's scan finds below the root; where a
  project has none, zett puts an empty placeholder folder there (git passes an empty ``.git``
  over) and binds that read-only, so no command can create one;
- the names of ``left_behind.LATER_NAMES`` that exist at the root are read-only as well, and so is
  the Python zett runs from when it lies in the project (its own ``.venv``).

What a command creates instead is ``left_behind``'s to find. The placeholder would outlive a crash
(``kill -9``): every session holds a shared lock on a file named after the project
(``PlaceholderLease``) while it runs, and the placeholder is removed at a session's start and end
when no other session holds one (the kernel drops a dead process's lock), and only when it is
still an empty folder that is not a link: a real ``.git`` is never empty. No Textual here.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from zett_agent.sandbox import SandboxedCommand, SandboxPolicy
from zett_agent.sandbox.errors import SandboxUnavailableError
from zett_agent.sandbox.linux import LinuxSandbox, build_bubblewrap_arguments
from zett_agent.sandbox.policy import resolve_policy

from zett_tui.runtime.shell.left_behind import GIT, LATER_NAMES, repositories_in
from zett_tui.runtime.shell.sandbox_program import SYSTEM_BWRAP, pinned_bwrap

__all__ = [
    "PlaceholderLease",
    "ProjectSandbox",
    "bound_paths",
    "place_placeholder",
    "project_sandbox",
    "remove_placeholder",
]

log = logging.getLogger(__name__)


def place_placeholder(root: Path) -> None:
    """An empty ``.git`` folder where a project has none, so a read-only mount can stand there."""
    try:
        os.mkdir(root / GIT, 0o755)
    except FileExistsError:
        pass
    except OSError as error:
        log.warning("could not protect %s/.git: %s", root, error)


def remove_placeholder(root: Path) -> None:
    """Remove an empty ``.git`` placeholder, if it is still that: never a link, never a folder with
    anything in it (``git init`` meanwhile, or any real repository, keeps it)."""
    path = root / GIT
    try:
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()
    except OSError:
        pass


class PlaceholderLease:
    """This session's claim on a project's ``.git`` placeholder: a shared ``flock`` on
    ``locks/<hash of the project>.lock`` in zett's state folder, held from ``take`` to ``give_back``.
    Either removes the placeholder when no other live session holds the lock (a crashed one does
    not: the kernel released it)."""

    def __init__(self, project: Path, locks: Path) -> None:
        self.project = project
        digest = hashlib.sha256(os.fsencode(project)).hexdigest()[:32]
        self._path = locks / f"{digest}.lock"
        self._fd: int | None = None

    def take(self) -> None:
        """At a session's start: clean up after a crashed one, then hold the shared lock."""
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as error:
            log.warning("no placeholder lock for %s: %s", self.project, error)
            return
        self._remove_if_alone()
        fcntl.flock(self._fd, fcntl.LOCK_SH)

    def give_back(self) -> None:
        """At a session's end: remove the placeholder if no other session holds it, and let go."""
        if self._fd is None:
            return
        self._remove_if_alone()
        os.close(self._fd)
        self._fd = None

    def _remove_if_alone(self) -> None:
        assert self._fd is not None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # another live session's commands stand on it
        remove_placeholder(self.project)
        fcntl.flock(self._fd, fcntl.LOCK_SH)


def _extra_mounts(root: Path, protected: Sequence[Path]) -> list[str]:
    """Read-only binds for every ``.git`` (whole) and for the later names that exist at ``root``."""
    arguments: list[str] = []
    bound: set[Path] = set()
    gits = [path.parent for path in protected if path.name == "hooks" and path.parent.name == GIT]
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


def bound_paths(argv: Sequence[str]) -> frozenset[Path]:
    """What a wrapped command has bound read-only (it existed when it was wrapped, and stays so)."""
    return frozenset(
        Path(argv[index + 2])
        for index, argument in enumerate(argv[:-2])
        if argument == "--ro-bind" and argv[index + 1] == argv[index + 2]
    )


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
            if not os.path.lexists(root / GIT):
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
