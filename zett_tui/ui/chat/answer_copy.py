"""What ``/copy`` and Alt+C take from the last answer: its code, raw (the source, not the rendered
lines with their padding and soft wraps), or the whole answer."""

from __future__ import annotations

from collections.abc import Sequence

from zett_tui.ui.widgets.transcript import AnswerBlock, Block

USAGE = "/copy copies the last code block, /copy N the Nth code block, /copy all the whole answer."


def last_answer(blocks: Sequence[Block]) -> AnswerBlock | None:
    """The last answer that has any text."""
    for block in reversed(blocks):
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


def from_last_answer(blocks: Sequence[Block], argument: str = "") -> tuple[str, str] | str:
    """``(text, label)`` of the last answer for ``argument``, or why there is nothing to copy."""
    answer = last_answer(blocks)
    return choose(answer, argument) if answer is not None else "There is no answer to copy yet."
