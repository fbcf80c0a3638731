"""Markdown files with front matter, read from a list of folders: what slash commands
(``markdown_commands``) and custom subagents (``agent_files``) share.

Each folder is checked (a project's must really lie inside the project), its ``.md`` files are
walked, a file the user did not trust is left out, each file is read inside its folder and split
into front matter and body, and the kind's own ``build`` makes an item of it. The first item of a
name wins; a later one is one ``Problem``, as is every file that does not load. No Textual here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from zett_tui.core.contained_read import NotRead
from zett_tui.workspace.contained_folder import Problem, read_text, real_folder, walk_files
from zett_tui.workspace.front_matter import Document, FrontMatterError, split_front_matter

Item = TypeVar("Item")


@dataclass(frozen=True)
class Origin:
    """Where a command, a skill or an agent came from: ``user`` or ``project``, and the folder."""

    kind: str
    folder: Path
    #: A project's folder must really lie inside the project (``.claude/commands -> ~/x`` does
    #: not load); None for the user's own folders, which may be links (a dotfiles repository).
    inside: Path | None = None
    #: For a project's folder: the files the user trusted (as the trust question named them);
    #: any other file does not load. None: no such list (the user's own folders).
    trusted_files: frozenset[Path] | None = None

    def untrusted(self, path: Path) -> Problem | None:
        """Why ``path`` may not load from here, or None when it may."""
        if self.trusted_files is None or path in self.trusted_files:
            return None
        return Problem(path, "was not among the files you trusted (past what zett reads of a project to ask)")


def load_markdown_folders(
    folders: Iterable[Origin],
    build: Callable[[Path, Origin, Document], Item | str],
    *,
    name_of: Callable[[Item], str],
    taken: Callable[[str, Item], str],
) -> tuple[list[Item], list[Problem]]:
    """The items ``build`` makes of the ``.md`` files of ``folders``, in order, and what did not
    load. ``name_of`` names an item; ``taken(name, first)`` says why a later file of a name that
    ``first`` has is left out."""
    problems: list[Problem] = []
    items: dict[str, Item] = {}
    for origin in folders:
        root = real_folder(origin.folder, inside=origin.inside, problems=problems)
        if root is None:
            continue
        for path in walk_files(origin.folder, problems, suffix=".md"):
            refused = origin.untrusted(path)
            if refused is not None:
                problems.append(refused)
                continue
            try:
                document = split_front_matter(read_text(path, inside=root))
            except (NotRead, FrontMatterError) as why:
                problems.append(Problem(path, str(why)))
                continue
            item = build(path, origin, document)
            if isinstance(item, str):
                problems.append(Problem(path, item))
                continue
            name = name_of(item)
            if name in items:
                problems.append(Problem(path, taken(name, items[name])))
                continue
            items[name] = item
    return list(items.values()), problems
