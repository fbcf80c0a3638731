"""The model's checklist (``runtime.todo``) on screen: pinned above the prompt while a turn runs,
and as a block in the transcript where the model changed it.

Each item is one line: ``✓`` and struck through when completed, ``▶`` with its ``activeForm``
while in progress, ``○`` when pending. The pinned panel shows at most ``PINNED_LINES`` items
around the one in progress, and counts the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from zett_tui.core.inert_text import make_inert
from zett_tui.core.todo_items import TodoItem, summary
from zett_tui.ui.widgets.transcript_blocks import Block, _line
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

#: Items the pinned panel lists before it counts the rest.
PINNED_LINES = 5
MARKS = {"completed": "✓", "in_progress": "▶", "pending": "○"}


def item_text(item: TodoItem, done: Style, running: Style, pending: Style) -> Text:
    """One item as a line: its mark, then its label (struck through when completed)."""
    mark = MARKS.get(item.status, "○")
    if item.status == "completed":
        return Text.assemble((f"{mark} ", done), (make_inert(item.label), done + Style(strike=True)))
    style = running if item.status == "in_progress" else pending
    return Text.assemble((f"{mark} ", style), (make_inert(item.label), style))


def pinned_items(items: Sequence[TodoItem], room: int = PINNED_LINES) -> tuple[list[TodoItem], int]:
    """The items the panel lists (a window around the one in progress) and how many it leaves out."""
    if len(items) <= room:
        return list(items), 0
    current = next((index for index, item in enumerate(items) if item.status == "in_progress"), None)
    if current is None:
        current = next(
            (index for index, item in enumerate(items) if item.status == "pending"), len(items) - 1
        )
    start = max(0, min(current - 1, len(items) - room))
    return list(items[start : start + room]), len(items) - room


class TodoBlock(Block):
    """The checklist as the model set it, in the transcript (one line per item, under a title)."""

    compact = True

    def __init__(self, items: Sequence[TodoItem]) -> None:
        super().__init__()
        self.items = tuple(items)

    def plain_text(self) -> str:
        lines = [f"Checklist: {summary(self.items)}"]
        lines += [f"{MARKS.get(item.status, '○')} {item.label}" for item in self.items]
        return "\n".join(lines)

    def _estimate(self, width: int) -> int:
        return 1 + len(self.items)

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        styles = ctx.styles
        if not self.items:
            return [_line(Text("☐ Checklist cleared", style=styles.muted), width, ctx)]
        lines = [_line(Text(f"☐ Checklist · {summary(self.items)}", style=styles.muted), width, ctx)]
        for item in self.items:
            text = item_text(item, styles.state_done, styles.state_running, styles.muted)
            lines.append(_line(Text("  ") + text, width, ctx))
        return lines


class TodoPanel(Widget):
    """The checklist above the prompt while a turn runs (hidden when idle, empty or all done)."""

    DEFAULT_CSS = """
    TodoPanel {
        height: auto;
        max-height: 7;
        padding: 0 2;
        display: none;
    }
    TodoPanel.-listing {
        display: block;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[TodoItem, ...] = ()
        self.turn_running = False

    def show(self, items: Sequence[TodoItem]) -> None:
        self.items = tuple(items)
        self._sync()

    def set_turn_running(self, running: bool) -> None:
        if running != self.turn_running:
            self.turn_running = running
            self._sync()

    def _sync(self) -> None:
        """Pinned while a turn runs and something on the list is left to do: a list all done
        stays in the transcript and ``/todo``, not above the prompt of every later turn (where
        each turn's showing and hiding also moved the whole transcript, drawn twice a turn)."""
        unfinished = any(item.status != "completed" for item in self.items)
        self.set_class(unfinished and self.turn_running, "-listing")
        self.refresh(layout=True)

    def lines(self) -> list[Text]:
        """What the panel shows, one ``Text`` per line (also what the tests read)."""
        shown, left_out = pinned_items(self.items)
        done = Style(color="green", dim=True)
        running = Style(bold=True)
        pending = Style(dim=True)
        lines = [item_text(item, done, running, pending) for item in shown]
        if left_out:
            finished = sum(1 for item in self.items if item.status == "completed")
            lines.append(Text(f"… {left_out} more · {finished}/{len(self.items)} done", style=pending))
        return lines

    def render(self) -> Text:
        return Text("\n").join(self.lines())
