"""A tool call's row in the transcript: icon, name, key argument, state and duration on one line,
the last lines of a running command under it, why a failed or refused call failed, and its output
when expanded.

The text it shows comes cleaned from ``tool_text.py``; the base ``Block`` and the row helpers are
``transcript_blocks.py``'s.
"""

from __future__ import annotations

import re
from typing import Literal

from rich.cells import cell_len
from rich.text import Text

from zett_tui.core.inert_text import make_inert, make_output_visible, make_visible
from zett_tui.ui.widgets.tool_text import ESCAPE_STYLE, OutputPreview, one_line_visible
from zett_tui.ui.widgets.transcript_blocks import Block, _known, _line, _prefixed
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

ToolState = Literal["pending", "waiting", "running", "done", "failed", "refused", "declined", "cancelled"]
_TOOL_STATES: tuple[ToolState, ...] = (
    "pending",
    "waiting",
    "running",
    "done",
    "failed",
    "refused",
    "declined",
    "cancelled",
)


def format_duration(seconds: float) -> str:
    """0.4s, 12s, 2m05s."""
    if seconds < 10:
        return f"{seconds:.1f}s"
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"


_TOOL_ICONS: dict[str, str] = {
    "pending": "○",
    "waiting": "?",
    "running": "●",
    "done": "✓",
    "failed": "✗",
    "refused": "⊘",
    "declined": "⊘",
    "cancelled": "⏹",
}
_TOOL_LABELS: dict[str, str] = {
    "pending": "waiting",
    "waiting": "waiting for you",
    "running": "running",
    "done": "done",
    "failed": "failed",
    "refused": "refused",
    "declined": "declined",
    "cancelled": "cancelled",
}
LIVE_LINES_SHOWN = 4
"""Lines of a running command's output shown under its row (the newest last)."""
WHY_LINES_SHOWN = 4
"""Lines of a failed call's output (its last ones: where the error is) or a refused call's reason
(its first ones) that stay under the collapsed row, so why it failed does not vanish with it."""
RAW_OUTPUT_LIMIT = 256 * 1024
"""Tool outputs up to this size are kept verbatim for copying; longer ones keep their preview only."""
KEPT_OUTPUT_LABEL = "full output:"
"""Starts the line of an expanded tool row that says where a truncated output is kept in full."""
_KEPT_STREAMS = re.compile(r"\n?\.\.\. \[output truncated; full streams kept at (.+?) and (.+?)\]\s*\Z")
"""zett-agent's `bash` ends a truncated output so (`extensions/tool_output.py` moves the files)."""
_KEPT_SEARCH_CHARS = 8192


class ToolBlock(Block):
    """A one-line tool row (icon, name, key argument, state, duration); expands to its output."""

    expandable = True
    compact = True

    def __init__(self, call_id: str, name: str, key_arg: str = "") -> None:
        super().__init__()
        self.call_id = call_id
        # Shown as the approval dialogs show them: a hidden part of a command is written out, and
        # drawn reversed, so a real ESC and the four characters ``\x1b`` typed in it differ.
        self.name = make_visible(name).replace("\n", " ").replace("\t", " ")
        self.key_arg, self._key_arg_escapes = one_line_visible(key_arg)
        self.state: str = "pending"
        self.duration_s: float | None = None
        self._preview: OutputPreview | None = None
        #: How much of the kept raw output the preview shows (None: the preview is all there is).
        self._preview_end: int | None = None
        self.kept_output: str | None = None
        """Where the full stdout of a truncated shell command is kept (None: the output is complete)."""
        self.kept_stderr: str | None = None
        self._raw_output: str | None = None
        #: How long it has been running so far (waits for the user left out), while it runs.
        self.elapsed_s: float | None = None
        #: The last lines a running command wrote, shown under the row until it ends.
        self.live_lines: tuple[str, ...] = ()
        #: What came of it in a few words, after the key argument (``ask_user``: the answer).
        self.outcome = ""
        #: Under a failed or refused row that is collapsed: why (``WHY_LINES_SHOWN``).
        self.why_lines: tuple[str, ...] = ()

    @property
    def streaming(self) -> bool:
        return self.state in ("pending", "waiting", "running")

    def set_running(self) -> None:
        if self.state in ("pending", "waiting"):
            self.state = "running"
            self._changed()

    def set_waiting(self) -> None:
        """A dialog asks the user about this call: it waits for them, it does not run."""
        if self.state in ("pending", "running"):
            self.state = "waiting"
            self._changed()

    def show_progress(self, elapsed_s: float | None = None, lines: tuple[str, ...] | None = None) -> None:
        """While it runs: the time so far, and (a shell command) its last lines of output."""
        if elapsed_s is not None:
            self.elapsed_s = elapsed_s
        if lines is not None:
            self.live_lines = tuple(make_output_visible(line) for line in lines[-LIVE_LINES_SHOWN:])
        self._changed()

    def set_outcome(self, text: str) -> None:
        self.outcome = make_inert(" ".join(text.split()))
        self._changed()

    def finish(self, state: str, output: str = "", duration_s: float | None = None) -> None:
        """Record the final state ("done", "failed", "refused", "declined" or "cancelled"), the
        output and the duration."""
        self.state = _known(state, _TOOL_STATES, "failed")
        self.duration_s = duration_s
        self.elapsed_s = None
        self.live_lines = ()
        start = max(0, len(output) - _KEPT_SEARCH_CHARS)
        kept = _KEPT_STREAMS.search(output, start)
        if kept is not None:
            self.kept_output, self.kept_stderr = (make_inert(path) for path in kept.groups())
        shown = kept.start() if kept is not None else len(output)
        preview = OutputPreview(output[:shown])
        self._raw_output = output if len(output) <= RAW_OUTPUT_LIMIT else None
        self._preview_end = shown if self._raw_output is not None else None
        self.why_lines = _why_lines(self.state, preview)
        # Kept only when it is all there is of the output; else made again when the row is drawn
        # (a resumed session's rows far above the screen hold their output once).
        self._preview = preview if self._preview_end is None else None
        self._changed()

    @property
    def preview(self) -> OutputPreview | None:
        """The bounded view of the output (None before it is known). Made again from the raw output
        when that is kept, once ``drop_render_cache`` forgot it: a row far from the screen then
        holds its output once, not also as preview lines."""
        if self._preview is None and self._preview_end is not None and self._raw_output is not None:
            self._preview = OutputPreview(self._raw_output[: self._preview_end])
        return self._preview

    def drop_render_cache(self) -> None:
        super().drop_render_cache()
        if self._preview_end is not None:
            self._preview = None

    def _preview_text(self) -> str:
        """The preview's text, without keeping a preview made for it: find and copy read every
        row, and only a row that is drawn should hold its output twice."""
        preview = self._preview
        if preview is None and self._preview_end is not None and self._raw_output is not None:
            preview = OutputPreview(self._raw_output[: self._preview_end])
        return preview.text() if preview is not None else ""

    def plain_text(self) -> str:
        if self._raw_output is not None:
            return self._raw_output
        return self._preview_text()

    def search_text(self) -> str:
        row = f"{self.name}  {self.key_arg}" if self.key_arg else self.name
        return f"{row} {_TOOL_LABELS[self.state]}\n{self._preview_text()}"

    def _estimate(self, width: int) -> int:
        return 1 + len(self.live_lines) + len(self.why_lines)

    def _row(self, width: int, ctx: RenderContext) -> Line:
        styles = ctx.styles
        state_style = {
            "pending": styles.muted,
            "waiting": styles.notice_warning,
            "running": styles.state_running,
            "done": styles.state_done,
            "failed": styles.state_failed,
            "refused": styles.state_failed,
            "declined": styles.state_cancelled,
            "cancelled": styles.state_cancelled,
        }[self.state]
        right = Text(_TOOL_LABELS[self.state], style=state_style)
        if self.duration_s is not None:
            right.append(f" {format_duration(self.duration_s)}", style=styles.muted)
        elif self.state == "running" and self.elapsed_s is not None and self.elapsed_s >= 1:
            right.append(f" {int(self.elapsed_s)}s", style=styles.muted)
        row = Text.assemble(
            ("▾ " if self.expanded else "▸ ", styles.muted),
            (f"{_TOOL_ICONS[self.state]} ", state_style),
            (self.name, styles.tool_name),
        )
        if cell_len(row.plain) + 2 + right.cell_len > width:
            right = Text()
        if self.key_arg:
            argument = Text(f"  {self.key_arg}", style=styles.tool_arg)
            for start, end in self._key_arg_escapes:
                argument.stylize(ESCAPE_STYLE, start + 2, end + 2)
            row.append_text(argument)
        if self.outcome:
            row.append(f"  → {self.outcome}", style=styles.tool_name)
        room = width - right.cell_len - (1 if right.cell_len else 0)
        if row.cell_len > room:
            row.truncate(max(1, room), overflow="ellipsis")
        row.append(" " * max(0, width - row.cell_len - right.cell_len))
        row.append_text(right)
        return _line(row, width, ctx)

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        lines = [self._row(width, ctx)]
        styles = ctx.styles
        gutter = ("  │ ", ctx.style_id(styles.muted)) if width > 8 else ("", 0)
        if self.live_lines and not self.expanded:
            inner = max(1, width - len(gutter[0]))
            live = [_line(Text(line, style=styles.tool_output), inner, ctx) for line in self.live_lines]
            lines.extend(_prefixed(live, gutter, gutter))
        if self.why_lines and not self.expanded:
            inner = max(1, width - len(gutter[0]))
            why = [_line(Text(line, style=styles.tool_output), inner, ctx) for line in self.why_lines]
            lines.extend(_prefixed(why, gutter, gutter))
        if not self.expanded:
            return lines
        inner = max(1, width - len(gutter[0]))
        if self.preview is None and self.live_lines:
            body = [_line(Text(line, style=styles.tool_output), inner, ctx) for line in self.live_lines]
        elif self.preview is None:
            body = ctx.render_text(Text("(no output yet)", style=styles.muted), inner)
        elif self.preview.total_lines == 0 or not (self.preview.head or self.preview.tail):
            body = ctx.render_text(Text("(no output)", style=styles.muted), inner)
        else:
            preview = self.preview
            body = ctx.render_text(Text("\n".join(preview.head), style=styles.tool_output), inner)
            if preview.hidden_lines:
                marker = Text(f"… {preview.hidden_lines} lines hidden …", style=styles.muted)
                body.extend(ctx.render_text(marker, inner))
                body.extend(ctx.render_text(Text("\n".join(preview.tail), style=styles.tool_output), inner))
        if self.kept_output is not None:
            kept = Text(f"{KEPT_OUTPUT_LABEL} {self.kept_output}", style=styles.muted)
            if self.kept_stderr:
                kept.append(f"  (stderr: {self.kept_stderr})")
            body.extend(ctx.render_text(kept, inner))
        lines.extend(_prefixed(body, gutter, gutter))
        return lines


def _why_lines(state: str, preview: OutputPreview) -> tuple[str, ...]:
    """What stays under a collapsed failed row (its output's last lines) or refused row (the
    reason: its first lines); nothing for other states or an empty output."""
    if state == "failed":
        lines = [line for line in (preview.tail or preview.head) if line.strip()][-WHY_LINES_SHOWN:]
    elif state == "refused":
        lines = [line for line in preview.head if line.strip()][:WHY_LINES_SHOWN]
    else:
        return ()
    return tuple(lines)
