"""``/todo``: the model's checklist (``runtime.todo``); ``/todo clear`` empties it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.core.todo_items import summary
from zett_tui.ui.chat.commands.registry import slash_command
from zett_tui.ui.widgets.todo_panel import MARKS

if TYPE_CHECKING:
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command("todo", "Show the model's checklist (/todo clear empties it)", arguments="[clear]")
async def todo_command(ctx: CommandContext, arguments: str) -> None:
    host = ctx.host
    if host is None:
        ctx.say("The model is not ready yet.", "warning")
        return
    word = arguments.strip().lower()
    if word == "clear":
        await host.clear_todos()
        ctx.say("Checklist cleared.", "info")
        return
    if word:
        ctx.say("Usage: /todo (show the checklist) or /todo clear.", "warning")
        return
    items = host.todos.items
    if not items:
        ctx.say("No checklist: the model has not made one (it uses todo_write for longer tasks).", "info")
        return
    lines = [f"Checklist: {summary(items)}"] + [
        f"  {MARKS.get(item.status, '○')} {item.label}" for item in items
    ]
    ctx.say("\n".join(lines), "info")
