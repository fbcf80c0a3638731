"""Slash commands: one registry that the composer's ``/`` completion, ``/help`` and the command
palette all read, so a command is declared once with its one-line description.

A command module registers with ``@slash_command("name", "what it does")``; the handler gets the
chat screen and the text after the name, and may be a coroutine (it then runs in a worker).
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zett_tui.ui.chat.screen import ChatScreen

Handler = Callable[["ChatScreen", str], Awaitable[None] | None]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    handler: Handler
    #: A short hint of the arguments, shown in completion and help (e.g. "[ID]").
    arguments: str = ""


REGISTRY: dict[str, SlashCommand] = {}


def registry() -> dict[str, SlashCommand]:
    """Every command. The built-in ones register when ``ui/chat/commands/builtin.py`` is imported:
    after the first frame, in a thread (``ui/speed/deferred_imports.py``), or here at the first use
    before that."""
    import zett_tui.ui.chat.commands.builtin  # noqa: F401

    return REGISTRY


def slash_command(name: str, description: str, *, arguments: str = "") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        REGISTRY[name] = SlashCommand(name, description, handler, arguments)
        return handler

    return register


def split_command(text: str) -> tuple[str, str] | None:
    """``("model", "openai:gpt")`` for ``/model openai:gpt``; None when ``text`` is not a command."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or len(stripped) < 2:
        return None
    name, _, rest = stripped[1:].partition(" ")
    if not name or "/" in name:
        return None  # a path such as /etc/hosts is a prompt, not a command
    return name, rest.strip()


def nearest(name: str, limit: int = 3) -> list[str]:
    return difflib.get_close_matches(name, list(registry()), n=limit, cutoff=0.5)


def completions(prefix: str) -> list[SlashCommand]:
    """Commands whose name starts with ``prefix`` (without the slash), in name order."""
    commands = registry()
    return [commands[name] for name in sorted(commands) if name.startswith(prefix)]


def run(chat: ChatScreen, name: str, arguments: str) -> bool:
    """Run a registered command; False when there is none by that name."""
    command = registry().get(name)
    if command is None:
        return False
    result: Any = command.handler(chat, arguments)
    if inspect.isawaitable(result):
        chat.run_worker(result, group=f"command-{name}", exit_on_error=False)
    return True
