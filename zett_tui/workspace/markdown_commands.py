"""Slash commands written as Markdown files, as Claude Code reads them: loading and expanding.

``<config dir>/commands/*.md`` are the user's; a trusted project's ``.zett/commands/`` and
``.claude/commands/`` are the project's (``command_folders`` decides which folders count). A
file's path below its folder is the command's name, folders joined by ``:`` (``frontend/test.md``
is ``/frontend:test``); its optional front matter gives ``description``, ``argument-hint`` and
``model``; its body is the prompt, with ``$ARGUMENTS`` and ``$1``..``$9`` filled in from what the
user typed after the name (split like a shell would, quotes kept together).

Every file that does not load (a link out of its folder, too large, not UTF-8, bad front matter,
a name with characters a command cannot have) is one ``Problem``; the rest still load. No
Textual here: ``ui/chat/commands/markdown.py`` turns these into slash commands.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from zett_tui.workspace.contained_folder import Problem
from zett_tui.workspace.front_matter import Document
from zett_tui.workspace.markdown_folders import Origin, load_markdown_folders

__all__ = ["NAME_PART", "MarkdownCommand", "Origin", "command_name", "expand", "load_commands"]

#: One part of a command name: what can be typed after ``/`` and shown on one line.
NAME_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9])")
_DESCRIPTION_CHARS = 200


@dataclass(frozen=True)
class MarkdownCommand:
    name: str
    description: str
    argument_hint: str
    model: str
    body: str
    path: Path
    origin: Origin

    def expand(self, arguments: str) -> str:
        return expand(self.body, arguments)


def command_name(relative: Path) -> str | None:
    """``frontend:test`` for ``frontend/test.md``; None when a part is not a plain name."""
    parts = [*relative.parts[:-1], relative.name.removesuffix(".md")]
    if not all(NAME_PART.match(part) for part in parts):
        return None
    return ":".join(parts)


def load_commands(folders: Iterable[Origin]) -> tuple[list[MarkdownCommand], list[Problem]]:
    """The commands of ``folders``, in order (a later folder's command of the same name is
    reported and left out), and what did not load."""
    return load_markdown_folders(
        folders,
        _build,
        name_of=lambda command: command.name,
        taken=lambda name, first: f"/{name} is already defined by {first.path}; this one is left out",
    )


def _build(path: Path, origin: Origin, document: Document) -> MarkdownCommand | str:
    name = command_name(path.relative_to(origin.folder))
    if name is None:
        return "its name can only have letters, digits, '-', '_' and '.'"
    fields = document.fields
    return MarkdownCommand(
        name=name,
        description=_one_line(fields.get("description", "")) or _first_line(document.body),
        argument_hint=_one_line(fields.get("argument-hint", "")),
        model=fields.get("model", "").strip(),
        body=document.body,
        path=path,
        origin=origin,
    )


def expand(body: str, arguments: str) -> str:
    """``body`` with ``$ARGUMENTS`` (all of ``arguments``) and ``$1``..``$9`` (each one, split
    like a shell: ``"two words"`` is one) filled in, in one pass: an argument that itself holds
    ``$1`` is not expanded again. A body without placeholders gets the arguments appended."""
    arguments = arguments.strip()
    try:
        words = shlex.split(arguments)
    except ValueError:  # an unmatched quote: split on blanks rather than refuse
        words = arguments.split()

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return arguments
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    if not _PLACEHOLDER.search(body):
        return f"{body.rstrip()}\n\nARGUMENTS: {arguments}" if arguments else body
    return _PLACEHOLDER.sub(fill, body)


def _one_line(text: str) -> str:
    line = "".join(char for char in " ".join(text.split()) if char.isprintable())
    return line if len(line) <= _DESCRIPTION_CHARS else line[: _DESCRIPTION_CHARS - 1] + "…"


def _first_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip():
            return _one_line(line.strip().lstrip("#").strip())
    return ""
