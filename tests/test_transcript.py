"""The transcript widget: streaming Markdown, follow mode, tool rows, inert output, virtual rendering."""

from __future__ import annotations

import re
import time

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input

from zett_tui.ui.widgets import transcript_markdown, transcript_updates
from zett_tui.ui.widgets.tool_block import RAW_OUTPUT_LIMIT
from zett_tui.ui.widgets.transcript import (
    AnswerBlock,
    Block,
    NoticeBlock,
    ReasoningBlock,
    ToolBlock,
    Transcript,
    UserBlock,
)
from zett_tui.ui.widgets.transcript_layout import BlockLayout
from zett_tui.ui.widgets.transcript_render import BlockStyles, RenderContext

ANSWER = """# Streaming answer

Some **bold** prose that explains what happens next.

- first item
- second item

```python
def greet(name):
    return f"hello {name}"
```

| name | value |
|------|-------|
| alpha | 1 |
| beta | 2 |

Closing words.
"""


class Host(App[None]):
    """A transcript above an input, like the chat screen."""

    def __init__(self, with_input: bool = False) -> None:
        super().__init__()
        self.with_input = with_input

    def compose(self) -> ComposeResult:
        yield Transcript()
        if self.with_input:
            yield Input()


async def settle(pilot) -> None:
    """Let the app process its messages and run any update the transcript deferred.

    The transcript spaces out expensive updates with a timer; tests must not depend on its timing.
    """
    await pilot.pause()
    transcript = pilot.app.query_one(Transcript)
    if transcript.update_pending:
        transcript.update_now()
    await pilot.pause()


def all_text(transcript: Transcript) -> list[str]:
    """Every virtual line of the transcript, as plain text."""
    return [transcript.line_text(y).rstrip() for y in range(transcript.virtual_size.height)]


def screen_text(transcript: Transcript) -> list[str]:
    """What `render_line` produces for each row on screen."""
    return [transcript.render_line(y).text for y in range(transcript.scrollable_content_region.height)]


async def stream(
    transcript: Transcript, block: AnswerBlock, text: str, pilot, size: int = 8, every: int = 10
):
    """Append `text` in `size`-character deltas, refreshing every `every` deltas like the app's batching."""
    for index, start in enumerate(range(0, len(text), size)):
        block.append(text[start : start + size])
        if index % every == 0:
            transcript.refresh_block(block)
            await settle(pilot)
    transcript.refresh_block(block)
    await settle(pilot)


async def test_streamed_answer_renders_heading_list_code_and_table() -> None:
    async with Host().run_test(size=(80, 40)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock(label="demo-model"))
        assert isinstance(answer, AnswerBlock)
        await stream(transcript, answer, ANSWER, pilot)
        answer.finish("completed")
        transcript.refresh_block(answer)
        await settle(pilot)

        lines = all_text(transcript)
        assert lines[0] == "● demo-model"
        assert "Streaming answer" in lines
        assert "Some bold prose that explains what happens next." in lines
        assert any(re.fullmatch(r"\s*•\s+first item", line) for line in lines)
        assert any(line.strip() == "def greet(name):" for line in lines)
        assert any(line.strip() == 'return f"hello {name}"' for line in lines)
        header = next(line for line in lines if "name" in line and "value" in line)
        assert lines[lines.index(header) + 2].split() == ["alpha", "1"]
        assert lines[-1] == "Closing words."
        assert not any("cancelled" in line for line in lines)


async def test_streamed_and_whole_renders_are_identical() -> None:
    text = ANSWER + "\n> a quote\n\n---\n\n1. one\n2. two\n\n" + ANSWER
    ctx = RenderContext(BlockStyles.plain())
    streamed, whole = AnswerBlock(), AnswerBlock()
    for start in range(0, len(text), 5):
        streamed.append(text[start : start + 5])
        streamed.render(60, ctx)
    streamed.finish()
    whole.append(text)
    whole.finish()
    assert streamed.render(60, ctx) == whole.render(60, ctx)


def test_rendering_ahead_renders_one_finished_block_per_step_and_shows_the_same_lines() -> None:
    text = ANSWER + "\n> a quote\n\n---\n\n1. one\n2. two\n\n" + ANSWER + "The open tail"
    ctx = RenderContext(BlockStyles.plain())
    ahead, plain = AnswerBlock(), AnswerBlock()
    ahead.append(text)
    plain.append(text)
    steps = 0
    while ahead.render_ahead(60, ctx, deadline=0.0):  # the deadline has passed: one block a step
        steps += 1
    finished = len(ahead.document._chunks)
    assert finished > 5 and steps == finished - 1  # the last step found nothing left
    renders = ahead.document.render_count
    assert ahead.render(60, ctx) == plain.render(60, ctx)
    assert ahead.document.render_count - renders == 1  # only the open tail was left to render
    assert not ahead.render_ahead(60, ctx, deadline=0.0)  # all of it is on show now


async def test_a_large_update_is_rendered_over_several_loop_turns_and_shown_whole_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A key typed meanwhile is handled between two steps (each a turn of the event loop), and
    the answer's text still arrives whole and in order, in one update."""
    import asyncio

    monkeypatch.setattr(transcript_updates, "_RENDER_AHEAD_STEP", 0.0)  # one paragraph a step
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        answer.append("Start.\n\n")
        transcript.refresh_block(answer)
        await settle(pilot)
        syncs = transcript.sync_count
        slice_text = "".join(f"Paragraph {index} of the slice.\n\n" for index in range(30))
        answer.append(slice_text + "The open tail")
        transcript.refresh_block(answer)
        loop = asyncio.get_running_loop()
        turns: list[int] = []

        def another_turn() -> None:  # stands for a key's handling: queued behind the update
            turns.append(transcript.sync_count)
            if transcript.sync_count == syncs:
                loop.call_soon(another_turn)

        loop.call_soon(another_turn)
        for _ in range(200):
            await pilot.pause()
            if transcript.sync_count > syncs and not transcript.update_pending:
                break
        assert transcript.sync_count == syncs + 1  # shown in one update
        assert len(turns) > 10 and turns[:-1] == [syncs] * (len(turns) - 1)
        shown = "\n".join(
            line.strip()
            for line in _texts(answer.render(transcript._layout.width, transcript._render_context()))
        )
        positions = [shown.index(f"Paragraph {index} of") for index in range(30)]
        assert positions == sorted(positions) and shown.rstrip().endswith("The open tail")


def test_long_open_code_block_renders_in_pieces_with_the_same_text() -> None:
    ctx = RenderContext(BlockStyles.plain())
    code = "".join(f"value_{index} = compute({index})\n" for index in range(100))
    streamed = AnswerBlock()
    cut = len(code) * 3 // 4
    streamed.append("Here:\n\n```python\n" + code[:cut])
    lines = [text.strip() for text in _texts(streamed.render(60, ctx))]
    assert lines[2:77] == code.splitlines()[:75]
    renders_before = streamed.document.render_count
    streamed.append(code[cut : cut + 1])
    streamed.render(60, ctx)
    assert streamed.document.render_count - renders_before == 1
    streamed.append(code[cut + 1 :] + "```\n")
    streamed.finish()
    whole = AnswerBlock()
    whole.append("Here:\n\n```python\n" + code + "```\n")
    whole.finish()
    assert streamed.render(60, ctx) == whole.render(60, ctx)


def _texts(lines) -> list[str]:
    return ["".join(text for text, _style in line) for line in lines]


async def test_appending_does_not_rerender_finished_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered: list[str] = []
    original = transcript_markdown.render_markdown_tokens

    def spy(tokens, width, ctx):
        rendered.append(" ".join(token.content for token in tokens if token.type == "inline"))
        return original(tokens, width, ctx)

    monkeypatch.setattr(transcript_markdown, "render_markdown_tokens", spy)
    async with Host().run_test(size=(80, 24)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        paragraphs = [f"Paragraph number {index} says something long enough to wrap." for index in range(40)]
        for paragraph in paragraphs:
            answer.append(paragraph + "\n\n")
            transcript.refresh_block(answer)
            await settle(pilot)

    first = [call for call in rendered if "Paragraph number 0 " in call]
    assert 1 <= len(first) <= 3, first
    assert len(rendered) <= 3 * len(paragraphs)


async def test_follow_mode_stops_when_scrolled_up_and_resumes_at_end() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        for index in range(60):
            transcript.add(NoticeBlock(f"line {index}"))
        await settle(pilot)
        assert transcript.following
        assert transcript.scroll_y == transcript.max_scroll_y > 0

        transcript.focus()
        await pilot.press("pageup", "up")
        assert not transcript.following
        reading = transcript.scroll_y
        top_line = screen_text(transcript)[0]

        for index in range(100):
            transcript.add(NoticeBlock(f"more {index}"))
        await settle(pilot)
        assert transcript.scroll_y == reading
        assert screen_text(transcript)[0] == top_line
        assert "new output" in screen_text(transcript)[-1]

        await pilot.press("end")
        await settle(pilot)
        assert transcript.following
        assert transcript.scroll_y == transcript.max_scroll_y
        assert "new output" not in screen_text(transcript)[-1]
        transcript.add(NoticeBlock("after end"))
        await settle(pilot)
        assert transcript.scroll_y == transcript.max_scroll_y
        assert screen_text(transcript)[-1].strip().endswith("after end")


async def test_streaming_while_scrolled_up_never_moves_the_view() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        await stream(transcript, answer, ANSWER * 3, pilot)
        transcript.focus()
        await pilot.press("home")
        assert transcript.scroll_y == 0 and not transcript.following
        before = screen_text(transcript)
        await stream(transcript, answer, ANSWER * 3, pilot)
        assert transcript.scroll_y == 0
        assert screen_text(transcript)[:-1] == before[:-1]


async def test_tool_row_states_duration_and_expansion_by_keys_and_click() -> None:
    async with Host().run_test(size=(70, 24)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        transcript.add(UserBlock("list the files"))
        tool = transcript.add(ToolBlock("call-1", "bash", "ls -la"))
        assert isinstance(tool, ToolBlock)
        tool.set_running()
        transcript.refresh_block(tool)
        await settle(pilot)
        row = next(line for line in all_text(transcript) if "bash" in line)
        assert "ls -la" in row and row.endswith("running")

        tool.finish("done", "file-a\nfile-b\n", 0.42)
        transcript.refresh_block(tool)
        await settle(pilot)
        row = next(line for line in all_text(transcript) if "bash" in line)
        assert row.endswith("done 0.4s")
        assert "file-a" not in all_text(transcript)

        transcript.focus()
        await pilot.press("alt+down")
        row_y = next(y for y, line in enumerate(screen_text(transcript)) if "bash" in line)
        first_segment_style = next(iter(transcript.render_line(row_y))).style
        assert first_segment_style is not None
        assert first_segment_style.bgcolor != transcript.rich_style.bgcolor
        await pilot.press("alt+right")
        await settle(pilot)
        assert tool.expanded
        assert transcript.selected_block is tool
        text = all_text(transcript)
        assert any(line.endswith("file-a") for line in text)
        assert any(line.endswith("file-b") for line in text)

        await pilot.press("alt+left")
        await settle(pilot)
        assert not tool.expanded

        row_y = next(y for y, line in enumerate(screen_text(transcript)) if "bash" in line)
        await pilot.click(Transcript, offset=(5, row_y))
        await settle(pilot)
        assert tool.expanded
        await pilot.click(Transcript, offset=(5, row_y))
        await settle(pilot)
        assert not tool.expanded

        failed = transcript.add(ToolBlock("call-2", "read", "missing.txt"))
        assert isinstance(failed, ToolBlock)
        failed.finish("failed", "No such file", 12.3)
        transcript.refresh_block(failed)
        await settle(pilot)
        assert all_text(transcript)[-2].endswith("failed 12s")
        assert all_text(transcript)[-1].endswith("│ No such file")  # why it failed stays in sight


async def test_expanding_the_last_tool_keeps_its_row_in_place() -> None:
    async with Host().run_test(size=(60, 12)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        for index in range(20):
            transcript.add(NoticeBlock(f"line {index}"))
        tool = transcript.add(ToolBlock("c", "bash", "seq 50"))
        tool.finish("done", "\n".join(str(n) for n in range(50)), 0.2)
        await settle(pilot)
        rows = screen_text(transcript)
        row_y = next(y for y, line in enumerate(rows) if "seq 50" in line)
        assert row_y == len(rows) - 1
        transcript.toggle_block(tool)
        await settle(pilot)
        rows = screen_text(transcript)
        assert "seq 50" in rows[0]
        assert rows[1].strip() == "│ 0"
        assert not transcript.following
        assert not any("new output" in line for line in rows)
        transcript.toggle_block(tool)
        await settle(pilot)
        assert transcript.following
        assert "seq 50" in screen_text(transcript)[-1]

        short = transcript.add(ToolBlock("d", "bash", "echo hi"))
        short.finish("done", "hi", 0.1)
        await settle(pilot)
        transcript.toggle_block(short)
        await settle(pilot)
        assert screen_text(transcript)[-1].strip() == "│ hi"
        assert transcript.following


async def test_tool_key_argument_is_truncated_to_fit() -> None:
    async with Host().run_test(size=(40, 10)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        tool = transcript.add(ToolBlock("c", "bash", "find / -name '*.py' -exec grep -l something {} +"))
        assert isinstance(tool, ToolBlock)
        tool.finish("done", "", 1.5)
        transcript.refresh_block(tool)
        await settle(pilot)
        row = all_text(transcript)[0]
        assert "…" in row and row.endswith("done 1.5s")
        assert len(row) <= transcript.scrollable_content_region.width


async def test_tool_output_escape_sequences_are_inert() -> None:
    output = (
        "\x1b[31mred\x1b[0m text\n\x1b]0;evil title\x07after\n"
        "bell\x07 and \x1b[2Jclear\nprogress 10%\rprogress 100%\n"
    )
    async with Host().run_test(size=(70, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        tool = transcript.add(ToolBlock("c", "bash", "make \x1b[2J"))
        assert isinstance(tool, ToolBlock)
        tool.finish("done", output, 0.1)
        tool.toggle()
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        answer.append("model says \x1b[5mblink\x1b[0m\x07")
        answer.finish()
        transcript.refresh_block(tool)
        transcript.refresh_block(answer)
        await settle(pilot)

        text = all_text(transcript)
        assert any(line.endswith("red text") for line in text)
        assert any(line.endswith("after") for line in text)
        assert any(line.endswith("progress 100%") for line in text)
        for y in range(transcript.scrollable_content_region.height):
            for segment in transcript.render_line(y):
                assert not any(ord(char) < 32 or 0x7F <= ord(char) < 0xA0 for char in segment.text), segment


async def test_huge_single_line_output_renders_bounded() -> None:
    async with Host().run_test(size=(80, 24)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        tool = transcript.add(ToolBlock("c", "cat", "big.min.js"))
        assert isinstance(tool, ToolBlock)
        tool.finish("done", "x" * 5_000_000, 2.0)
        tool.toggle()
        many = transcript.add(ToolBlock("d", "seq", "1 100000"))
        assert isinstance(many, ToolBlock)
        many.finish("done", "\n".join(str(n) for n in range(100_000)), 0.5)
        many.toggle()
        transcript.refresh_block(tool)
        transcript.refresh_block(many)
        await settle(pilot)

        width = transcript.scrollable_content_region.width
        assert len(tool.render(width, transcript._render_context())) < 40
        text = all_text(transcript)
        assert any("chars)" in line for line in text)
        assert any("lines hidden" in line for line in text)
        assert text[-1].endswith("99999")
        assert transcript.virtual_size.height < 300


async def test_words_are_not_broken_at_width_40() -> None:
    prose = (
        "Wrapping must happen between words: internationalization, configuration, "
        "responsibilities and extraordinarily long words stay whole at the edge of the column. " * 3
    )
    words = set(re.findall(r"[\w:,.]+", prose))
    async with Host().run_test(size=(43, 40)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        assert transcript.scrollable_content_region.width == 40
        transcript.add(UserBlock(prose))
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        answer.append(prose)
        answer.finish()
        transcript.add(NoticeBlock(prose, "warning"))
        await settle(pilot)
        for line in all_text(transcript):
            for word in re.findall(r"[\w:,.]+", line):
                assert word in words, (word, line)


async def test_ten_columns_do_not_crash() -> None:
    async with Host().run_test(size=(10, 12)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        transcript.add(UserBlock("a prompt that is long"))
        answer = transcript.add(AnswerBlock(label="a-very-long-model-name"))
        assert isinstance(answer, AnswerBlock)
        await stream(transcript, answer, ANSWER, pilot)
        answer.finish("failed")
        tool = transcript.add(ToolBlock("c", "a_long_tool_name", "argument"))
        assert isinstance(tool, ToolBlock)
        tool.finish("cancelled", "out\nput", 3.0)
        tool.toggle()
        reasoning = transcript.add(ReasoningBlock())
        assert isinstance(reasoning, ReasoningBlock)
        reasoning.append("thinking hard about it")
        reasoning.toggle()
        transcript.add(NoticeBlock("a notice that wraps", "error"))
        for block in transcript.blocks:
            transcript.refresh_block(block)
        await settle(pilot)
        width = transcript.scrollable_content_region.width
        for y in range(transcript.virtual_size.height):
            assert len(transcript.line_text(y)) <= width
        assert screen_text(transcript)


async def test_cancelled_and_failed_answers_are_marked() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        cancelled = transcript.add(AnswerBlock())
        assert isinstance(cancelled, AnswerBlock)
        cancelled.append("Partial answer")
        cancelled.finish("cancelled")
        cancelled.append(" ignored after finish")
        failed = transcript.add(AnswerBlock())
        assert isinstance(failed, AnswerBlock)
        failed.finish("failed")
        await settle(pilot)
        text = all_text(transcript)
        assert text[0] == "Partial answer"
        assert text[1] == "⏹ cancelled"
        assert text[-1] == "✗ failed"


async def test_reasoning_is_collapsed_by_default_and_expandable() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        reasoning = transcript.add(ReasoningBlock())
        assert isinstance(reasoning, ReasoningBlock)
        reasoning.append("First I look\nThen I ")
        transcript.refresh_block(reasoning)
        await settle(pilot)
        assert all_text(transcript) == ["▸ Thinking… (2 lines)"]
        reasoning.append("decide\n")
        reasoning.finish()
        transcript.toggle_block(reasoning)
        await settle(pilot)
        assert all_text(transcript) == ["▾ Thinking (2 lines)", "  First I look", "  Then I decide"]


async def test_copy_sources_are_raw() -> None:
    async with Host().run_test(size=(30, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        assert transcript.last_code_block() is None
        first = transcript.add(AnswerBlock())
        assert isinstance(first, AnswerBlock)
        first.append("```sh\necho old\n```\n")
        first.finish()
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        code = "x = compute_something_long(argument_one, argument_two)  # no wrapping\n"
        answer.append(f"Try:\n\n```python\n{code}```\n\nand `inline`.")
        answer.finish()
        await settle(pilot)
        assert transcript.last_code_block() == code
        assert transcript.plain_text(answer) == answer.text
        assert answer.text.startswith("Try:")
        later = transcript.add(AnswerBlock())
        assert isinstance(later, AnswerBlock)
        later.append("No code here.")
        assert transcript.last_code_block() is None


async def test_clear_empties_the_view_and_follows_again() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        for index in range(50):
            transcript.add(NoticeBlock(f"old {index}"))
        await settle(pilot)
        transcript.focus()
        await pilot.press("home")
        transcript.clear()
        await settle(pilot)
        assert len(transcript.blocks) == 0
        assert transcript.virtual_size.height == 0 and transcript.following
        transcript.add(NoticeBlock("fresh start"))
        await settle(pilot)
        assert screen_text(transcript)[0].strip() == "• fresh start"


async def test_resize_rewraps_and_keeps_following() -> None:
    async with Host().run_test(size=(80, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        for index in range(10):
            answer = transcript.add(AnswerBlock())
            assert isinstance(answer, AnswerBlock)
            answer.append(f"Answer {index}: " + "words that wrap " * 12)
            answer.finish()
        await settle(pilot)
        wide = transcript.virtual_size.height
        await pilot.resize_terminal(40, 20)
        await settle(pilot)
        assert transcript.virtual_size.height > wide
        assert transcript.following
        assert transcript.scroll_y == transcript.max_scroll_y
        assert screen_text(transcript)[-1].strip().endswith("wrap")
        assert all(len(line) <= 37 for line in screen_text(transcript))


async def test_many_blocks_keep_a_bounded_render_cache() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        transcript.cache_budget_lines = 200
        for index in range(300):
            answer = transcript.add(AnswerBlock())
            assert isinstance(answer, AnswerBlock)
            answer.append(f"## Turn {index}\n\nSome text for turn {index}.\n")
            answer.finish()
        await settle(pilot)
        transcript.focus()
        await pilot.press("home")
        for _ in range(40):
            await pilot.press("pagedown")
        cached = [block for block in transcript.blocks if block.has_render_cache]
        assert 0 < len(cached) <= 80
        assert len(transcript.blocks) == 300
        assert len(pilot.app.query("*")) < 10


async def test_the_pages_next_to_the_screen_are_rendered_ahead_in_idle_time() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        transcript.cache_budget_lines = 200
        answers = []
        for index in range(300):
            answer = transcript.add(AnswerBlock())
            assert isinstance(answer, AnswerBlock)
            answer.append(f"## Turn {index}\n\nSome text for turn {index}.\n")
            answer.finish()
            answers.append(answer)
        await settle(pilot)
        transcript.focus()
        await pilot.press("home")  # the first turns: never rendered at this width
        viewport = transcript.scrollable_content_region.height
        for page in range(1, 6):
            for _ in range(200):
                await settle(pilot)
                if not transcript.rendering_ahead:
                    break
            # Two pages above and three below are ready: the next pages need no rendering.
            top = round(transcript.scroll_y)
            near = [answer for answer in answers if answer.has_render_cache]
            ready = {int(answer.text.split()[2]) for answer in near}
            assert ready >= set(range((top + 3 * viewport) // 4))
            renders = [answer.render_count for answer in answers]
            await pilot.press("pagedown")
            await settle(pilot)
            shown = {int(line.split()[-1].rstrip(".")) for line in screen_text(transcript) if "turn" in line}
            assert min(shown) >= 4 * page  # a later page
            for number in shown:
                assert answers[number].render_count == renders[number] == 1
        assert len([answer for answer in answers if answer.has_render_cache]) < 80


async def test_text_added_to_the_last_line_repaints_only_that_row() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        answer.append("\n\n".join(f"Paragraph {n}." for n in range(30)) + "\n\nThe last one grows")
        transcript.refresh_block(answer)
        await settle(pilot)
        repainted: list[tuple[int, int]] = []
        refresh_lines = transcript.refresh_lines

        def spy(y_start: int, line_count: int = 1) -> None:
            repainted.append((y_start, line_count))
            refresh_lines(y_start, line_count)

        transcript.refresh_lines = spy  # type: ignore[method-assign]
        answer.append(" and grows")
        transcript.refresh_block(answer)
        await settle(pilot)
        # Only the open tail is rendered again (the last paragraph, a blank row and the growing
        # line), and of it only the row whose text changed is repainted.
        assert repainted == [(transcript.virtual_size.height - 1, 1)]
        assert "The last one grows and grows" in pilot.app.export_screenshot().replace("&#160;", " ")


def add_finished_answers(transcript: Transcript, count: int) -> list[AnswerBlock]:
    """``count`` finished answers added at once, as a resumed session adds its past."""
    answers = []
    for index in range(count):
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        answer.append(f"Answer {index} " + "with some words " * 10)
        answer.finish()
        answers.append(answer)
    return answers


async def test_a_frame_drawn_before_the_update_renders_none_of_the_blocks_just_added(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A resumed session adds its blocks at once; on a loaded machine a frame can come before the
    update that places them, while the view is still at the top: it must not render the top."""
    monkeypatch.setattr(transcript_updates, "_PREFETCH_DELAY", 3600.0)
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answers = add_finished_answers(transcript, 200)
        for y in range(20):  # the frame: every row of the screen, at the old scroll position
            transcript.render_line(y)
        assert not [answer for answer in answers if answer.render_count]
        await settle(pilot)
        rendered = [answer for answer in answers if answer.render_count]
        assert len(rendered) < 20, [answers.index(a) for a in rendered]
        assert screen_text(transcript)[-1].strip().endswith("words")


async def test_bulk_add_renders_only_what_is_near_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rendering ahead in idle time (the prefetch) is not what this counts: on a loaded machine it
    # would have rendered more blocks by the time the count is taken.
    monkeypatch.setattr(transcript_updates, "_PREFETCH_DELAY", 3600.0)
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answers = add_finished_answers(transcript, 200)
        await settle(pilot)
        rendered = [answer for answer in answers if answer.render_count]
        assert len(rendered) < 20, [answers.index(a) for a in rendered]
        assert screen_text(transcript)[-1].strip().endswith("words")
        transcript.focus()
        await pilot.press("home")
        await settle(pilot)
        assert screen_text(transcript)[0].startswith("Answer 0 ")


async def test_updates_are_coalesced_and_nothing_runs_when_idle() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        await settle(pilot)
        before = transcript.sync_count
        for _ in range(50):
            answer.append("more text ")
            transcript.refresh_block(answer)
        await settle(pilot)
        assert transcript.sync_count - before <= 2
        assert not transcript.update_pending
        syncs = transcript.sync_count
        await pilot.pause(0.2)
        assert transcript.sync_count == syncs


async def test_an_update_run_now_is_not_run_again_when_its_timer_fires() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        await settle(pilot)
        transcript._updates._next_sync_at = time.perf_counter() + 0.1  # backing off after a costly update
        answer.append("more text ")
        transcript.refresh_block(answer)
        assert transcript.update_pending
        transcript.update_now()
        syncs = transcript.sync_count
        await pilot.pause(0.3)
        assert transcript.sync_count == syncs


async def test_theme_switch_restyles_without_losing_content() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        answer = transcript.add(AnswerBlock())
        assert isinstance(answer, AnswerBlock)
        answer.append("Text with `code`.\n\n```python\nx = 1\n```\n")
        answer.finish()
        await settle(pilot)
        dark = screen_text(transcript)
        dark_style = next(iter(transcript.render_line(0))).style
        pilot.app.theme = "textual-light"
        await settle(pilot)
        assert screen_text(transcript) == dark
        assert next(iter(transcript.render_line(0))).style != dark_style


async def test_mouse_selection_copies_text_as_shown_and_select_all_copies_sources() -> None:
    async with Host().run_test(size=(60, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        transcript.add(UserBlock("first prompt here"))
        answer = transcript.add(AnswerBlock())
        answer.append("Alpha beta gamma.\n\n```python\nx = 1\ny = 2\n```\n")
        answer.finish()
        await settle(pilot)
        assert screen_text(transcript)[2].startswith("Alpha beta gamma.")

        await pilot.mouse_down(Transcript, offset=(1, 2))
        await pilot.hover(Transcript, offset=(6, 5))
        await pilot.mouse_up(Transcript, offset=(6, 5))
        await settle(pilot)
        selected = pilot.app.screen.get_selected_text()
        assert selected is not None
        assert selected.startswith("Alpha beta gamma.\n\n x = 1\n")
        assert not answer.expandable

        await pilot.click(Transcript, offset=(3, 0), times=2)
        await settle(pilot)
        assert pilot.app.screen.get_selected_text() == "first prompt here\n\n" + answer.text.rstrip("\n")


def test_layout_estimates_until_measured_and_evicts_far_blocks() -> None:
    ctx = RenderContext(BlockStyles.plain())
    layout = BlockLayout(lambda: ctx)
    layout.set_width(40)
    blocks = [NoticeBlock(f"notice {index} " + "word " * 20) for index in range(100)]
    for block in blocks:
        layout.append(block)
    assert not any(layout.exact)
    layout.measure_range(0, 10)
    assert layout.exact[0] and not layout.exact[50]
    assert layout.tops == [sum(layout.heights[:index]) for index in range(100)]
    assert layout.block_at(layout.tops[7]) == 7
    assert layout.line_at(layout.body_top(7)) == (7, blocks[7].render(40, ctx)[0])
    for index in range(100):
        layout.lines(index)
    held = layout.cached_lines
    layout.evict(0, 10, budget=held // 2)
    assert layout.cached_lines <= held // 2
    assert blocks[0].has_render_cache and not blocks[99].has_render_cache
    layout.set_width(20)
    assert not layout.exact[0]


def test_a_tool_row_far_from_the_screen_holds_its_output_once() -> None:
    """Evicted, a row keeps the raw output but not its preview lines; they come back the same."""
    ctx = RenderContext(BlockStyles.plain())
    layout = BlockLayout(lambda: ctx)
    layout.set_width(60)
    output = "".join(f"line {number} of the file\n" for number in range(40))
    blocks = [ToolBlock(f"call_{index}", "read_file", "notes.md") for index in range(100)]
    for block in blocks:
        block.finish("done", output, 0.1)
        block.toggle()
        layout.append(block)
    shown = [layout.lines(index) for index in range(100)]
    found = blocks[99].search_text()
    layout.evict(0, 10, budget=layout.cached_lines // 2)
    assert blocks[0]._preview is not None and blocks[99]._preview is None
    assert blocks[99].search_text() == found and blocks[99].plain_text() == output
    assert layout.lines(99) == shown[99]
    unseen = ToolBlock("call_unseen", "read_file", "notes.md")  # a resumed row, never drawn
    unseen.finish("done", output, 0.1)
    assert unseen.search_text() == found and unseen.plain_text() == output
    assert unseen._preview is None
    huge = ToolBlock("call_huge", "bash", "cat big")
    huge.finish("done", "x\n" * (RAW_OUTPUT_LIMIT // 2 + 1))  # not kept raw: the preview is all there is
    huge.drop_render_cache()
    assert huge.preview is not None and huge.preview.total_lines == RAW_OUTPUT_LIMIT // 2 + 1


def test_blocks_share_one_interface() -> None:
    ctx = RenderContext(BlockStyles.plain())
    blocks: list[Block] = [
        UserBlock("hi"),
        AnswerBlock(),
        ReasoningBlock(),
        ToolBlock("c", "bash", "ls"),
        NoticeBlock("note", "decision"),
    ]
    for block in blocks:
        lines = block.render(20, ctx)
        assert block.measured_height(20) == len(lines)
        assert block.measured_height(21) is None
        assert block.estimate_height(10) >= 1
        block.drop_render_cache()
        assert not block.has_render_cache
    assert [block.expandable for block in blocks] == [False, False, True, True, False]


async def test_a_hidden_part_of_a_command_is_written_out_and_drawn_reversed() -> None:
    """A real ESC shows as a reversed ``\\x1b``; the four characters ``\\x1b`` typed in a command do not."""
    async with Host().run_test(size=(90, 10)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        tool = transcript.add(ToolBlock("c", "bash", "printf '\\x1b' # \x1b[2Kecho hello"))
        assert isinstance(tool, ToolBlock)
        transcript.refresh_block(tool)
        await settle(pilot)
        segments = list(transcript.render_line(0))
        row = "".join(segment.text for segment in segments)
        assert "printf '\\x1b' # \\x1b[2Kecho hello" in row
        reversed_text = "".join(s.text for s in segments if s.style is not None and s.style.reverse)
        assert reversed_text == "\\x1b"
