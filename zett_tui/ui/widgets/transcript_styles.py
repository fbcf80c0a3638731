"""How the transcript's blocks look: their CSS component classes, and the styles they render with.

The ``transcript--*`` component classes (`BLOCK_COMPONENT_CLASSES`, their rules in `BLOCK_RULES`)
are resolved into the `BlockStyles` blocks render with by `resolve_block_styles`; MarkdownView (a
plan in a dialog) takes the same three, so it reads like the answer it came from.

`TranscriptStyles` keeps them for one transcript: the `RenderContext` (those styles, the theme's
dark flag and code theme) and the widget's own base style, made again only when its CSS or the
theme changes, and the `LineStrips` built in them, emptied when either changes.
"""

from __future__ import annotations

from dataclasses import fields

from rich.style import Style
from textual.widget import Widget

from zett_tui.ui.themes import code_theme_for
from zett_tui.ui.widgets.transcript_render import (
    BACKGROUND_STYLES,
    BlockStyles,
    RenderContext,
    choose_code_theme,
    foreground_only,
)
from zett_tui.ui.widgets.transcript_strips import LineStrips

BLOCK_COMPONENT_CLASSES = frozenset(
    {
        "transcript--user",
        "transcript--user-marker",
        "transcript--label",
        "transcript--muted",
        "transcript--reasoning",
        "transcript--heading",
        "transcript--link",
        "transcript--inline-code",
        "transcript--code-block",
        "transcript--quote",
        "transcript--bullet",
        "transcript--table-border",
        "transcript--table-header",
        "transcript--tool-name",
        "transcript--tool-arg",
        "transcript--tool-output",
        "transcript--state-running",
        "transcript--state-done",
        "transcript--state-failed",
        "transcript--state-cancelled",
        "transcript--notice-info",
        "transcript--notice-warning",
        "transcript--notice-error",
        "transcript--notice-decision",
        "transcript--selected",
        "transcript--new-output",
        "transcript--find-match",
        "transcript--find-current",
    }
)

#: The component classes' rules, nested in a widget's own rule (``& >``), in theme variables only.
BLOCK_RULES = """
        & > .transcript--user { background: $primary 12%; color: $text; }
        & > .transcript--user-marker { color: $primary; }
        & > .transcript--label { color: $text-muted; }
        & > .transcript--muted { color: $text-muted; }
        & > .transcript--reasoning { color: $text-muted; text-style: italic; }
        & > .transcript--heading { color: $text-accent; text-style: bold; }
        & > .transcript--link { color: $text-primary; text-style: underline; }
        & > .transcript--inline-code { color: $text-accent; background: $foreground 8%; }
        & > .transcript--code-block { background: $background; }
        & > .transcript--quote { color: $text-muted; text-style: italic; }
        & > .transcript--bullet { color: $text-accent; }
        & > .transcript--table-border { color: $text-muted; }
        & > .transcript--table-header { color: $text; text-style: bold; }
        & > .transcript--tool-name { color: $text; text-style: bold; }
        & > .transcript--tool-arg { color: $text-muted; }
        & > .transcript--tool-output { color: $text; }
        & > .transcript--state-running { color: $text-warning; }
        & > .transcript--state-done { color: $text-success; }
        & > .transcript--state-failed { color: $text-error; }
        & > .transcript--state-cancelled { color: $text-warning; }
        & > .transcript--notice-info { color: $text-muted; }
        & > .transcript--notice-warning { color: $text-warning; }
        & > .transcript--notice-error { color: $text-error; }
        & > .transcript--notice-decision { color: $text-accent; }
        & > .transcript--selected { background: $accent 15%; }
        & > .transcript--new-output { background: $accent 40%; color: $text; text-style: bold; }
        & > .transcript--find-match { background: $warning 35%; }
        & > .transcript--find-current { background: $warning; color: $background; text-style: bold; }
"""


def resolve_block_styles(widget: Widget) -> BlockStyles:
    """The rich styles of the `transcript--*` component classes, as `widget` resolves them."""
    if not widget.is_attached:
        return BlockStyles.plain()
    values: dict[str, Style] = {}
    for field_name in (field.name for field in fields(BlockStyles)):
        style = widget.get_component_rich_style(f"transcript--{field_name.replace('_', '-')}")
        values[field_name] = style if field_name in BACKGROUND_STYLES else foreground_only(style)
    return BlockStyles(**values)


class TranscriptStyles:
    """The styles one transcript renders its blocks and draws its rows with."""

    def __init__(self, widget: Widget) -> None:
        self._widget = widget
        self._ctx: RenderContext | None = None
        self._ctx_stale = True
        self._epoch = 0
        self._base: Style | None = None
        #: The lines recently on screen as strips in these styles (emptied when they change).
        self.strips = LineStrips(lambda: self.context().style_table)

    def context(self) -> RenderContext:
        """What blocks render with. Made again, and the widget repainted, when the CSS or the theme
        changed what it holds."""
        if self._ctx is None or self._ctx_stale:
            self._ctx_stale = False
            widget = self._widget
            styles = resolve_block_styles(widget)
            theme = widget.app.current_theme if widget.is_attached else None
            dark = theme.dark if theme is not None else True
            code_theme = choose_code_theme(dark, code_theme_for(theme) if theme is not None else None)
            if self._ctx is None or self._ctx.styles != styles or code_theme != self._ctx.code_theme_name:
                self._epoch += 1
                self._ctx = RenderContext(styles, dark=dark, epoch=self._epoch, code_theme=code_theme)
                self.strips.forget()
                widget.refresh()
        return self._ctx

    def base(self) -> Style:
        """The widget's own style (background), cached until the styles change."""
        if self._base is None:
            self._base = self._widget.rich_style
        return self._base

    def changed(self) -> None:
        """The widget's styles changed (its CSS, the theme): resolve them again when next asked,
        and once they have settled. A theme can change the code style alone (its ``code-theme``)
        with this widget's CSS the same, and then nothing else repaints it: its code blocks stayed
        in the old style until something else was drawn."""
        self._ctx_stale = True
        widget = self._widget
        base = widget.rich_style if widget.is_attached else None
        if base != self._base:
            self._base = base
            self.strips.forget()
        if widget.is_attached:
            widget.call_after_refresh(self._settled)

    def _settled(self) -> None:
        if self._ctx_stale:
            self.context()  # repaints the widget when what it renders with changed
