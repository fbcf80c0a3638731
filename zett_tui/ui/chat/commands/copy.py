"""``/copy``: the last answer's code, raw (the source, not the rendered lines with their padding and
soft wraps), to the clipboard. Alt+C does the same as a bare ``/copy``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.ui.chat.commands.registry import slash_command
from zett_tui.ui.widgets.transcript import AnswerBlock

if TYPE_CHECKING:
    from zett_tui.ui.chat.screen import ChatScreen

USAGE = "/copy copies the last code block, /copy N the Nth code block, /copy all the whole answer."


def last_answer(chat: ChatScreen) -> AnswerBlock | None:
    """The last answer that has any text."""
    for block in reversed(chat.transcript.blocks):
        if isinstance(block, AnswerBlock) and block.text.strip():
            return block
    return None


def choose(answer: AnswerBlock, argument: str) -> tuple[str, str] | str:
    """``(text, label)`` to copy for ``argument``, or the reason there is nothing."""
    argument = argument.strip().lower()
    if argument == "all":
        return answer.text.strip("\n"), "The last answer"
    code_blocks = answer.code_blocks()
    if not code_blocks:
        return "The last answer has no code block; /copy all copies the whole answer."
    if not argument:
        number = len(code_blocks)
    elif argument.isdigit() and 1 <= int(argument) <= len(code_blocks):
        number = int(argument)
    else:
        count = len(code_blocks)
        return f"The last answer has {count} code block{'s' if count != 1 else ''}. {USAGE}"
    code = code_blocks[number - 1].rstrip("\n")  # no final newline: a pasted command does not run by itself
    lines = code.count("\n") + 1
    return code, f"Code block {number} of {len(code_blocks)} ({lines} line{'s' if lines != 1 else ''})"


def copy_from_last_answer(chat: ChatScreen, argument: str = "") -> None:
    answer = last_answer(chat)
    chosen = choose(answer, argument) if answer is not None else "There is no answer to copy yet."
    if isinstance(chosen, str):
        chat.say(chosen, "warning")
        return
    text, label = chosen
    from zett_tui.ui.app import ZettApp

    app = chat.app
    if isinstance(app, ZettApp):
        app.copy_to_clipboard(text, label=label)
    else:
        app.copy_to_clipboard(text)


@slash_command(
    "copy",
    "Copy the last code block raw (N: the Nth one; all: the whole answer as Markdown)",
    arguments="[N|all]",
)
def copy_command(chat: ChatScreen, arguments: str) -> None:
    copy_from_last_answer(chat, arguments)
