"""Rendered lines join neighbouring pieces of one style: fewer segments per frame, the same cells."""

from __future__ import annotations

from itertools import pairwise

from rich.style import Style

from zett_tui.ui.widgets.transcript import AnswerBlock, Transcript
from zett_tui.ui.widgets.transcript_markdown import _syntax
from zett_tui.ui.widgets.transcript_render import BlockStyles, Line, RenderContext, line_strip

from .test_transcript import Host, settle, stream

CODE = '''def render_block(block, width):
    """Render a block to lines, cached per width."""
    key = (width, block.version)
    if block.cache_key != key:
        block.lines = expensive_render(block, width)
        block.cache_key = key
    return block.lines
'''

ANSWER = f"Some prose first.\n\n```python\n{CODE}```\n\nAnd `inline code` after.\n"


def cells(line: Line, ctx: RenderContext) -> list[tuple[str, Style | None]]:
    """The line cell by cell: (character, style)."""
    return [(character, ctx.style_table[style_id]) for text, style_id in line for character in text]


def unjoined_cells(ctx: RenderContext, width: int) -> list[list[tuple[str, Style | None]]]:
    """The code block's cells as rich renders them, segment by segment, without ``pack``."""
    options = ctx.console.options.update(width=width, min_width=width, max_width=width, height=None)
    lines = ctx.console.render_lines(_syntax(CODE.rstrip(), "python", ctx), options, pad=True)
    return [
        [(character, style) for text, style, control in line if not control for character in text]
        for line in lines
    ]


def test_a_code_block_packs_into_runs_of_distinct_styles_with_the_same_cells() -> None:
    ctx = RenderContext(BlockStyles.plain(), code_theme="monokai")
    lines = ctx.render(_syntax(CODE.rstrip(), "python", ctx), 60)
    assert [cells(line, ctx) for line in lines] == unjoined_cells(ctx, 60)
    for line in lines:
        assert all(left[1] != right[1] for left, right in pairwise(line)), line
    highlighted = sum(len(line) > 2 for line in lines)
    assert highlighted >= 5  # still highlighted: names, keywords and strings keep their own colours


def test_a_strip_joins_neighbours_whose_styles_are_equal_on_the_background() -> None:
    table: list[Style | None] = [None, Style(color="red"), Style(color="red", bold=None), Style(color="blue")]
    line: Line = (("ab", 1), ("cd", 2), ("ef", 3), ("  ", 0))
    based: list[Style] = []
    strip = line_strip(line, table, based, Style(bgcolor="black"), 8)
    assert [segment.text for segment in strip] == ["abcd", "ef", "  "]
    assert strip.cell_length == 8
    assert len(based) == len(table)


async def test_the_transcript_draws_a_streamed_code_block_in_joined_segments() -> None:
    async with Host().run_test(size=(80, 30)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        await stream(transcript, answer, ANSWER, pilot)
        answer.finish("completed")
        transcript.refresh_block(answer)
        await settle(pilot)
        rows = [transcript.render_line(y) for y in range(transcript.scrollable_content_region.height)]
        assert any("key = (width, block.version)" in row.text for row in rows)
        for row in rows:  # each segment carries its column (for selection): compare without it
            styles = [segment.style and segment.style.clear_meta_and_links() for segment in row]
            assert all(left != right for left, right in pairwise(styles)), row.text
