"""AGENTS.md for the model, read only from inside the project, and the user's own from their config folder.

zett-agent's ``AgentsMdExtension`` reads every ``AGENTS.md`` from the working directory up to
``/``, following links, whole: in a cloned repository ``AGENTS.md -> ~/key.pem`` or
``sub/AGENTS.md -> /proc/self/environ`` put a private key and the provider keys into the first
request, before the user had trusted anything. This subclass keeps its message (one system
message headed "# Project instructions", after the others, re-read on every request) and changes
what it reads:

- **The project** is the git work tree that holds the working directory (the nearest folder above
  it with a ``.git`` the user owns, as git's own ``safe.directory`` rule, below the home folder),
  or the working directory alone when there is none. A cloned repository arrives as one work
  tree, so its root's ``AGENTS.md`` is still the repository's own text when zett starts in a
  subfolder; the folders above it (``~``, ``/tmp``, ``/``) are other people's or the user's other
  things, and are not read.
- **Each file** is read only when it is a regular file whose real path (every link resolved) is
  inside the project: a link to outside, to ``/proc``, a named pipe, a device or a folder called
  ``AGENTS.md`` is skipped, logged, and named once per session in one notice line.
- **The user's own** ``<config dir>/AGENTS.md`` (``zett_tui.core.paths.config_dir``) comes first, as
  global instructions: the user wrote it, so it may be a link (a dotfiles repository), but it
  too must be a regular file.
- **Size:** never more than ``4 * max_chars + 4`` bytes are read from a file (a UTF-8 character
  is at most four bytes), so a 5 GB ``AGENTS.md`` costs 128 KB; the 32,000-character cap and the
  truncation marker are zett-agent's.
"""

from __future__ import annotations

import codecs
import logging
import os
from collections.abc import Callable
from pathlib import Path

from zett_agent.extensions.agents_md import (
    _TRUNCATION_MARKER,
    AGENTS_FILE_NAME,
    DEFAULT_MAX_CHARS,
    AgentsMdExtension,
)

from zett_tui.core import paths
from zett_tui.core.contained_read import NotRead, read_contained

log = logging.getLogger(__name__)

Notify = Callable[[str, str], None]
"""``notify(text, level)``: one line for the user (the host passes it on with the turn)."""


class ProjectInstructionsExtension(AgentsMdExtension):
    """``AgentsMdExtension`` that reads instruction files only from inside the project."""

    def __init__(
        self,
        directory: str | Path | None = None,
        *,
        notify: Notify | None = None,
        user_file: Path | None = None,
        home: Path | None = None,
        file_name: str = AGENTS_FILE_NAME,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        super().__init__(directory, include_parents=True, file_name=file_name, max_chars=max_chars)
        self.name = "AgentsMdExtension"  # the same place in the agent as the one it replaces
        self._notify = notify
        self._user_file = user_file
        self._home = home
        self._project: Path | None = None
        self._told: set[tuple[str, str]] = set()

    @property
    def user_file(self) -> Path:
        return self._user_file if self._user_file is not None else paths.config_dir() / self.file_name

    def sources(self) -> tuple[Path, ...]:
        """The user's file, then the project's from its top folder down to the working directory.

        Only paths that exist (as names: a dangling link counts, to be reported) are returned;
        ``_read`` decides whether each one is read.
        """
        start = (self.directory if self.directory is not None else Path.cwd()).resolve()
        home = self._home.resolve() if self._home is not None else _home()
        self._project = project_folder(start, home)
        folders = [start, *start.parents]
        project_folders = reversed(folders[: folders.index(self._project) + 1])
        found = [self.user_file] if os.path.lexists(self.user_file) else []
        for folder in project_folders:
            candidate = folder / self.file_name
            if os.path.lexists(candidate) and candidate not in found:
                found.append(candidate)
        return tuple(found)

    def _read(self, path: Path) -> str | None:
        """The trimmed text, truncated at ``max_chars``; None (and said once) when it is not read."""
        own = path == self.user_file
        inside = None if own else self._project
        try:
            read = read_contained(path, inside=inside, max_bytes=4 * self.max_chars + 4)
            decoder = codecs.getincrementaldecoder("utf-8")()
            # A cut in the middle of a character is held back rather than refused.
            text = decoder.decode(read.data, final=not read.truncated)
        except FileNotFoundError:
            return None
        except NotRead as why:
            self._skipped(path, str(why), own=own)
            return None
        except UnicodeDecodeError:
            self._skipped(path, "is not UTF-8 text", own=own)
            return None
        content = text.strip()
        if not content:
            return None
        if read.truncated or len(content) > self.max_chars:
            content = content[: self.max_chars].rstrip() + _TRUNCATION_MARKER.format(limit=self.max_chars)
        return content

    def _skipped(self, path: Path, why: str, *, own: bool) -> None:
        label = str(path) if own or self._project is None else path.relative_to(self._project).as_posix()
        if (label, why) in self._told:
            return
        self._told.add((label, why))
        log.warning("instruction file %s not read: %s", path, why)
        if self._notify is not None:
            self._notify(f"{label} {why}; not read.", "warning")


def project_folder(start: Path, home: Path | None) -> Path:
    """The top of the project ``start`` (resolved) is in: the git work tree that holds it, or itself.

    The nearest folder at or above ``start`` with a ``.git`` (a folder or a worktree's file) owned
    by this user. The search stops below ``home`` and below ``/``: a ``.git`` there (a dotfiles
    repository in the home folder) does not make every folder beneath it one project.
    """
    for folder in (start, *start.parents):
        if folder != start and (folder == home or folder.parent == folder):
            break
        if _owned_git(folder / ".git"):
            return folder
    return start


def _owned_git(path: Path) -> bool:
    try:
        owner = os.lstat(path).st_uid
    except OSError:
        return False
    geteuid = getattr(os, "geteuid", None)
    return geteuid is None or owner == geteuid()


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, OSError):
        return None
