"""``/copy``: the last answer's code, raw, to the clipboard. Alt+C does the same as a bare ``/copy``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.ui.app_messages import CopyRequested
from zett_tui.ui.chat.answer_copy import from_last_answer
from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command(
    "copy",
    "Copy the last code block raw (N: the Nth one; all: the whole answer as Markdown)",
    arguments="[N|all]",
)
def copy_command(ctx: CommandContext, arguments: str) -> None:
    chosen = from_last_answer(ctx.transcript_blocks(), arguments)
    if isinstance(chosen, str):
        ctx.say(chosen, "warning")
        return
    text, label = chosen
    ctx.post(CopyRequested(text, label))
