"""The commands every session needs: help, quit, continue, new."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.ui.app_messages import OpenSession, QuitRequested
from zett_tui.ui.chat.commands.registry import REGISTRY, slash_command

if TYPE_CHECKING:
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command("quit", "Quit zett (a running turn is stopped and recorded)")
def quit_app(ctx: CommandContext, arguments: str) -> None:
    ctx.post(QuitRequested())


@slash_command("continue", "Carry on a turn that was cut off")
def continue_turn(ctx: CommandContext, arguments: str) -> None:
    ctx.continue_turn()


@slash_command("help", "List the commands and keys")
def show_help(ctx: CommandContext, arguments: str) -> None:
    commands = [
        (f"/{name} {REGISTRY[name].arguments}".rstrip(), REGISTRY[name].description)
        for name in sorted(REGISTRY)
    ]
    added = ctx.commands.added()
    from_files = [
        (f"/{name} {added[name].arguments}".rstrip(), added[name].description) for name in sorted(added)
    ]
    sections = [("Commands:", commands)]
    if from_files:
        sections.append(("From files (Markdown commands and skills):", from_files))
    ctx.show_help([*sections, ("Keys:", ctx.key_help())])


@slash_command("new", "Start a new session (this one stays saved)")
def new_session(ctx: CommandContext, arguments: str) -> None:
    ctx.post(OpenSession(None))
