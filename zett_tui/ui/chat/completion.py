"""What the composer's completion menu offers: slash commands (read from the registry each time, so
commands added by any module appear) and project files for ``@``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from zett_tui.ui.chat.command_context import SlashCommand
from zett_tui.ui.chat.commands.registry import CommandList
from zett_tui.ui.widgets.completion_menu import CompletionItem
from zett_tui.workspace.file_finder import FileMatch, quote_path

Location = tuple[int, int]


@dataclass(frozen=True)
class CompletionContext:
    """What is being completed: a command name or an ``@`` file query, and the text it replaces."""

    kind: Literal["command", "file"]
    query: str
    start: Location
    end: Location


def find_context(lines: list[str], cursor: Location) -> CompletionContext | None:
    """The completion the cursor is in, if any.

    A command: the prompt is one line starting with ``/`` and no space yet (``/he``). A file: the
    word under the cursor starts with ``@`` (``see @src/comp``; an address like ``me@host`` is not).
    """
    row, column = cursor
    if len(lines) == 1:
        text = lines[0]
        name = text[1:]
        if text.startswith("/") and "/" not in name and " " not in name and column >= 1:
            return CompletionContext("command", name, (0, 0), (0, len(text)))
    line = lines[row] if row < len(lines) else ""
    start = column
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    if not line[start:column].startswith("@"):
        return None
    end = column
    while end < len(line) and not line[end].isspace():
        end += 1
    return CompletionContext("file", line[start + 1 : column], (row, start), (row, end))


def needs_argument(command: SlashCommand) -> bool:
    """True when the command's argument is required (``TITLE``, not ``[NAME]``)."""
    return bool(command.arguments) and not command.arguments.startswith("[")


def command_items(query: str, command_list: CommandList) -> list[CompletionItem]:
    """Commands whose name starts with ``query``, then those that contain it, in name order."""
    commands = command_list.all()
    names = sorted(commands)
    starting = [name for name in names if name.startswith(query)]
    inside = [name for name in names if query and query in name and not name.startswith(query)]
    items = []
    for name in starting + inside:
        command = commands[name]
        at = name.find(query) + 1
        items.append(
            CompletionItem(
                label=f"/{name}",
                value=name,
                detail=command.description,
                hint=command.arguments,
                highlights=tuple(range(at, at + len(query))),
            )
        )
    return items


def command_completion(name: str, command_list: CommandList) -> str:
    """The prompt text after completing ``name``: a space follows when it takes arguments."""
    command = command_list.get(name)
    return f"/{name}" + (" " if command is not None and command.arguments else "")


def file_items(matches: Iterable[FileMatch]) -> list[CompletionItem]:
    return [
        CompletionItem(label=match.path, value="@" + quote_path(match.path), highlights=match.positions)
        for match in matches
    ]
