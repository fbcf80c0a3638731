"""A unified diff shown the way people read one: old and new line numbers, added lines green,
removed lines red, each hunk introduced by where it is. Colours come from the theme."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget

from zett_tui.ui.modals.shown_text import shown

#: Longer diffs are cut here; the rest is summarised in one line (the tool still gets all of it).
MAX_SHOWN_LINES = 3000
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


@dataclass(frozen=True, slots=True)
class DiffLine:
    kind: str  # "hunk" | "context" | "added" | "removed" | "note"
    text: str
    old: int | None = None
    new: int | None = None


def parse_unified_diff(diff: str) -> list[DiffLine]:
    """The lines of a unified diff with their old/new line numbers; file headers are dropped."""
    lines: list[DiffLine] = []
    old = new = 0
    in_hunk = False
    # only "\n" ends a line: ``splitlines`` would also end one at a form feed, a "\r" or U+2028 in a
    # file's content, and what follows it would show as an unchanged line
    for raw in diff.removesuffix("\n").split("\n") if diff else []:
        raw = raw.removesuffix("\r")  # a CRLF file's line end hides nothing
        match = _HUNK.match(raw)
        if match:
            old, new = int(match.group(1)), int(match.group(3))
            in_hunk = True
            where = f"line {new}" if new else "start of file"
            lines.append(DiffLine("hunk", f"{where}{match.group(5).rstrip()}"))
            continue
        if not in_hunk:
            continue  # the ---/+++ header
        if raw.startswith("+"):
            lines.append(DiffLine("added", raw[1:], new=new))
            new += 1
        elif raw.startswith("-"):
            lines.append(DiffLine("removed", raw[1:], old=old))
            old += 1
        elif raw.startswith("\\"):
            lines.append(DiffLine("note", raw[1:].strip()))
        else:
            lines.append(DiffLine("context", raw[1:] if raw.startswith(" ") else raw, old=old, new=new))
            old += 1
            new += 1
    return lines


class DiffView(Widget):
    """Renders one unified diff; tabs are shown as four spaces, hidden characters as escapes
    (a file's ``\x1b[2K\x1b[1A`` cannot erase rows of the diff it is in)."""

    SHOWS_CONTROLS_VISIBLY = True

    DEFAULT_CSS = """
    DiffView {
        height: auto;
        width: 100%;
    }
    DiffView > .diff--added { background: $success 18%; color: $text; }
    DiffView > .diff--removed { background: $error 18%; color: $text; }
    DiffView > .diff--added-sign { color: $text-success; text-style: bold; }
    DiffView > .diff--removed-sign { color: $text-error; text-style: bold; }
    DiffView > .diff--gutter { color: $text-muted; }
    DiffView > .diff--hunk { color: $text-accent; text-style: bold; }
    DiffView > .diff--note { color: $text-muted; text-style: italic; }
    """

    COMPONENT_CLASSES = {
        "diff--added",
        "diff--removed",
        "diff--added-sign",
        "diff--removed-sign",
        "diff--gutter",
        "diff--hunk",
        "diff--note",
    }

    def __init__(self, diff: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines = parse_unified_diff(diff)

    def render(self) -> Text:
        style = self.get_component_rich_style
        added, removed = style("diff--added"), style("diff--removed")
        signs = {"added": style("diff--added-sign"), "removed": style("diff--removed-sign")}
        gutter, hunk, note = style("diff--gutter"), style("diff--hunk"), style("diff--note")
        numbers = [n for line in self.lines for n in (line.old, line.new) if n is not None]
        width = len(str(max(numbers, default=1)))
        out = Text(no_wrap=False, overflow="fold")
        columns = max(1, self.size.width)
        drawn = self.lines[:MAX_SHOWN_LINES]
        # A new or deleted file is one hunk from line 1: its header says nothing the title does not.
        whole_file = sum(line.kind == "hunk" for line in self.lines) == 1 and not any(
            line.kind == "context" for line in self.lines
        )
        for index, line in enumerate(line for line in drawn if not (whole_file and line.kind == "hunk")):
            if index:
                out.append("\n")
            if line.kind == "hunk":
                out.append_text(shown(f"{'':>{width}} {'':>{width}} ⋯ {line.text}", hunk))
                continue
            if line.kind == "note":
                out.append_text(shown(f"{'':>{width}} {'':>{width}}   {line.text}", note))
                continue
            old = "" if line.old is None or line.kind == "added" else str(line.old)
            new = "" if line.new is None or line.kind == "removed" else str(line.new)
            out.append(f"{old:>{width}} {new:>{width}} ", style=gutter)
            text = shown(line.text.replace("\t", "    "))
            if line.kind in ("added", "removed"):
                background = added if line.kind == "added" else removed
                sign = "+ " if line.kind == "added" else "- "
                out.append(sign, style=background + signs[line.kind])
                text.append(" " * _padding(2 * width + 4 + text.cell_len, columns))
                text.stylize_before(background)
                out.append_text(text)
            else:
                out.append("  ")
                out.append_text(text)
        hidden = len(self.lines) - len(drawn)
        if hidden > 0:
            out.append(f"\n… {hidden} more diff lines not shown", style=note)
        if not self.lines:
            out.append("(no changes to show)", style=note)
        return out


def _padding(length: int, columns: int) -> int:
    """Spaces that carry a line's background to the right edge; none for a line that wraps."""
    return columns - length if length < columns else 0
