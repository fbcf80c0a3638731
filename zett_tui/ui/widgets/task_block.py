"""A ``task`` call's row with its subagent under it (``runtime.subagents``).

While the subagent works, the row says its kind, its job, its model and its tokens so far, and
its own tool rows are listed under it as they run (the last ``ROWS_SHOWN``, with a count of the
earlier ones), then the last line of what it is writing now. When it is done the block is one line like any tool row; expanded (the usual
keys), it lists every row the subagent ran and its report. Find (Ctrl+F) searches all of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from zett_tui.core.inert_text import make_inert
from zett_tui.ui.widgets.tool_block import _TOOL_ICONS, ToolBlock
from zett_tui.ui.widgets.transcript_blocks import _known, _line, _prefixed
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

#: Rows of a running subagent shown under its task row (the earlier ones are counted).
ROWS_SHOWN = 6
#: How much of the subagent's latest text is kept to show its last line (the rest is its report).
_SAID_CHARS = 600
_STATES = ("pending", "waiting", "running", "done", "failed", "refused", "declined", "cancelled")


@dataclass
class ChildRow:
    """One tool call of the subagent."""

    call_id: str
    name: str
    key_arg: str
    state: str = "running"

    def text(self) -> str:
        return f"{_TOOL_ICONS.get(self.state, '●')} {self.name}  {self.key_arg}".rstrip()


def format_tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


class TaskBlock(ToolBlock):
    """The ``task`` row, its subagent's rows under it while it runs, and its report when expanded."""

    def __init__(self, call_id: str, name: str, key_arg: str = "", agent_type: str = "general") -> None:
        super().__init__(call_id, name, key_arg)
        self.description = make_inert(" ".join(key_arg.split()))
        self.agent_type = make_inert(agent_type)
        self.model = ""
        self.rows: list[ChildRow] = []
        self.tokens = 0
        self.child_status = ""
        #: The end of what the subagent wrote last (its text streams; only its last line shows).
        self.said = ""
        self._retitle()

    # -- what the presenter (or the resumed transcript) tells it ---------------------------------

    def child_started(self, agent_type: str, model: str) -> None:
        self.agent_type, self.model = make_inert(agent_type), make_inert(model)
        self._retitle()

    def child_tools_started(self, calls: list[tuple[str, str, str]]) -> None:
        for call_id, name, key_arg in calls:
            self.rows.append(ChildRow(call_id, make_inert(name), make_inert(" ".join(key_arg.split()))))
        self._retitle()

    def child_tool_finished(self, call_id: str, state: str) -> None:
        for row in reversed(self.rows):
            if row.call_id == call_id and row.state in ("running", "waiting", "pending"):
                row.state = _known(state if state != "skipped" else "cancelled", _STATES, "failed")
                break
        self._changed()

    def child_waiting(self, call_id: str, waiting: bool) -> bool:
        """The subagent's call ``call_id`` waits for the user (or runs again); False: not its call."""
        for row in reversed(self.rows):
            if row.call_id == call_id and row.state in ("running", "waiting"):
                row.state = "waiting" if waiting else "running"
                self._changed()
                return True
        return False

    def child_text(self, text: str) -> None:
        """More of what the subagent writes; redrawn with the block's next redraw."""
        self.said = (self.said + text)[-_SAID_CHARS:]

    def child_step(self) -> None:
        """The subagent asks its model again: what it wrote before is done with."""
        self.said = ""

    @property
    def said_line(self) -> str:
        """The last line of what the subagent is writing, as shown under its rows."""
        for line in reversed(self.said.splitlines()):
            if line.strip():
                return make_inert(" ".join(line.split()))
        return ""

    def child_tokens(self, count: int) -> None:
        self.tokens += count
        self._retitle()

    def child_finished(self, status: str, tokens: int | None = None) -> None:
        self.child_status = status
        if tokens is not None:
            self.tokens = tokens
        for row in self.rows:
            if row.state in ("running", "waiting", "pending"):
                row.state = "cancelled"
        self.said = ""
        self._retitle()

    # -- showing it ------------------------------------------------------------------------------

    def _retitle(self) -> None:
        parts = [self.agent_type, self.description]
        if self.model and self.streaming:
            parts.append(self.model)
        if self.rows:
            parts.append(f"{len(self.rows)} tool{'s' if len(self.rows) != 1 else ''}")
        if self.tokens:
            parts.append(f"{format_tokens(self.tokens)} tokens")
        self.key_arg = " · ".join(part for part in parts if part)
        self._changed()

    def finish(self, state: str, output: str = "", duration_s: float | None = None) -> None:
        super().finish(state, output, duration_s)
        self._retitle()

    def search_text(self) -> str:
        """As it shows expanded: its row, the subagent's rows, then its report."""
        head, _, report = super().search_text().partition("\n")
        rows = [row.text() for row in self.rows]
        return "\n".join([head, *rows, report])

    def _estimate(self, width: int) -> int:
        if self.streaming:
            said = 1 if self.said_line else 0
            return 1 + min(len(self.rows), ROWS_SHOWN) + (1 if len(self.rows) > ROWS_SHOWN else 0) + said
        return 1

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        lines = super()._render(width, ctx)
        said = self.said_line if self.streaming else ""
        if not (self.streaming or self.expanded) or not (self.rows or said):
            return lines
        styles = ctx.styles
        gutter = ("  │ ", ctx.style_id(styles.muted)) if width > 8 else ("", 0)
        inner = max(1, width - len(gutter[0]))
        shown = self.rows if self.expanded else self.rows[-ROWS_SHOWN:]
        rows: list[Line] = []
        if len(shown) < len(self.rows):
            earlier = Text(f"… {len(self.rows) - len(shown)} earlier", style=styles.muted)
            rows.append(_line(earlier, inner, ctx))
        for row in shown:
            style = styles.state_running if row.state == "running" else styles.muted
            text = Text.assemble((f"{_TOOL_ICONS.get(row.state, '●')} ", style), (row.name, styles.tool_name))
            if row.key_arg:
                text.append(f"  {row.key_arg}", style=styles.tool_arg)
            rows.append(_line(text, inner, ctx))
        if said:  # its latest words: the end of the line when it is too long
            tail = said if len(said) + 2 <= inner else "…" + said[-max(1, inner - 3) :]
            rows.append(_line(Text(f"✎ {tail}", style=styles.muted), inner, ctx))
        return [lines[0], *_prefixed(rows, gutter, gutter), *lines[1:]]
