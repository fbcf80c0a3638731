"""The Ctrl+P command palette on the chat screen: every slash command (read from the registry when
the palette opens, so commands added by any module appear) and a few actions that have only a key.

A command that needs an argument (``/rename TITLE``) is not run from the palette: ``/rename `` is put
in the composer to finish. Textual's own Theme and Quit entries are left out on the chat screen,
where ``/theme`` and ``/quit`` already stand for them, and its developer entries (Keys, Maximize,
Minimize, Screenshot) on every screen: F1 is zett's key help, and a screenshot saved to a folder
nobody named, with no word said, is not something a user asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen

from zett_tui.ui.chat.commands.registry import CommandList
from zett_tui.ui.chat.completion import needs_argument

if TYPE_CHECKING:
    from zett_tui.ui.chat.command_context import CommandContext
    from zett_tui.ui.chat.turns import TurnRunner


class EditablePrompt(Protocol):
    def edit_externally(self) -> None: ...


@runtime_checkable
class ChatScreen(Protocol):
    """The chat screen as the palette sees it (the palette does not import the screen)."""

    commands: CommandList
    command_context: CommandContext
    turns: TurnRunner
    prompt: EditablePrompt

    def action_cycle_mode(self) -> None: ...


#: Textual's system entries that a slash command already covers on the chat screen.
DUPLICATED_SYSTEM_COMMANDS = frozenset({"Theme", "Quit"})
#: Textual's system entries for developers, left out everywhere.
TEXTUAL_ONLY_COMMANDS = frozenset({"Keys", "Maximize", "Minimize", "Screenshot"})


@dataclass(frozen=True)
class PaletteEntry:
    title: str
    help: str
    run: Callable[[], Any]


def slash_entries(chat: ChatScreen) -> list[PaletteEntry]:
    entries = []
    commands = chat.commands.all()
    for name in sorted(commands):
        command = commands[name]
        usage = f"/{name} {command.arguments}".rstrip()
        if needs_argument(command):
            entries.append(PaletteEntry(usage, command.description, _prefill(chat, name)))
        else:
            entries.append(PaletteEntry(usage, command.description, _runner(chat, name)))
    return entries


def action_entries(chat: ChatScreen) -> list[PaletteEntry]:
    """Things with a key but no slash command."""
    entries = [
        PaletteEntry(
            "Edit the prompt in $EDITOR",
            "Open the prompt in $VISUAL or $EDITOR; what you save comes back (Ctrl+G)",
            chat.prompt.edit_externally,
        ),
        PaletteEntry(
            "Next permission mode",
            "Cycle ask → accept edits → plan → auto (Shift+Tab)",
            chat.action_cycle_mode,
        ),
    ]
    if chat.turns.busy:
        entries.append(
            PaletteEntry("Stop the turn", "Stop the running turn; it is recorded (Esc)", chat.turns.cancel)
        )
    return entries


def _runner(chat: ChatScreen, name: str) -> Callable[[], None]:
    def run() -> None:
        chat.commands.run(chat.command_context, name, "")

    return run


def _prefill(chat: ChatScreen, name: str) -> Callable[[], None]:
    def prefill() -> None:
        chat.command_context.put_in_prompt(f"/{name} ")

    return prefill


class ChatCommands(Provider):
    """Slash commands and key-only actions for the chat screen's palette."""

    def _entries(self) -> list[PaletteEntry]:
        chat = self.screen
        if not isinstance(chat, ChatScreen):
            return []
        return slash_entries(chat) + action_entries(chat)

    async def discover(self) -> Hits:
        for entry in self._entries():
            yield DiscoveryHit(entry.title, entry.run, help=entry.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in self._entries():
            # The title (with or without its slash) is what is matched; the description helps too.
            score = max(matcher.match(entry.title), matcher.match(entry.title.lstrip("/")))
            if score <= 0:
                score = matcher.match(entry.help) * 0.5
            if score > 0:
                yield Hit(score, matcher.highlight(entry.title), entry.run, help=entry.help)


def without_duplicates(commands: Iterable[SystemCommand], screen: Screen[Any]) -> Iterable[SystemCommand]:
    """Textual's system commands, less its developer entries and those a slash command covers when
    the chat screen is shown."""
    for command in commands:
        if command.title in TEXTUAL_ONLY_COMMANDS:
            continue
        if isinstance(screen, ChatScreen) and command.title in DUPLICATED_SYSTEM_COMMANDS:
            continue
        yield command
