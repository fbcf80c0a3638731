"""The list above the prompt: notes on their way into the running turn, and prompts queued after it.

At most ``SHOWN`` entries, one line each (the first line of the text, cut to the width), then
"N more". Hidden while there is nothing to list.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from zett_tui.core.inert_text import make_inert
from zett_tui.runtime.prompt_queue import PromptQueue

#: Entries listed before the rest is counted ("2 more").
SHOWN = 3
STEER_MARK = "↳ into this turn: "
QUEUED_MARK = "⏎ after this turn: "
HINT = "  ↑ on an empty prompt takes the last back"


def _one_line(text: str) -> str:
    return " ⏎ ".join(line.strip() for line in text.strip().splitlines() if line.strip())


def queue_lines(queue: PromptQueue) -> list[str]:
    """The lines the list shows, in order (the newest queued prompt last)."""
    entries = [STEER_MARK + _one_line(text) for text in queue.pending_steers]
    entries += [QUEUED_MARK + _one_line(text) for text in queue.items]
    lines = entries[:SHOWN]
    if len(entries) > SHOWN:
        lines.append(f"… {len(entries) - SHOWN} more")
    return lines


class QueuedPrompts(Widget):
    """What was typed during the turn and not yet answered; ``queue`` is the turn runner's."""

    DEFAULT_CSS = """
    QueuedPrompts {
        height: auto;
        max-height: 4;
        padding: 0 2;
        color: $text-muted;
        display: none;
    }
    QueuedPrompts.-listing {
        display: block;
    }
    """

    def __init__(self, queue: PromptQueue, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queue = queue
        queue.on_change(self._queue_changed)

    def _queue_changed(self) -> None:
        self.set_class(bool(self.queue.items or self.queue.pending_steers), "-listing")
        self.refresh(layout=True)

    def render(self) -> Text:
        lines = queue_lines(self.queue)
        text = Text(no_wrap=True, overflow="ellipsis")
        for index, line in enumerate(lines):
            if index:
                text.append("\n")
            text.append(make_inert(line))
        if self.queue.items:
            text.append(HINT, style="dim")
        return text
