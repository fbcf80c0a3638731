"""The small list above the composer: slash commands or files matching what is being typed.

It never takes the focus; the composer moves the highlight (Up/Down/Tab) and accepts (Tab/Enter).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


@dataclass(frozen=True)
class CompletionItem:
    """One row: ``label`` (with ``highlights``: indices of matched characters), a dimmer ``hint``
    (a command's arguments), a ``detail`` (a command's description), and the ``value`` to insert."""

    label: str
    value: str
    detail: str = ""
    hint: str = ""
    highlights: tuple[int, ...] = ()


class CompletionMenu(Widget):
    """Shows up to ``VISIBLE_ROWS`` items around the highlighted one, or a one-line ``message``."""

    DEFAULT_CSS = """
    CompletionMenu {
        display: none;
        height: auto;
        max-height: 11;
        padding: 0 1;
        margin: 0 1;
        background: $panel;
        color: $foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    CompletionMenu.-open {
        display: block;
    }
    /* The highlighted row takes one colour pair over its whole width (matches and details too):
       the block cursor's, which every theme makes readable. A translucent background such as
       "$accent 40%" is not blended in a component style, so text in $accent vanished on it. */
    CompletionMenu > .completion-menu--highlight {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: bold;
    }
    CompletionMenu > .completion-menu--match { color: $accent; text-style: bold; }
    CompletionMenu > .completion-menu--detail { color: $text-muted; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "completion-menu--highlight",
        "completion-menu--match",
        "completion-menu--detail",
    }

    VISIBLE_ROWS = 8

    items: reactive[tuple[CompletionItem, ...]] = reactive((), always_update=True)
    index: reactive[int] = reactive(0)
    #: Shown instead of items ("Listing project files…", "No file matches").
    message: reactive[str] = reactive("")
    #: What the list is of, shown at its end ("commands", "files"), with the count when it scrolls.
    title: reactive[str] = reactive("")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def selected(self) -> CompletionItem | None:
        if not self.is_open or not self.items:
            return None
        return self.items[self.index]

    def show(self, items: Sequence[CompletionItem], *, title: str = "", message: str = "") -> None:
        """Open (or refresh) the menu; the highlight goes back to the first item."""
        rows = self._rows()
        self.items = tuple(items)
        self.index = 0
        self.title = title
        self.message = message if not items else ""
        self.set_class(bool(items) or bool(message), "-open")
        if self._rows() != rows:
            # the height follows the rows: opened on one "Listing…" line, the menu grows to the
            # files when they come (a layout pass only then, not at every key)
            self.refresh(layout=True)

    def close(self) -> None:
        if not self.is_open and not self.items and not self.message:
            return  # closed already: called at nearly every key, it must cost nothing
        self.remove_class("-open")
        self.items = ()
        self.message = ""

    def _rows(self) -> int:
        return min(len(self.items), self.VISIBLE_ROWS) + 1 if self.items else int(bool(self.message))

    def move(self, step: int) -> None:
        """Move the highlight by ``step``, wrapping around at either end."""
        if self.items:
            self.index = (self.index + step) % len(self.items)

    def render(self) -> Text:
        if not self.items:
            return Text(self.message, style=self.get_component_rich_style("completion-menu--detail"))
        first = min(max(0, self.index - self.VISIBLE_ROWS // 2), max(0, len(self.items) - self.VISIBLE_ROWS))
        shown = self.items[first : first + self.VISIBLE_ROWS]
        label_width = min(32, max(len(item.label) + len(_short_hint(item.hint)) for item in shown))
        lines = [
            self._row(item, first + offset == self.index, label_width) for offset, item in enumerate(shown)
        ]
        if len(self.items) > len(shown) or self.title:
            count = f"{self.index + 1} of {len(self.items)}" if len(self.items) > len(shown) else ""
            footer = " · ".join(part for part in (self.title, count) if part)
            lines.append(Text(footer, style=self.get_component_rich_style("completion-menu--detail")))
        text = Text("\n").join(lines)
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text

    def _row(self, item: CompletionItem, highlighted: bool, label_width: int) -> Text:
        match = self.get_component_rich_style("completion-menu--match", partial=True)
        detail = self.get_component_rich_style("completion-menu--detail", partial=True)
        label, highlights = _fit(item.label, item.highlights, max(8, self.size.width - 2))
        row = Text(label)
        for position in highlights:
            row.stylize(match, position, position + 1)
        if item.hint:
            row.append(_short_hint(item.hint), style=detail)
        if item.detail:
            row.pad_right(max(0, label_width - row.cell_len))
            row.append("  " + item.detail, style=detail)
        if highlighted:  # over the match and detail colours, keeping the matches underlined
            row.stylize(self.get_component_rich_style("completion-menu--highlight", partial=True))
            for position in highlights:
                row.stylize("underline", position, position + 1)
        return row


def _short_hint(hint: str, limit: int = 18) -> str:
    """`` [off|minimal|low|medium|…`` rather than a hint that pushes the descriptions aside."""
    if not hint:
        return ""
    return " " + (hint if len(hint) <= limit else hint[: limit - 1] + "…")


def _fit(label: str, highlights: tuple[int, ...], width: int) -> tuple[str, tuple[int, ...]]:
    """Cut a long label from the left (a path's file name is at its end), moving the highlights."""
    if len(label) <= width:
        return label, highlights
    cut = len(label) - width + 1
    return "…" + label[cut:], tuple(position - cut + 1 for position in highlights if position >= cut)
