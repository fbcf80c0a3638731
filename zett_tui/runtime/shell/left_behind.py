"""What a sandboxed command may not leave behind: files that run later, outside the sandbox.

The sandbox contains what a command does while it runs. What it writes into the project stays,
and some files in a project are run or loaded later by something outside any sandbox, with no
question: git reads ``.git`` (config, ``commondir``, a ``gitdir:`` file, hooks, fsmonitor) on the
user's next ``git status``, in the shell prompt, and on zett's own file finder; Mercurial reads
``.hg/hgrc``; direnv runs ``.envrc``; an editor runs ``.vscode/tasks.json`` or sources ``.exrc``;
another agent starts the MCP servers of ``.mcp.json`` or the hooks of ``.claude/settings.json``.
Each of those tools finds its file from the folder it is started in, not only at the project's
root (git, hg and direnv walk up from the current folder; an editor or agent opened in
``services/api`` reads ``services/api/.vscode``), so the rule holds in every folder of the
project: ``project_sandbox`` binds what exists at the root (and every ``.git``) read-only, and
``LeftBehind`` moves out of the project whatever a command made, anywhere, under one of
``LATER_NAMES``, or changed inside one that was not bound (a ``.vscode`` five folders down).

How it finds them without a walk of the project per command: a folder's change time moves
whenever an entry in it is created, renamed or removed, and no command can set it back. The
first watched command walks the project once (``UNWATCHED_FOLDERS`` aside) and remembers every
folder with its change time; after each later command one ``lstat`` per folder says which
changed, and only those are listed. A folder that is new (or was moved in) counts as made by the
command as a whole, whatever the times inside it say.

Not protected, on purpose: files the project's own tools run when the user runs the project
(``conftest.py``, ``setup.py``, ``Makefile``, ``package.json`` scripts, a ``.pth`` file in the
project's ``.venv``): writing and changing the project's code is the work the model is asked to
do, any module the tests import runs as surely as a ``conftest.py`` does, and running it is the
user's decision. (``./configure`` and ``cmake`` write a ``Makefile`` into every folder: moving
them would break every build.) No Textual here.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from zett_agent.sandbox.policy import PROTECTED_DIRECTORY_NAMES, PROTECTED_FILE_NAMES

__all__ = [
    "GIT",
    "LATER_NAMES",
    "UNWATCHED_FOLDERS",
    "LeftBehind",
    "Watch",
    "repositories_in",
]

log = logging.getLogger(__name__)

#: Names that something outside the sandbox runs or loads later, with no question of its own:
#: zett-agent's list (shell start-up files, ``.gitconfig``, ``.gitmodules``, ``.ripgreprc``,
#: ``.mcp.json``, ``.vscode``, ``.idea``) and these: ``.git`` (git's configuration and hooks),
#: ``.hg`` (Mercurial's hooks in ``.hg/hgrc``), ``.zett`` (zett's own project folder), ``.claude``
#: (another agent's hooks and MCP servers), ``.cursor``/``.gemini``/``.codex`` (the same for other
#: tools), ``.devcontainer`` (``initializeCommand`` runs on the host), ``.envrc`` (direnv),
#: ``.zshenv``, ``.bash_login``, ``.bash_logout``, ``.inputrc``, ``.tmux.conf``,
#: ``.vimrc``/``.exrc``/``.nvim.lua`` (an editor started in the folder may source them).
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

GIT = ".git"
_LATER_SET = frozenset(LATER_NAMES)
#: Compared case-insensitively below the root: ``.GIT`` is ``.git`` on macOS's file systems.
_LATER_FOLDED = frozenset(name.casefold() for name in LATER_NAMES)

#: Folders the watch does not enter: package trees and caches of thousands of folders that no one
#: starts git, direnv or an editor in (``build``, ``dist`` and ``target`` are watched: people do
#: ``cd build``). A ``.pth`` or module in ``.venv`` is the project's own code (see above).
UNWATCHED_FOLDERS = frozenset(
    {"node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
)


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
            if entry.name == GIT:
                found.append(Path(entry.path))
                continue
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_folder and entry.name not in skipped and depth + 1 < depth_limit:
                pending.append((Path(entry.path), depth + 1))
    return found


@dataclass(frozen=True, slots=True)
class Watch:
    """One command's watch, taken just before it starts."""

    #: The ``LATER_NAMES`` at the root before it ran.
    before: frozenset[str]
    #: What it has bound read-only (None: a sandbox that binds nothing, Seatbelt: only new names at
    #: the root are looked for, since an existing ``.git`` changes with every commit there).
    bound: frozenset[Path] | None
    #: Its start, less the file system's clock slack: a change time at or after it is the command's.
    since_ns: int


#: A file system's change times may lag the clock by a tick.
_CLOCK_SLACK_NS = 20_000_000


@dataclass(slots=True)
class _Folder:
    ctime_ns: int
    #: The later name this folder lies in (a change anywhere in it moves that out), or None.
    owner: Path | None


class LeftBehind:
    """Finds the later names a command made (or changed unbound) anywhere in a project, and moves
    them out to ``refused_dir`` (zett's state folder, hidden from commands)."""

    def __init__(self, root: Path, refused_dir: Path) -> None:
        self.root = root
        self.refused_dir = refused_dir
        #: Every folder seen, without a bound: one a command could fill first would blind the watch.
        self._folders: dict[Path, _Folder] | None = None

    def present(self) -> frozenset[str]:
        """The ``LATER_NAMES`` at the root now (one listing of the root, not a ``stat`` per name)."""
        try:
            with os.scandir(self.root) as listing:
                names = {entry.name for entry in listing}
        except OSError:
            return frozenset(name for name in LATER_NAMES if os.path.lexists(self.root / name))
        return frozenset(_LATER_SET & names)

    def watch(self, bound: frozenset[Path] | None) -> Watch:
        """Call right before a command starts."""
        return Watch(self.present(), bound, time.time_ns() - _CLOCK_SLACK_NS)

    def move_made(self, watch: Watch) -> list[tuple[str, Path]]:
        """Move out what the command of ``watch`` left under a later name (blocking: call it from a
        thread). What was moved (relative to the root), and where to."""
        if watch.bound is None:
            made = [self.root / name for name in sorted(self.present() - watch.before)]
        else:
            made = self._made(watch)
        return self._move_out(made)

    # -- finding ----------------------------------------------------------------------------------

    def _made(self, watch: Watch) -> list[Path]:
        found: dict[Path, None] = {}
        bound = watch.bound or frozenset()
        if self._folders is None:
            self._folders = {}
            self._list(self.root, None, watch, bound, found, whole=False)
            return list(found)
        for folder, known in list(self._folders.items()):
            try:
                info = os.lstat(folder)
            except OSError:
                del self._folders[folder]
                continue
            if not stat.S_ISDIR(info.st_mode):
                del self._folders[folder]
                continue
            if info.st_ctime_ns == known.ctime_ns and info.st_ctime_ns < watch.since_ns:
                continue
            if known.owner is not None:
                if info.st_ctime_ns >= watch.since_ns and known.owner not in bound:
                    found[known.owner] = None
                known.ctime_ns = info.st_ctime_ns
                continue
            self._list(folder, None, watch, bound, found, whole=False)
        return [path for path in found if os.path.lexists(path)]

    def _list(
        self,
        folder: Path,
        owner: Path | None,
        watch: Watch,
        bound: frozenset[Path],
        found: dict[Path, None],
        *,
        whole: bool,
    ) -> None:
        """List ``folder`` and remember it; new folders below are walked. ``whole``: the folder is
        new (or moved in): every later name in it is the command's."""
        assert self._folders is not None
        pending = [(folder, owner, whole)]
        while pending:
            here, owner, whole = pending.pop()
            try:
                ctime = os.lstat(here).st_ctime_ns
                entries = list(os.scandir(here))
            except OSError:
                continue
            if owner is not None and ctime >= watch.since_ns and owner not in bound:
                found[owner] = None
            self._folders[here] = _Folder(ctime, owner)
            for entry in entries:
                path = Path(entry.path)
                if path in bound:
                    continue  # read-only as it was
                later = owner is None and entry.name.casefold() in _LATER_FOLDED
                try:
                    is_folder = entry.is_dir(follow_symlinks=False)
                    if (
                        not later
                        and not entry.is_symlink()
                        and (not is_folder or entry.name in UNWATCHED_FOLDERS)
                    ):
                        continue  # (no ``stat`` for a plain file)
                    changed = entry.stat(follow_symlinks=False).st_ctime_ns >= watch.since_ns
                except OSError:
                    continue
                made = whole or changed
                if made and (later or (entry.is_symlink() and self._leads_unwatched(path))):
                    found[path] = None
                elif is_folder and path not in self._folders:
                    pending.append((path, path if later else owner, whole or changed))

    def _leads_unwatched(self, link: Path) -> bool:
        """Whether ``link`` leads to a folder where the watch does not look but a command writes:
        one in ``UNWATCHED_FOLDERS``, or a package cache (``cd link`` then runs the git found
        there)."""
        from zett_tui.core.outside_programs import is_writable_by_sandbox

        real = Path(os.path.realpath(link))
        if not real.is_dir():
            return False
        if real == self.root or real.is_relative_to(self.root):
            return any(part in UNWATCHED_FOLDERS for part in real.relative_to(self.root).parts)
        return is_writable_by_sandbox(real)

    # -- moving out -------------------------------------------------------------------------------

    def _move_out(self, made: Sequence[Path]) -> list[tuple[str, Path]]:
        moved: list[tuple[str, Path]] = []
        for source in made:
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
            self._forget(source)
            moved.append((name, target))
        return moved

    def _forget(self, gone: Path) -> None:
        if self._folders is not None:
            for folder in [folder for folder in self._folders if folder.is_relative_to(gone)]:
                del self._folders[folder]
