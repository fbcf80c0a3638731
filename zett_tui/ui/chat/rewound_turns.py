"""Marking, in the live transcript, the turns a conversation rewind took out of the model's context.

A painted session marks them with a line after each (``past_turns``); the live transcript marks the
prompts in place (``UserBlock.rewound``), from the rewind's target turn on: its prompt is found
from the end, among the prompts not marked yet, as the user typed it.
"""

from __future__ import annotations

from zett_tui.ui.widgets.transcript import Transcript
from zett_tui.ui.widgets.transcript_blocks import UserBlock


def mark_rewound_turns(transcript: Transcript, prompt: str) -> list[UserBlock]:
    """Mark the prompt ``prompt`` (the latest one so written, not marked yet) and every later one;
    returns the prompts marked (none when it is not on screen, e.g. before a resume)."""
    from zett_tui.runtime.files.attachments import typed_part  # not before the first frame

    prompts = [block for block in transcript.blocks if isinstance(block, UserBlock)]
    wanted = typed_part(prompt).strip()
    start = next(
        (
            index
            for index in range(len(prompts) - 1, -1, -1)
            if not prompts[index].rewound and prompts[index].text.strip() == wanted
        ),
        None,
    )
    if start is None:
        return []
    marked = [block for block in prompts[start:] if not block.rewound]
    for block in marked:
        block.set_rewound(True)
        transcript.refresh_block(block)
    return marked


def unmark_turns(transcript: Transcript, blocks: list[UserBlock]) -> None:
    for block in blocks:
        block.set_rewound(False)
        transcript.refresh_block(block)
