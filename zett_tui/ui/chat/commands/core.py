"""The commands every session needs: help, quit, continue, new."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.ui.chat.commands.registry import REGISTRY, slash_command

if TYPE_CHECKING:
    from zett_tui.ui.chat.screen import ChatScreen


@slash_command("quit", "Quit zett (a running turn is stopped and recorded)")
def quit_app(chat: ChatScreen, arguments: str) -> None:
    chat.app.run_worker(chat.app.action_quit(), group="quit")


@slash_command("continue", "Carry on a turn that was cut off")
def continue_turn(chat: ChatScreen, arguments: str) -> None:
    chat.turns.continue_interrupted()


@slash_command("help", "List the commands and keys")
def show_help(chat: ChatScreen, arguments: str) -> None:
    lines = ["Commands:"]
    for name in sorted(REGISTRY):
        command = REGISTRY[name]
        usage = f"/{name} {command.arguments}".rstrip()
        lines.append(f"  {usage:<22} {command.description}")
    lines.append("")
    lines.append("Keys:")
    for key, description in chat.key_help():
        lines.append(f"  {key:<22} {description}")
    chat.say("\n".join(lines), "info")


@slash_command("new", "Start a new session (this one stays saved)")
def new_session(chat: ChatScreen, arguments: str) -> None:
    from zett_tui.ui.app import ZettApp

    app = chat.app
    if isinstance(app, ZettApp):
        app.run_worker(app.open_session(None), group="switch-session", exit_on_error=False)
