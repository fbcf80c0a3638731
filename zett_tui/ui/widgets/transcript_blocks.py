"""The entries of a transcript: user prompts, answers, reasoning and notices, and the base `Block`
they (and the tool rows of ``tool_block.py``) share.

A block knows its source text and renders itself to lines for a width; the render is cached per
(width, version, expanded, style epoch). Call the block's mutators (`append`, `finish`, ...) and then
`Transcript.refresh_block(block)`. Blocks never touch the screen themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from zett_tui.core.inert_text import make_inert
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

if TYPE_CHECKING:
    from zett_tui.ui.widgets.transcript_markdown import MarkdownStream

AnswerStatus = Literal["completed", "cancelled", "failed"]
NoticeLevel = Literal["info", "warning", "error", "decision"]
_ANSWER_STATUSES: tuple[AnswerStatus, ...] = ("completed", "cancelled", "failed")
_NOTICE_LEVELS: tuple[NoticeLevel, ...] = ("info", "warning", "error", "decision")


def _known(value: str, allowed: tuple[str, ...], fallback: str) -> str:
    """`value` if it is one of `allowed`, else `fallback` (callers pass runtime strings)."""
    return value if value in allowed else fallback


class Block:
    """Base class: a render cache keyed by (width, version, expanded, style epoch).

    Subclasses implement `_render` and `plain_text`, and call `_changed()` when their content changes.
    """

    expandable: ClassVar[bool] = False
    """Can the user expand/collapse it (selection cursor, Enter, click)?"""
    compact: ClassVar[bool] = False
    """Consecutive compact blocks (tool rows, notices) are not separated by a blank line."""

    def __init__(self) -> None:
        self.version = 0
        self.expanded = False
        self.render_count = 0
        self._lines: list[Line] | None = None
        self._key: tuple[int, int, bool, int] | None = None
        self._measured: tuple[int, int, bool, int] | None = None

    def _changed(self) -> None:
        self.version += 1

    @property
    def streaming(self) -> bool:
        """Still receiving content (its render cache is kept even when far out of view)."""
        return False

    def render(self, width: int, ctx: RenderContext) -> list[Line]:
        """Lines of this block at `width` (cached)."""
        width = max(1, width)
        key = (width, self.version, self.expanded, ctx.epoch)
        if self._key != key or self._lines is None:
            self._lines = self._render(width, ctx)
            self._key = key
            self._measured = (width, self.version, self.expanded, len(self._lines))
            self.render_count += 1
        return self._lines

    def render_ahead(self, width: int, ctx: RenderContext, deadline: float) -> bool:
        """Do part of the next `render`'s work before it, until `deadline`; True while some is left.
        Most blocks render in one go: nothing to do ahead."""
        return False

    def measured_height(self, width: int) -> int | None:
        """Exact height at `width` if it is known for the current content, else `None`."""
        measured = self._measured
        if measured is not None and measured[:3] == (max(1, width), self.version, self.expanded):
            return measured[3]
        return None

    def estimate_height(self, width: int) -> int:
        """A cheap guess of the height at `width`, used until the block is rendered at that width."""
        measured = self._measured
        if measured is not None and measured[1:3] == (self.version, self.expanded):
            old_width, height = measured[0], measured[3]
            return max(1, round(height * min(2.0, max(0.5, old_width / max(1, width)))))
        return self._estimate(max(1, width))

    def _estimate(self, width: int) -> int:
        return max(1, sum(len(line) // width + 1 for line in self.plain_text().split("\n")))

    @property
    def has_render_cache(self) -> bool:
        return self._lines is not None

    def is_rendered(self, width: int, epoch: int) -> bool:
        """Are its lines for `width`, the current content and style epoch held (no render needed)?"""
        return self._lines is not None and self._key == (max(1, width), self.version, self.expanded, epoch)

    def drop_render_cache(self) -> None:
        """Forget the rendered lines (the height stays known); they are rebuilt when needed."""
        self._lines = None
        self._key = None

    def toggle(self) -> bool:
        """Expand or collapse (if expandable). Returns whether anything changed."""
        if not self.expandable:
            return False
        self.expanded = not self.expanded
        return True

    def plain_text(self) -> str:
        """The raw source text of the block (what a copy command should copy)."""
        raise NotImplementedError

    def search_text(self) -> str:
        """The text the block shows when expanded, line by line, without markup (what find searches)."""
        return self.plain_text()

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        raise NotImplementedError


def _line(text: Text, width: int, ctx: RenderContext) -> Line:
    """Render `text` on exactly one row (cropped, padded)."""
    segments = list(text.render(ctx.console, end=""))
    return ctx.pack(Segment.adjust_line_length(segments, width))


def _prefixed(lines: list[Line], first: tuple[str, int], rest: tuple[str, int]) -> list[Line]:
    """Lines with a gutter: `first` before the first line, `rest` before the others."""
    return [(first if index == 0 else rest, *line) for index, line in enumerate(lines)]


#: Under a prompt whose turn a conversation rewind took out of the model's context (live), and
#: after such a turn when a session is painted again.
REWOUND = "↶ Rewound: this turn is not in the model's context (/rewind can undo that)"


class UserBlock(Block):
    """The user's prompt: a coloured bar and band, so turns are easy to find when scrolling."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = make_inert(text)
        #: A conversation rewind took this turn out of the model's context (``REWOUND`` shows).
        self.rewound = False

    def set_rewound(self, rewound: bool) -> None:
        if rewound != self.rewound:
            self.rewound = rewound
            self._changed()

    def plain_text(self) -> str:
        return self.text

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        lines = user_bar(Text(self.text.rstrip("\n") or " ", style=ctx.styles.user), width, ctx)
        if self.rewound:
            lines.extend(ctx.render_text(Text(REWOUND, style=ctx.styles.muted), width))
        return lines


def user_bar(body: Text, width: int, ctx: RenderContext) -> list[Line]:
    """What the user wrote, behind the prompt's coloured bar (prompts and steering messages)."""
    styles = ctx.styles
    if width < 4:
        return ctx.render_text(body, width, styles.user)
    marker = ("▌ ", ctx.style_id(styles.user + styles.user_marker))
    return _prefixed(ctx.render_text(body, width - 2, styles.user), marker, marker)


def _markdown_stream() -> MarkdownStream:
    """markdown-it is imported at the first answer (or after the first frame), not at start-up."""
    from zett_tui.ui.widgets.transcript_markdown import MarkdownStream

    return MarkdownStream()


class AnswerBlock(Block):
    """A streamed Markdown answer. Only the open tail is re-rendered as text arrives."""

    def __init__(self, label: str | None = None) -> None:
        super().__init__()
        self.label = make_inert(label) if label else None
        self._label_line: tuple[tuple[int, int], Line] | None = None
        self._status: str | None = None
        self.document = _markdown_stream()

    @property
    def status(self) -> str | None:
        """None while streaming, then "completed", "cancelled" or "failed"."""
        return self._status

    @status.setter
    def status(self, value: str | None) -> None:
        self._status = None if value is None else _known(value, _ANSWER_STATUSES, "failed")
        if value is not None:
            self.document.close()
        self._changed()

    @property
    def streaming(self) -> bool:
        return self._status is None

    @property
    def text(self) -> str:
        return self.document.source

    def append(self, text: str) -> None:
        """Add streamed text (ignored once finished)."""
        if text and self._status is None:
            self.document.append(make_inert(text))
            self._changed()

    def finish(self, status: str = "completed") -> None:
        """The answer is complete, cancelled or failed; a cancelled or failed one is marked."""
        if self._status is None:
            self.status = status

    def render_ahead(self, width: int, ctx: RenderContext, deadline: float) -> bool:
        if self.is_rendered(width, ctx.epoch):
            return False
        return self.document.render_ahead(max(1, width), ctx, deadline)

    def plain_text(self) -> str:
        return self.document.source

    def search_text(self) -> str:
        text = self.document.display_text()
        return f"● {self.label}\n{text}" if self.label else text

    def code_blocks(self) -> list[str]:
        """Raw text of the answer's code blocks, in order."""
        return self.document.code_blocks()

    def drop_render_cache(self) -> None:
        super().drop_render_cache()
        self.document.drop_cache()

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        styles = ctx.styles
        lines: list[Line] = []
        if self.label:
            if self._label_line is None or self._label_line[0] != (width, ctx.epoch):
                label = _line(Text(f"● {self.label}", style=styles.label), width, ctx)
                self._label_line = ((width, ctx.epoch), label)
            lines.append(self._label_line[1])  # the same object each render: its row is not repainted
        lines.extend(self.document.render(width, ctx))
        if self.status == "cancelled":
            lines.append(_line(Text("⏹ cancelled", style=styles.state_cancelled), width, ctx))
        elif self.status == "failed":
            lines.append(_line(Text("✗ failed", style=styles.state_failed), width, ctx))
        return lines


class _IncrementalText:
    """Plain text that grows at the end; complete lines are wrapped once per width."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self._source = ""
        self._done_offset = 0
        self._done_lines: list[Line] = []
        self._key: tuple[int, int] | None = None

    @property
    def source(self) -> str:
        if self.parts:
            self._source += "".join(self.parts)
            self.parts.clear()
        return self._source

    def drop_cache(self) -> None:
        self._key = None
        self._done_lines = []
        self._done_offset = 0

    def render(self, width: int, ctx: RenderContext, style: Style) -> list[Line]:
        key = (width, ctx.epoch)
        if self._key != key:
            self.drop_cache()
            self._key = key
        source = self.source
        done = source.rfind("\n") + 1
        if done > self._done_offset:
            text = Text(source[self._done_offset : done - 1], style=style)
            self._done_lines.extend(ctx.render_text(text, width, style))
            self._done_offset = done
        lines = list(self._done_lines)
        if done < len(source):
            lines.extend(ctx.render_text(Text(source[done:], style=style), width, style))
        return lines


class ReasoningBlock(Block):
    """The model's reasoning: dimmed, collapsed to one line by default."""

    expandable = True
    compact = True

    def __init__(self) -> None:
        super().__init__()
        self.finished = False
        self._text = _IncrementalText()

    @property
    def streaming(self) -> bool:
        return not self.finished

    @property
    def text(self) -> str:
        return self._text.source

    @property
    def line_count(self) -> int:
        text = self.text.strip("\n")
        return text.count("\n") + 1 if text else 0

    def append(self, text: str) -> None:
        if text and not self.finished:
            self._text.parts.append(make_inert(text))
            self._changed()

    def finish(self) -> None:
        if not self.finished:
            self.finished = True
            self._changed()

    def plain_text(self) -> str:
        return self.text

    def drop_render_cache(self) -> None:
        super().drop_render_cache()
        self._text.drop_cache()

    def _estimate(self, width: int) -> int:
        return 1

    def _title(self) -> str:
        count = self.line_count
        return f"{'Thinking' if self.finished else 'Thinking…'} ({count} {'line' if count == 1 else 'lines'})"

    def search_text(self) -> str:
        return f"{self._title()}\n{self.text}"

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        styles = ctx.styles
        header = Text(f"{'▾' if self.expanded else '▸'} {self._title()}", style=styles.reasoning)
        lines = [_line(header, width, ctx)]
        if self.expanded and width > 4:
            indent = ("  ", 0)
            body = self._text.render(width - 2, ctx, styles.reasoning)
            lines.extend(_prefixed(body, indent, indent))
        return lines


_NOTICE_ICONS: dict[str, str] = {"info": "•", "warning": "▲", "error": "✗", "decision": "›"}


class NoticeBlock(Block):
    """One line of status (an error reason, "cancelled", an approval decision), wrapped if long."""

    compact = True

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__()
        self.text = make_inert(text)
        self.level = _known(level, _NOTICE_LEVELS, "info")

    def plain_text(self) -> str:
        return self.text

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        styles = ctx.styles
        style = {
            "info": styles.notice_info,
            "warning": styles.notice_warning,
            "error": styles.notice_error,
            "decision": styles.notice_decision,
        }[self.level]
        text = Text(self.text, style=style)
        if width < 4:
            return ctx.render_text(text, width)
        lines = ctx.render_text(text, width - 2)
        return _prefixed(lines, (f"{_NOTICE_ICONS[self.level]} ", ctx.style_id(style)), ("  ", 0))
