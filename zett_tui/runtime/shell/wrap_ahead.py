"""The next command's bubblewrap argument vector, prepared while the model is still answering.

Wrapping a command re-resolves the sandbox policy: it scans the project for ``.git`` folders and
other protected names, and looks up every credential place (about 2 ms of Python in a small
project, far more in a large one). The result depends on the file system, not on the command, so
after a command finishes a thread wraps a placeholder command (or, cheaper, checks that the last
prepared vector still holds), and the next command takes that vector with its own command put in
place of the placeholder. Every command checks the vector again before it is used.

It is used only while nothing it was computed from can have changed:

- the same network mode, working directory and environment (anything else wraps afresh; a
  network-once run never uses nor leaves a prepared vector);
- no other tool has run since (``invalidate``: a file tool may have created a ``.git`` folder);
- every directory the policy was read from (each folder the protected-path scan lists, the folder
  of each protected path and of each credential place) still has the same inode and modification
  time, and none of them was modified less than ``RACY_SECONDS`` before it was looked at, since a
  change in the same clock tick could leave the time unchanged.

The check is a ``stat`` per directory; a scan that was cut short (a huge project) is never
prepared. No Textual here.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from zett_agent.sandbox import Sandbox, SandboxedCommand
from zett_agent.sandbox.policy import SENSITIVE_HOME_PATHS, SENSITIVE_SOCKET_PATHS, command_arguments

from zett_tui.runtime.agent_compat import protected_path_scan

#: What the sandbox's protected-path search skips, how deep it goes, how many entries it reads.
_SKIPPED_DIRECTORIES, _PROTECTED_SEARCH_DEPTH, _PROTECTED_SEARCH_ENTRIES = protected_path_scan()

__all__ = ["MANY_STAMPS", "RACY_SECONDS", "PreparedWrap", "prepare", "still_or_anew"]

#: A directory modified this recently before it was looked at may change again unseen.
RACY_SECONDS = 2.0
#: More folders than this are checked in a thread, not on the event loop.
MANY_STAMPS = 256
#: The placeholder command wrapped ahead; replaced by the real one.
_PLACEHOLDER = "\x01zett-next-command\x01"
_SHELL_ARGV = command_arguments(_PLACEHOLDER)

Stamp = tuple[int, int, int]


def _stamp(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_mtime_ns)


@dataclass(frozen=True, slots=True)
class PreparedWrap:
    """A wrapped placeholder and what it was computed from."""

    network: bool
    cwd: str
    env: tuple[tuple[str, str], ...]
    generation: int
    wrapped: SandboxedCommand
    stamps: tuple[tuple[str, Stamp | None], ...]

    def fits(self, *, network: bool, cwd: str, env: Mapping[str, str], generation: int) -> bool:
        """The same network mode, directory, environment, and no other tool ran since."""
        return (
            self.network == network
            and self.cwd == cwd
            and self.generation == generation
            and self.env == tuple(sorted(env.items()))
        )

    def unchanged(self) -> bool:
        """Every directory it was read from is as it was (a ``stat`` each)."""
        return all(_stamp(path) == stamp for path, stamp in self.stamps)

    def command(self, command: str) -> SandboxedCommand:
        """The prepared vector running ``command`` instead of the placeholder."""
        argv = self.wrapped.argv
        real = command_arguments(command)  # refuses a blank command or NUL, as wrap does
        return SandboxedCommand(
            argv=(*argv[: -len(_SHELL_ARGV)], *real),
            env=self.wrapped.env,
            cwd=self.wrapped.cwd,
            limits=self.wrapped.limits,
            preexec=self.wrapped.preexec,
            warnings=self.wrapped.warnings,
        )


def _watched_directories(writable: tuple[Path, ...], home: Path) -> list[str] | None:
    """Every directory whose entries decide the policy; None when the scan would be cut short."""
    found: list[str] = []
    visited = 0
    for root in writable:
        pending: deque[tuple[Path, int]] = deque([(root, 0)])
        while pending:
            directory, depth = pending.popleft()
            found.append(str(directory))
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                visited += 1
                if visited > _PROTECTED_SEARCH_ENTRIES:
                    return None
                try:
                    is_directory = entry.is_dir(follow_symlinks=False)
                except OSError:
                    return None
                if not is_directory:
                    continue
                path = directory / entry.name
                if entry.name == ".git":
                    found.append(str(path))  # its hooks and config appear and vanish here
                    continue
                if entry.name not in _SKIPPED_DIRECTORIES and depth + 1 < _PROTECTED_SEARCH_DEPTH:
                    pending.append((path, depth + 1))
    for relative in SENSITIVE_HOME_PATHS:
        found.append(str((home / relative).parent))
    for socket in SENSITIVE_SOCKET_PATHS:
        found.append(str(Path(socket).parent))
    return found


def prepare(
    sandbox: Sandbox, *, network: bool, cwd: str, env: Mapping[str, str], generation: int
) -> PreparedWrap | None:
    """Wrap the placeholder now (blocking: call it from a thread); None where it cannot be kept."""
    policy = sandbox.policy
    writable = tuple(Path(os.path.realpath(path)) for path in policy.writable_paths)
    directories = _watched_directories(writable, Path.home())
    if directories is None:
        return None
    for place in policy.denied_read_paths:
        directories.append(str(place.parent))
    directories += ["/", "/dev", cwd]
    # Stamped before the policy is read: a change after this point shows as a different stamp.
    looked_at = time.time_ns()
    stamps = tuple((path, _stamp(path)) for path in dict.fromkeys(directories))
    wrapped = sandbox.wrap(_PLACEHOLDER, cwd=cwd, env=env)
    stamped = {path for path, _ in stamps}
    if wrapped.argv[-len(_SHELL_ARGV) :] != _SHELL_ARGV or not stamped.issuperset(
        _mount_folders(wrapped.argv)
    ):
        return None  # a mount this module does not watch (a protected path linked elsewhere)
    racy = looked_at - int(RACY_SECONDS * 1e9)
    if any(stamp is not None and stamp[2] >= racy for _, stamp in stamps):
        return None
    return PreparedWrap(network, cwd, tuple(sorted(env.items())), generation, wrapped, stamps)


def still_or_anew(
    current: PreparedWrap | None,
    sandbox: Sandbox,
    *,
    network: bool,
    cwd: str,
    env: Mapping[str, str],
    generation: int,
) -> PreparedWrap | None:
    """``current`` while it still holds (a ``stat`` per folder), else a fresh ``prepare``
    (blocking: call it from a thread)."""
    fits = current is not None and current.fits(network=network, cwd=cwd, env=env, generation=generation)
    if current is not None and fits and current.unchanged():
        return current
    return prepare(sandbox, network=network, cwd=cwd, env=env, generation=generation)


def _mount_folders(argv: tuple[str, ...]) -> list[str]:
    """What to stamp for each mount of a bubblewrap vector: a writable bind (and the working
    directory) itself, the folder holding anything else mounted or masked."""
    folders: list[str] = []
    index = 0
    while index < len(argv) and argv[index] != "--":
        argument = argv[index]
        if argument == "--setenv":
            index += 3
            continue
        if argument == "--bind":
            folders.append(argv[index + 2])
        elif argument == "--ro-bind":
            folders += [os.path.dirname(argv[index + 1]), os.path.dirname(argv[index + 2])]
        elif argument == "--tmpfs":
            folders.append(os.path.dirname(argv[index + 1]))
        elif argument == "--chdir":
            folders.append(argv[index + 1])
        index += 1
    return folders
