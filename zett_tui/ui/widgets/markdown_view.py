"""Markdown shown the way the transcript shows an answer: the same renderer, the same theme styles.

For Markdown outside the transcript (the plan in Plan Mode's dialogs), so that a plan reads the same
in the dialog as in the answer it came from. One widget, rendered by rich at its width (cached per
width and theme); it grows to its content's height, and its container scrolls.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from textual.widget import Widget

from zett_tui.core.inert_text import make_inert, make_visible
from zett_tui.ui.themes import code_theme_for
from zett_tui.ui.widgets.transcript_markdown import MarkdownStream
from zett_tui.ui.widgets.transcript_render import Line, RenderContext, choose_code_theme
from zett_tui.ui.widgets.transcript_styles import BLOCK_COMPONENT_CLASSES, BLOCK_RULES, resolve_block_styles


class MarkdownView(Widget):
    """Markdown text, rendered as a finished transcript answer."""

    #: The transcript's component classes and rules (its colours for headings, code, links...), so
    #: the two always look alike, whatever a theme or a later change does to them.
    COMPONENT_CLASSES: ClassVar[set[str]] = set(BLOCK_COMPONENT_CLASSES)
    DEFAULT_CSS = f"""
    MarkdownView {{
        height: auto;
{BLOCK_RULES}
    }}
    """

    def __init__(
        self, markdown: str, *, id: str | None = None, classes: str | None = None, show_controls: bool = False
    ) -> None:
        super().__init__(id=id, classes=classes)
        #: Hidden characters are written out as escapes (in a dialog: ``shown_text``), not dropped.
        self.SHOWS_CONTROLS_VISIBLY = show_controls
        self._document = self._make_document(markdown)
        self._ctx: RenderContext | None = None
        self._epoch = 0
        """Counts the render contexts made: lines cached for an older one hold its style ids."""

    def _make_document(self, markdown: str) -> MarkdownStream:
        document = MarkdownStream()
        document.append(make_visible(markdown) if self.SHOWS_CONTROLS_VISIBLY else make_inert(markdown))
        document.close()
        return document

    @property
    def source(self) -> str:
        return self._document.source

    def update(self, markdown: str) -> None:
        """Show other Markdown."""
        self._document = self._make_document(markdown)
        self.refresh(layout=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._ctx = None
        self.refresh()  # a theme can change the code style alone, with this widget's CSS the same

    def render_context(self) -> RenderContext:
        if self._ctx is None:
            theme = self.app.current_theme
            code_theme = choose_code_theme(theme.dark, code_theme_for(theme))
            self._epoch += 1
            styles = resolve_block_styles(self)
            self._ctx = RenderContext(styles, dark=theme.dark, epoch=self._epoch, code_theme=code_theme)
        return self._ctx

    def lines(self, width: int) -> list[Line]:
        """The rendered lines at `width` (cached)."""
        return self._document.render(max(1, width), self.render_context())

    def render(self) -> _Rendered:
        return _Rendered(self)


class _Rendered:
    """The view's lines as a rich renderable, at whatever width Textual gives it."""

    def __init__(self, view: MarkdownView) -> None:
        self.view = view

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        ctx = self.view.render_context()
        for line in self.view.lines(options.max_width):
            yield from ctx.unpack(line)
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(options.max_width, options.max_width)
