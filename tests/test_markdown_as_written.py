"""Markdown as written: ordered lists keep their period, links show their URL (and link where they
may), and the plan dialog renders Markdown exactly as the transcript does."""

from __future__ import annotations

import dataclasses

from rich.console import Console
from rich.style import Style
from textual.strip import Strip

from tests.fakes.scripted_model import ScriptedModel, tool_step
from tests.test_dialogs import open_dialog
from tests.ui_helpers import make_app, ready_app, screen_text, submit
from zett_tui.ui.modals.plan_dialogs import PlanReviewDialog
from zett_tui.ui.widgets.markdown_view import MarkdownView
from zett_tui.ui.widgets.transcript_markdown import MarkdownStream
from zett_tui.ui.widgets.transcript_render import BlockStyles, Line, RenderContext

MUTED = Style(color="#808080")
LINK = Style(underline=True)


def render(markdown: str, width: int = 70) -> tuple[list[Line], RenderContext]:
    ctx = RenderContext(dataclasses.replace(BlockStyles.plain(), muted=MUTED, link=LINK))
    document = MarkdownStream()
    document.append(markdown)
    document.close()
    return document.render(width, ctx), ctx


def texts(lines: list[Line]) -> list[str]:
    return ["".join(text for text, _ in line).rstrip() for line in lines]


def segments(lines: list[Line], ctx: RenderContext) -> list[tuple[str, Style | None]]:
    return [(text, ctx.style_table[style_id]) for line in lines for text, style_id in line]


def test_ordered_lists_keep_their_delimiter_and_numbers() -> None:
    lines, _ = render("1. first\n2. second\n\n7) seventh\n8) eighth\n")
    shown = texts(lines)
    assert " 1. first" in shown and " 2. second" in shown
    assert " 7) seventh" in shown and " 8) eighth" in shown


def test_ten_items_are_aligned_on_the_delimiter() -> None:
    lines, _ = render("".join(f"{n}. item {n}\n" for n in range(1, 11)))
    shown = texts(lines)
    assert shown[0] == "  1. item 1"
    assert shown[9] == " 10. item 10"


def test_a_wrapped_item_continues_under_its_text() -> None:
    lines, _ = render("1. " + "word " * 30 + "\n", width=40)
    shown = texts(lines)
    assert shown[0].startswith(" 1. word")
    assert shown[1].startswith("    word")


def test_a_link_shows_its_url_dim_after_the_label_and_links_the_label() -> None:
    lines, ctx = render("See [the guide](https://example.com/guide) now.\n")
    assert texts(lines)[0] == "See the guide (https://example.com/guide) now."
    styled = segments(lines, ctx)
    label = [style for text, style in styled if "the guide" in text]
    assert label and all(style is not None and style.link == "https://example.com/guide" for style in label)
    url = [style for text, style in styled if "(https://example.com/guide)" in text]
    assert url and all(style is not None and style.color == MUTED.color and not style.link for style in url)


def test_a_link_whose_label_is_its_url_is_shown_once() -> None:
    lines, ctx = render("Go to <https://example.com> or [https://example.com](https://example.com).\n")
    assert texts(lines)[0] == "Go to https://example.com or https://example.com."
    assert any(style is not None and style.link == "https://example.com" for _, style in segments(lines, ctx))


def test_only_web_and_mail_links_become_terminal_hyperlinks() -> None:
    lines, ctx = render("[mirror](ftp://files.example.com/x) and [me](mailto:me@example.com)\n")
    assert texts(lines)[0] == "mirror (ftp://files.example.com/x) and me (mailto:me@example.com)"
    links = {style.link for _, style in segments(lines, ctx) if style is not None and style.link}
    assert links == {"mailto:me@example.com"}


def test_the_transcript_sends_the_link_to_the_terminal() -> None:
    lines, ctx = render("[docs](https://example.com/docs)\n")
    strip = Strip(ctx.unpack(lines[0]))
    assert "\x1b]8;" in strip.render(Console(force_terminal=True))


PLAN = """# Plan

1. Add the flag in `cli.py`.
2. Read [the spec](https://example.com/spec) first.

```python
print("hi")
```
"""


async def test_the_plan_dialog_renders_markdown_as_the_transcript_does() -> None:
    app = make_app(ScriptedModel(tool_step("x1", "exit_plan_mode", {"plan": PLAN})))
    async with ready_app(app, size=(100, 30)) as pilot:
        await submit(pilot, "/plan on")
        await submit(pilot, "plan it")
        dialog = await open_dialog(pilot, PlanReviewDialog)
        view = dialog.query_one("#plan", MarkdownView)
        width = view.content_region.width
        transcript_ctx = app.chat.transcript._render_context()
        document = MarkdownStream()
        document.append(PLAN)
        document.close()
        as_in_transcript = document.render(width, transcript_ctx)
        assert texts(view.lines(width)) == texts(as_in_transcript)
        view_ctx = view.render_context()
        assert [view_ctx.style_table[i] for line in view.lines(width) for _, i in line] == [
            transcript_ctx.style_table[i] for line in as_in_transcript for _, i in line
        ]
        shown = screen_text(app)
        assert " 1. Add the flag in cli.py." in shown
        assert "the spec (https://example.com/spec)" in shown
