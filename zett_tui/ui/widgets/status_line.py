"""One line at the bottom: model, session, last turn's tokens, and what the agent is doing."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


def format_tokens(count: int) -> str:
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


class StatusLine(Widget):
    """Shows state only; every field is a reactive set by the chat screen."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    StatusLine > .status-line--busy { color: $accent; text-style: bold; }
    StatusLine > .status-line--demo { color: $warning; }
    StatusLine > .status-line--warning { color: $warning; text-style: bold; }
    """

    COMPONENT_CLASSES = {"status-line--busy", "status-line--demo", "status-line--warning"}

    model_label: reactive[str] = reactive("")
    is_demo: reactive[bool] = reactive(False)
    session_id: reactive[str] = reactive("")
    activity: reactive[str] = reactive("starting…")
    input_tokens: reactive[int] = reactive(0)
    output_tokens: reactive[int] = reactive(0)
    queued: reactive[int] = reactive(0)
    plan_mode: reactive[bool] = reactive(False)
    hint: reactive[str] = reactive("")

    def render(self) -> Text:
        busy = self.get_component_rich_style("status-line--busy", partial=True)
        demo = self.get_component_rich_style("status-line--demo", partial=True)
        warning = self.get_component_rich_style("status-line--warning", partial=True)
        line = Text(no_wrap=True, overflow="ellipsis")
        if self.hint:
            line.append(self.hint, style=warning)
            return line
        if self.activity != "idle":
            line.append(f"● {self.activity}", style=busy)
        else:
            line.append("○ idle")
        if self.queued:
            line.append(f"  ({self.queued} queued)")
        if self.plan_mode:
            line.append("  ⏸ plan mode", style=warning)
        line.append("  │  ")
        if self.is_demo:
            line.append("demo model (offline)", style=demo)
        else:
            line.append(self.model_label)
        if self.session_id:
            line.append(f"  │  session {self.session_id[-8:]}")
        if self.input_tokens or self.output_tokens:
            line.append(
                f"  │  last turn ↑{format_tokens(self.input_tokens)} ↓{format_tokens(self.output_tokens)} tokens"
            )
        return line
