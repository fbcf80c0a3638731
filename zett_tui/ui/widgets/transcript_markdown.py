"""Incremental Markdown for streaming answers.

The source is split into *finished* top-level Markdown blocks and the *open tail*. A block is finished
once another top-level block starts after it on a complete line (the last, partial line of a stream
can still change what it belongs to, so it never finishes anything). Finished blocks are rendered once
per width and kept as lines; only the open tail is parsed and rendered again on each update, so the
cost of an update does not grow with the length of the answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Heading, HorizontalRule, ListElement, ListItem, Markdown, TableElement, TextElement
from rich.rule import Rule
from rich.segment import Segment
from rich.syntax import Syntax
from rich.table import Table

from zett_tui.ui.widgets.transcript_render import Line, RenderContext, blank_line, lexer_for

_PARSER = MarkdownIt().enable("strikethrough").enable("table")
"""One parser for the whole app: building a `MarkdownIt` costs more than parsing a paragraph."""


class _LeftHeading(Heading):
    """Headings flush left (rich centres `h1`), which reads better in a narrow transcript."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text


class _CodeBlock(TextElement):
    """A fenced or indented code block: highlighted, wrapped at word boundaries, theme background."""

    style_name = "markdown.code_block"

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> _CodeBlock:
        assert isinstance(markdown, _TokenMarkdown)
        lexer_name = (token.info or "").partition(" ")[0] or "text"
        return cls(lexer_name, markdown.context)

    def __init__(self, lexer_name: str, context: RenderContext) -> None:
        self.lexer_name = lexer_name
        self.render_context = context

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield _syntax(str(self.text).rstrip(), self.lexer_name, self.render_context)


def _syntax(code: str, lexer_name: str, ctx: RenderContext) -> Syntax:
    lexer = lexer_for(lexer_name) or lexer_for("text")
    assert lexer is not None
    return Syntax(
        code,
        lexer,
        theme=ctx.code_theme,
        word_wrap=True,
        padding=(0, 1),
        background_color=ctx.code_background,
    )


FENCE_PIECE_LINES = 20
"""An open code fence is rendered in pieces of this many lines; only the last piece is re-rendered."""


class _Rule(HorizontalRule):
    """A horizontal rule drawn with a line, not dashes, spaced like every other block.

    (rich's rule adds its own blank line and then skips the usual one, which doubles the blank line
    before a list or a table: a document would render differently whole and block by block.)
    """

    new_line = True

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Rule(style=console.get_style("markdown.hr", default="none"), characters="─")


class _Table(TableElement):
    """A table without the blank top and bottom edge rows rich's SIMPLE box draws."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = Table(
            box=box.SIMPLE,
            pad_edge=False,
            style="markdown.table.border",
            show_edge=False,
            collapse_padding=True,
        )
        if self.header is not None and self.header.row is not None:
            for column in self.header.row.cells:
                heading = column.content.copy()
                heading.stylize("markdown.table.header")
                table.add_column(heading)
        if self.body is not None:
            for row in self.body.rows:
                table.add_row(*(element.content for element in row.cells))
        yield table


class _OrderedList(ListElement):
    """A list whose numbers keep the delimiter the source used (`1.` or `1)`; rich drops it)."""

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> ListElement:
        element = cls(token.type, int(token.attrs.get("start", 1)))
        element.delimiter = token.markup if token.type == "ordered_list_open" else ""
        return element

    delimiter = ""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.list_type == "bullet_list_open":
            yield from super().__rich_console__(console, options)
            return
        first = 1 if self.list_start is None else self.list_start
        last = first + len(self.items) - 1
        for index, item in enumerate(self.items):
            yield from _numbered_item(item, console, options, first + index, last, self.delimiter)


def _numbered_item(
    item: ListItem, console: Console, options: ConsoleOptions, number: int, last: int, delimiter: str
) -> Iterator[Segment]:
    """One item of an ordered list: its number right-aligned in a gutter wide enough for the last."""
    width = max(len(str(last)), len(str(number))) + len(delimiter) + 2
    lines = console.render_lines(
        item.elements, options.update(width=options.max_width - width), style=item.style
    )
    style = console.get_style("markdown.item.number", default="none")
    numeral = Segment(f"{number}{delimiter}".rjust(width - 1) + " ", style)
    padding = Segment(" " * width, style)
    for index, line in enumerate(lines):
        yield numeral if index == 0 else padding
        yield from line
        yield Segment.line()


LINK_SCHEMES = ("http:", "https:", "mailto:")
"""Links with these schemes become terminal hyperlinks (OSC 8); others show their URL as text only."""


def link_shows_url(label: str, href: str) -> bool:
    """Is the URL worth showing after the label (it says something the label does not)?"""
    label = label.strip()
    return bool(href) and label not in (href, href.removeprefix("mailto:"), _PARSER.normalizeLinkText(href))


def _flat(tokens: Iterable[Token]) -> Iterator[Token]:
    """rich's `Markdown._flatten_tokens` (which calls itself through `self`, so cannot be wrapped)."""
    for token in tokens:
        if token.children and not (token.type == "fence" or token.tag == "img"):
            yield from _flat(token.children)
        else:
            yield token


def _url_tokens(href: str) -> list[Token]:
    """`" (url)"` as tokens in the `zett_url` inline style (dim), to follow a link's label."""
    text = Token("text", "", 0)
    text.content = f" ({href})"
    return [Token("zett_url_open", "zett_url", 1), text, Token("zett_url_close", "zett_url", -1)]


class _TokenMarkdown(Markdown):
    """rich's `Markdown`, built from tokens we already parsed (rich would parse the text again)."""

    elements = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
        "table_open": _Table,
        "hr": _Rule,
        "ordered_list_open": _OrderedList,
    }
    inlines = Markdown.inlines | {"zett_url"}

    def __init__(self, tokens: list[Token], context: RenderContext) -> None:
        # Deliberately not calling Markdown.__init__: it builds a parser and parses `markup` again.
        # These are the attributes Markdown.__rich_console__ reads (rich 13-15).
        self.markup = ""
        self.parsed = tokens
        self.context = context
        self.code_theme = "monokai"
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = "monokai"

    def _flatten_tokens(self, tokens: Iterable[Token]) -> Iterable[Token]:
        """rich's flattening, with each link's URL after its label when the label does not say it,
        and the hyperlink (OSC 8) only for web and mail links."""
        links: list[tuple[str, list[str]]] = []
        for token in _flat(tokens):
            if token.type == "link_open":
                href = str(token.attrs.get("href", ""))
                links.append((href, []))
                if not href.lower().startswith(LINK_SCHEMES):
                    token = token.copy(attrs={})
            elif token.type in ("text", "code_inline") and links:
                links[-1][1].append(token.content)
            elif token.type == "link_close" and links:
                href, label = links.pop()
                yield token
                if link_shows_url("".join(label), href):
                    yield from _url_tokens(href)
                continue
            yield token

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # rich starts a document with a blank line when its first block is a list or a table (the
        # children's "new line" flag leaks out); our chunks are rendered separately, so drop it.
        segments = iter(super().__rich_console__(console, options))
        for segment in segments:
            if not (isinstance(segment, Segment) and segment.text == "\n"):
                yield segment
            break
        yield from segments


def render_markdown_tokens(tokens: list[Token], width: int, ctx: RenderContext) -> list[Line]:
    """Render parsed top-level Markdown blocks to lines."""
    if not tokens:
        return []
    return ctx.render(_TokenMarkdown(tokens, ctx), width)


def display_text(tokens: Iterable[Token]) -> str:
    """The text that rendering `tokens` shows, without the Markdown around it (what find searches):
    one line per paragraph, heading or table row, code as written, list numbers and shown URLs."""
    parts: list[str] = []
    numbers: list[tuple[int, str] | None] = []  # per open list: the next number and delimiter
    for token in tokens:
        kind = token.type
        if kind == "inline":
            parts.append(_inline_display_text(token.children or []))
            parts.append("\n")
        elif kind in ("fence", "code_block"):
            parts.append(token.content)
        elif kind == "ordered_list_open":
            numbers.append((int(token.attrs.get("start", 1)), token.markup))
        elif kind == "bullet_list_open":
            numbers.append(None)
        elif kind in ("ordered_list_close", "bullet_list_close") and numbers:
            numbers.pop()
        elif kind == "list_item_open" and numbers and (numbered := numbers[-1]) is not None:
            parts.append(f"{numbered[0]}{numbered[1]} ")
            numbers[-1] = (numbered[0] + 1, numbered[1])
    return "".join(parts)


def _inline_display_text(children: list[Token]) -> str:
    parts: list[str] = []
    links: list[tuple[str, int]] = []
    for child in children:
        kind = child.type
        if kind in ("text", "code_inline"):
            parts.append(child.content)
        elif kind == "softbreak":
            parts.append(" ")
        elif kind == "hardbreak":
            parts.append("\n")
        elif kind == "image":
            parts.append(child.content)
        elif kind == "link_open":
            links.append((str(child.attrs.get("href", "")), len(parts)))
        elif kind == "link_close" and links:
            href, start = links.pop()
            if link_shows_url("".join(parts[start:]), href):
                parts.append(f" ({href})")
    return "".join(parts)


def _top_level_starts(tokens: Iterable[Token]) -> list[tuple[int, int]]:
    """(token index, first source line) of each top-level block."""
    return [
        (index, token.map[0])
        for index, token in enumerate(tokens)
        if token.level == 0 and token.nesting >= 0 and token.map is not None
    ]


def _line_offsets(text: str, lines: list[int]) -> list[int]:
    """Character offsets where each of the (ascending, 0-based) `lines` starts in `text`."""
    offsets: list[int] = []
    offset = 0
    line = 0
    for wanted in lines:
        while line < wanted:
            found = text.find("\n", offset)
            if found < 0:
                offset = len(text)
                break
            offset = found + 1
            line += 1
        offsets.append(offset)
    return offsets


@dataclass(eq=False, slots=True)
class _Chunk:
    """Finished top-level blocks, rendered once per (width, style epoch)."""

    start: int
    end: int
    tokens: list[Token] | None
    lines: list[Line] | None = None
    key: tuple[int, int] | None = None
    text: str | None = None
    """What the chunk shows, as plain text (`display_text`), kept while the document streams."""


@dataclass(eq=False)
class MarkdownStream:
    """Markdown source that grows at the end; renders finished blocks once and the open tail per update.

    `render_count` counts rich renders (finished chunks plus tail renders), for tests and benchmarks.
    """

    _parts: list[str] = field(default_factory=list)
    _source: str = ""
    _committed: int = 0
    _chunks: list[_Chunk] = field(default_factory=list)
    _closed: bool = False
    _version: int = 0
    _split_version: int = -1
    _tail_tokens: list[Token] = field(default_factory=list)
    _tail_lines: list[Line] = field(default_factory=list)
    _tail_key: tuple[int, int, int] | None = None
    _fence_pieces: dict[tuple[int, int, int, int], list[Line]] = field(default_factory=dict)
    _shown_open: bool = False
    """Was the document rendered before it was closed (streamed), or did it arrive whole?"""
    render_count: int = 0

    @property
    def source(self) -> str:
        """The whole Markdown text so far."""
        if self._parts:
            self._source += "".join(self._parts)
            self._parts.clear()
        return self._source

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, text: str) -> None:
        """Add text at the end (already made inert by the caller)."""
        if text and not self._closed:
            self._parts.append(text)
            self._version += 1

    def close(self) -> None:
        """No more text: the tail becomes a finished block too."""
        if not self._closed:
            self._closed = True
            self._version += 1
            self._forget_texts()

    def _forget_texts(self) -> None:
        """Drop the chunks' plain texts: a second copy of the answer, worth keeping only while it
        streams (find converts the open tail again at each update, not the finished chunks). A
        closed document's text is converted once per find (`FindIndex` keeps it while find is
        open), so a session where find was used once does not keep every answer twice."""
        for chunk in self._chunks:
            chunk.text = None

    def drop_cache(self) -> None:
        """Forget rendered lines (keep the source); they are rebuilt on the next render."""
        for chunk in self._chunks:
            chunk.lines = None
            chunk.key = None
            chunk.tokens = None
            chunk.text = None
        self._tail_lines = []
        self._tail_key = None
        self._fence_pieces.clear()

    def _split(self) -> None:
        """Move the blocks that can no longer change from the tail into finished chunks.

        While streaming, each finished top-level block becomes its own chunk (rendered once). A
        document that arrives whole (a resumed session) is one chunk: one rich render is cheaper than
        one per block, and the output is the same (`_Rule` and `_TokenMarkdown` iron out the two
        places where rich spaced a block differently at the start of a render).
        """
        if self._split_version == self._version:
            return
        self._split_version = self._version
        tail = self.source[self._committed :]
        tokens = _PARSER.parse(tail)
        starts = _top_level_starts(tokens)
        if self._closed and not self._shown_open:
            if tokens:
                self._chunks.append(_Chunk(0, len(tail), tokens))
            self._committed = len(tail)
            self._tail_tokens = []
            self._tail_lines = []
            return
        if self._closed:
            finished = len(starts)
            starts.append((len(tokens), tail.count("\n") + 1))
        else:
            complete_lines = tail.count("\n")
            finished = sum(1 for _, line in starts if line < complete_lines) - 1
            if finished < 1:
                self._tail_tokens = tokens
                return
        offsets = _line_offsets(tail, [line for _, line in starts[: finished + 1]])
        for number in range(finished):
            (first_token, _), (end_token, _) = starts[number], starts[number + 1]
            block_tokens = tokens[first_token:end_token]
            self._chunks.append(
                _Chunk(
                    self._committed + offsets[number],
                    self._committed + offsets[number + 1],
                    block_tokens,
                )
            )
        self._committed += offsets[finished]
        self._tail_tokens = tokens[starts[finished][0] :] if finished < len(starts) else []
        self._tail_key = None
        self._fence_pieces.clear()
        if not self._tail_tokens:
            self._tail_lines = []

    def render_ahead(self, width: int, ctx: RenderContext, deadline: float) -> bool:
        """Render finished blocks not rendered yet at `width`, one at a time, until `deadline`
        (a ``time.perf_counter()`` value; at least one block is rendered). Returns whether some are
        still left. What `render` shows is unchanged: it then finds them rendered.

        A stream's update can bring many finished blocks at once (a fast model, a busy machine);
        rendered in one go they held the event loop for tens of milliseconds, and a key typed
        meanwhile waited for all of them. The transcript renders them in steps with the loop's
        other work in between, then shows them in one update.
        """
        self._split()
        key = (width, ctx.epoch)
        rendered = False
        for chunk in self._chunks:
            if chunk.key != key or chunk.lines is None:
                if rendered and time.perf_counter() > deadline:
                    return True
                self._render_chunk(chunk, width, ctx)
                rendered = True
        return False

    def _render_chunk(self, chunk: _Chunk, width: int, ctx: RenderContext) -> list[Line]:
        tokens = chunk.tokens
        if tokens is None:
            tokens = _PARSER.parse(self.source[chunk.start : chunk.end])
        lines = chunk.lines = render_markdown_tokens(tokens, width, ctx)
        chunk.key = (width, ctx.epoch)
        chunk.tokens = None
        self.render_count += 1
        return lines

    def render(self, width: int, ctx: RenderContext) -> list[Line]:
        """All lines of the document at `width`; re-renders only what changed."""
        self._split()
        self._shown_open = self._shown_open or not self._closed
        key = (width, ctx.epoch)
        lines: list[Line] = []
        gap = blank_line(width)
        for index, chunk in enumerate(self._chunks):
            chunk_lines = chunk.lines
            if chunk.key != key or chunk_lines is None:
                chunk_lines = self._render_chunk(chunk, width, ctx)
            if index:
                lines.append(gap)
            lines.extend(chunk_lines)
        if self._tail_tokens:
            tail_key = (width, ctx.epoch, self._version)
            if self._tail_key != tail_key:
                self._tail_lines = self._render_tail(width, ctx)
                self._tail_key = tail_key
            if self._tail_lines and self._chunks:
                lines.append(gap)
            lines.extend(self._tail_lines)
        return lines

    def _render_tail(self, width: int, ctx: RenderContext) -> list[Line]:
        """The open tail. A long open code fence (a file being written) is rendered in pieces of
        `FENCE_PIECE_LINES` lines, so each update costs one piece, not the whole file. Each piece is
        highlighted on its own until the fence closes; then the whole block is rendered again."""
        tokens = self._tail_tokens
        self.render_count += 1
        if self._closed or len(tokens) != 1 or tokens[0].type != "fence":
            return render_markdown_tokens(tokens, width, ctx)
        code = tokens[0].content.split("\n")
        frozen = (len(code) - 1) // FENCE_PIECE_LINES * FENCE_PIECE_LINES
        if not frozen:
            return render_markdown_tokens(tokens, width, ctx)
        lexer_name = (tokens[0].info or "").partition(" ")[0] or "text"
        lines: list[Line] = []
        for start in range(0, frozen, FENCE_PIECE_LINES):
            key = (self._committed, start, width, ctx.epoch)
            piece = self._fence_pieces.get(key)
            if piece is None:
                if any(old[0] != self._committed for old in self._fence_pieces):
                    self._fence_pieces.clear()
                piece_code = "\n".join(code[start : start + FENCE_PIECE_LINES])
                piece = self._fence_pieces[key] = ctx.render(_syntax(piece_code, lexer_name, ctx), width)
                self.render_count += 1
            lines.extend(piece)
        rest = "\n".join(code[frozen:]).rstrip()
        if rest:
            lines.extend(ctx.render(_syntax(rest, lexer_name, ctx), width))
        return lines

    def display_text(self) -> str:
        """The document's text as shown, without Markdown syntax (for find). Finished blocks are
        converted once; only the open tail is converted again after text arrives."""
        self._split()
        parts: list[str] = []
        for chunk in self._chunks:
            text = chunk.text
            if text is None:
                tokens = chunk.tokens
                if tokens is None:
                    tokens = _PARSER.parse(self.source[chunk.start : chunk.end])
                text = display_text(tokens)
                if self._closed:
                    chunk.tokens = None  # parsed again if it is drawn: a resumed answer found, not seen
                else:
                    chunk.text = text
            parts.append(text)
        if self._tail_tokens:
            parts.append(display_text(self._tail_tokens))
        return "\n".join(parts)

    def code_blocks(self) -> list[str]:
        """Raw text of every fenced or indented code block, in order."""
        return [
            token.content for token in _PARSER.parse(self.source) if token.type in ("fence", "code_block")
        ]
