"""Slash commands: one registry that the composer's ``/`` completion, ``/help`` and the command
palette all read, so a command is declared once with its one-line description.

A command module registers with ``@slash_command("name", "what it does")``; the handler gets a
:class:`~zett_tui.ui.chat.command_context.CommandContext` and the text after the name, and may be a
coroutine (it then runs in a worker). This module imports no command: the chat is handed a
:class:`CommandList` whose loader imports them (``commands/builtin.py``), so the registry sits at
the bottom of the UI's imports, with no cycle through the commands back to the screen.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from zett_tui.ui.chat.command_context import CommandContext, Handler, SlashCommand

#: Filled by ``@slash_command`` as command modules are imported.
REGISTRY: dict[str, SlashCommand] = {}


def slash_command(name: str, description: str, *, arguments: str = "") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        REGISTRY[name] = SlashCommand(name, description, handler, arguments)
        return handler

    return register


class CommandList:
    """The commands a chat offers. ``load`` returns them (it may import the command modules, so it
    is called at the first use, after the first frame); a command registered later shows too."""

    def __init__(self, load: Callable[[], Mapping[str, SlashCommand]]) -> None:
        self._load = load
        #: Commands from files (Markdown commands, skills): zett's own win over them.
        self._added: dict[str, SlashCommand] = {}
        #: One line per command or skill file that did not load (``/extensions`` shows them).
        self.problems: list[str] = []
        #: Lines about what was there but is not offered on purpose (an untrusted project's files).
        self.notes: list[str] = []

    def all(self) -> Mapping[str, SlashCommand]:
        if not self._added:
            return self._load()
        return {**self._added, **self._load()}

    def add(self, commands: Mapping[str, SlashCommand]) -> list[SlashCommand]:
        """Offer ``commands`` too; returns those left out because a built-in has their name."""
        builtin = self._load()
        clashes = [command for name, command in commands.items() if name in builtin]
        self._added.update({name: command for name, command in commands.items() if name not in builtin})
        return clashes

    def replace_added(self, commands: Mapping[str, SlashCommand]) -> list[SlashCommand]:
        """Offer exactly ``commands`` from files now (the files were read again); as ``add``."""
        self._added.clear()
        return self.add(commands)

    def added(self) -> Mapping[str, SlashCommand]:
        """The commands from files, by name."""
        return dict(self._added)

    def get(self, name: str) -> SlashCommand | None:
        return self.all().get(name)

    def nearest(self, name: str, limit: int = 3) -> list[str]:
        return difflib.get_close_matches(name, list(self.all()), n=limit, cutoff=0.5)

    def completions(self, prefix: str) -> list[SlashCommand]:
        """Commands whose name starts with ``prefix`` (without the slash), in name order."""
        commands = self.all()
        return [commands[name] for name in sorted(commands) if name.startswith(prefix)]

    def run(self, context: CommandContext, name: str, arguments: str) -> bool:
        """Run a command; False when there is none by that name. A coroutine runs in a worker."""
        command = self.get(name)
        if command is None:
            return False
        result: Any = command.handler(context, arguments)
        if inspect.isawaitable(result):
            context.run_in_background(result, group=f"command-{name}")
        return True


def split_command(text: str) -> tuple[str, str] | None:
    """``("model", "openai:gpt")`` for ``/model openai:gpt``; None when ``text`` is not a command."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or len(stripped) < 2:
        return None
    name, _, rest = stripped[1:].partition(" ")
    if not name or "/" in name:
        return None  # a path such as /etc/hosts is a prompt, not a command
    return name, rest.strip()
