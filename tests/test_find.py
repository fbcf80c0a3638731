"""Find in the transcript (Ctrl+F), from the user's side: keys in, what the screen shows out."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, make_app, ready_app, screen_text, submit, wait_for
from zett_tui.ui.app import ZettApp
from zett_tui.ui.widgets.find_bar import FindBar
from zett_tui.ui.widgets.transcript import AnswerBlock, ReasoningBlock, ToolBlock, Transcript, UserBlock

SIZE = (100, 30)


def fill(transcript: Transcript, turns: int, *, needle_every: int = 0) -> None:
    """`turns` finished turns: a prompt, a collapsed tool row with output, an answer.
    Every `needle_every`-th answer says "zebra" once (numbered, so each match can be told apart)."""
    for turn in range(turns):
        transcript.add(UserBlock(f"question {turn}"))
        tool = transcript.add(ToolBlock(f"t{turn}", "read_file", f"notes{turn}.txt"))
        tool.finish("done", "\n".join(f"line {n} of the notes" for n in range(5)), 0.1)
        answer = transcript.add(AnswerBlock())
        mention = f" The zebra number {turn} is here." if needle_every and turn % needle_every == 0 else ""
        answer.append(f"## Answer {turn}\n\nSome prose about **turn {turn}**.{mention}\n")
        answer.finish()


def bar(app: ZettApp) -> FindBar:
    return app.chat.query_one(FindBar)


def find_input(app: ZettApp) -> Input:
    return app.chat.query_one("#find-input", Input)


async def settle(pilot: Pilot[Any]) -> None:
    transcript = pilot.app.chat.transcript
    for _ in range(5):
        await pilot.pause()
        if not transcript.update_pending:
            break
    await pilot.pause()


def visible(app: ZettApp) -> str:
    return screen_text(app)


def view(transcript: Transcript) -> list[str]:
    """The transcript's lines on screen."""
    top = round(transcript.scroll_y)
    return [transcript.line_text(y) for y in range(top, top + transcript.scrollable_content_region.height)]


async def open_and_type(pilot: Pilot[Any], text: str) -> None:
    await pilot.press("ctrl+f")
    await wait_for(pilot, lambda: bar(pilot.app).is_open and find_input(pilot.app).has_focus)
    await pilot.press(*text)
    await settle(pilot)


async def test_ctrl_f_counts_matches_and_steps_through_them_with_wrap() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        fill(app.chat.transcript, 30, needle_every=10)  # zebra in turns 0, 10, 20
        await settle(pilot)
        await open_and_type(pilot, "zebra")
        assert bar(app).label == "3 of 3"  # nearest to the reader at the bottom: the last one
        assert "zebra number 20" in visible(app)
        await pilot.press("enter")  # next wraps to the first
        await settle(pilot)
        assert bar(app).label == "1 of 3"
        assert "zebra number 0" in visible(app)
        await pilot.press("enter")
        await settle(pilot)
        assert bar(app).label == "2 of 3"
        assert "zebra number 10" in visible(app)
        await pilot.press("shift+enter")
        await settle(pilot)
        assert bar(app).label == "1 of 3"
        await pilot.press("shift+f3")  # previous wraps to the last
        await settle(pilot)
        assert bar(app).label == "3 of 3"
        await pilot.press("f3")
        await settle(pilot)
        assert bar(app).label == "1 of 3"
        assert "1 of 3" in visible(app)


async def test_no_matches_and_smart_case() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        transcript.add(UserBlock("Config and config and CONFIG"))
        await settle(pilot)
        await open_and_type(pilot, "config")
        assert bar(app).label.endswith("of 3")  # lowercase: any case
        await pilot.press("backspace", *"x")
        await settle(pilot)
        assert bar(app).label == "no matches"
        assert "no matches" in visible(app)
        find_input(app).value = ""
        await pilot.press(*"Config")
        await settle(pilot)
        assert bar(app).label == "1 of 1"  # a capital: exact case


async def test_markdown_is_searched_as_shown() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        answer = app.chat.transcript.add(AnswerBlock())
        answer.append("The **two** files: [the guide](https://example.com/guide).\n")
        answer.finish()
        await settle(pilot)
        await open_and_type(pilot, "two files")
        assert bar(app).label == "1 of 1"
        find_input(app).value = ""
        await pilot.press(*"example.com")
        await settle(pilot)
        assert bar(app).label == "1 of 1"  # the URL is shown, so it is found


async def test_a_hit_in_collapsed_output_or_reasoning_expands_that_block() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        tool = transcript.add(ToolBlock("c1", "bash", "ls"))
        tool.finish("done", "alpha.txt\nneedle.txt\nomega.txt", 0.2)
        reasoning = transcript.add(ReasoningBlock())
        reasoning.append("first I think\nthen a haystack thought\n")
        reasoning.finish()
        fill(transcript, 20)
        await settle(pilot)
        assert not tool.expanded and not reasoning.expanded
        await open_and_type(pilot, "needle")
        assert bar(app).label == "1 of 1"
        assert tool.expanded
        assert "needle.txt" in visible(app)
        find_input(app).value = ""
        await pilot.press(*"haystack")
        await settle(pilot)
        assert reasoning.expanded
        assert not tool.expanded  # find collapses what it opened once the match moves on
        assert "then a haystack thought" in visible(app)
        await pilot.press("escape")
        await settle(pilot)
        assert not reasoning.expanded


async def test_escape_closes_and_returns_to_where_the_reader_was() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        fill(transcript, 40, needle_every=13)
        await settle(pilot)
        transcript.focus()
        await pilot.press("pageup", "pageup")
        await settle(pilot)
        before = view(transcript)
        assert not transcript.following
        await open_and_type(pilot, "zebra")
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert view(transcript) != before
        await pilot.press("escape")
        await settle(pilot)
        assert not bar(app).is_open
        assert view(transcript) == before
        assert transcript.has_focus  # focus goes back where it was


async def test_escape_at_the_bottom_goes_back_to_following() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        fill(transcript, 40, needle_every=13)
        await settle(pilot)
        assert transcript.following
        await open_and_type(pilot, "zebra number 0")
        assert round(transcript.scroll_y) < transcript.max_scroll_y
        await pilot.press("escape")
        await settle(pilot)
        assert transcript.following and round(transcript.scroll_y) == transcript.max_scroll_y
        assert app.chat.composer.has_focus
        assert "zebra" not in app.chat.composer.text  # Esc did not stop anything or type anything


async def test_find_works_while_a_turn_streams_and_the_view_stays_put() -> None:
    gate = asyncio.Event()
    first = "Streaming: the quokka arrives first.\n\n"
    rest = "".join(f"Paragraph {n} mentions a quokka again.\n\n" for n in range(40))
    app = make_app(ScriptedModel(text_step(first + rest, chunk=40, gate=gate, delay=0.01)))
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        fill(transcript, 10)
        await submit(pilot, "tell me about the animals")
        await wait_for(pilot, lambda: bool(answers(app)) and "quokka" in answers(app)[-1].text)
        await open_and_type(pilot, "quokka")
        assert bar(app).label == "1 of 1"
        held = round(transcript.scroll_y)
        gate.set()
        await wait_for(pilot, lambda: answers(app)[-1].status == "completed")
        await settle(pilot)
        assert bar(app).label == "1 of 41"  # the count follows the stream
        assert round(transcript.scroll_y) == held  # not pulled to the bottom by the stream
        assert "quokka" in visible(app)
        await pilot.press("escape")
        await settle(pilot)
        assert transcript.following and round(transcript.scroll_y) == transcript.max_scroll_y


def zebra_backgrounds(transcript: Transcript) -> list[Any]:
    """The background of each "zebra" drawn on the transcript's rows now."""
    found = []
    for y in range(transcript.scrollable_content_region.height):
        for segment in transcript.render_line(y):
            if segment.text.lower() == "zebra":
                found.append(segment.style.bgcolor if segment.style else None)
    return found


async def test_every_match_is_highlighted_and_the_current_one_stands_out() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        fill(transcript, 2, needle_every=1)
        await settle(pilot)
        await open_and_type(pilot, "zebra")
        match = transcript.get_component_rich_style("transcript--find-match").bgcolor
        current = transcript.get_component_rich_style("transcript--find-current").bgcolor
        assert match is not None and current is not None and match != current
        assert bar(app).label == "1 of 2"  # both on screen: the first one there
        assert zebra_backgrounds(transcript) == [current, match]
        await pilot.press("enter")
        await settle(pilot)
        assert zebra_backgrounds(transcript) == [match, current]
        await pilot.press("escape")
        await settle(pilot)
        assert not {match, current} & set(zebra_backgrounds(transcript))


async def test_ctrl_f_from_the_prompt_keeps_the_draft_and_typing_goes_to_the_find_field() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        fill(app.chat.transcript, 3, needle_every=1)
        await settle(pilot)
        await pilot.press(*"draft")
        await open_and_type(pilot, "zeb")
        assert find_input(app).value == "zeb"
        assert app.chat.composer.text == "draft"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("!")
        assert app.chat.composer.text == "draft!"
        await pilot.press("ctrl+f")  # the last query comes back, selected
        await settle(pilot)
        assert find_input(app).value == "zeb" and bar(app).label == "1 of 3"


def test_hits_are_placed_in_cells_with_wide_characters_and_smart_case() -> None:
    from zett_tui.ui.widgets.find_highlight import line_spans
    from zett_tui.ui.widgets.transcript_search import fold, is_case_sensitive

    line = (("日本 Zebra ", 1), ("zebra", 2))
    assert line_spans(line, "zebra", False) == [(5, 10), (11, 16)]  # 日本 is four cells
    assert line_spans(line, "Zebra", True) == [(5, 10)]
    assert is_case_sensitive("Zebra") and not is_case_sensitive("zebra 42")
    assert len(fold("İstanbul", False)) == len("İstanbul")


async def test_the_bar_keeps_its_query_field_in_a_narrow_terminal() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(50, 20)) as pilot:
        fill(app.chat.transcript, 3, needle_every=1)
        await settle(pilot)
        await open_and_type(pilot, "zebra")
        assert find_input(app).size.width >= 20
        assert "2 of 3" in visible(app) or "1 of 3" in visible(app)
        assert "Esc close" not in visible(app)


@pytest.mark.serial  # timed: what a keystroke's budget allows, then idle time
async def test_a_keystroke_counts_what_its_budget_allows_and_the_rest_follows_in_idle_time(
    monkeypatch: Any,
) -> None:
    from zett_tui.ui.widgets import transcript as transcript_module

    monkeypatch.setattr(transcript_module, "_FIND_KEY_BUDGET", 0.0)
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        fill(transcript, 30, needle_every=10)
        await settle(pilot)
        transcript.find("zebra")  # no block's text converted yet, and no time to convert any
        assert not transcript.find_complete and transcript.find_position == (0, 0)
        await wait_for(pilot, lambda: transcript.find_complete)
        assert transcript.find_position == (3, 3)
        await settle(pilot)
        assert "zebra number 20" in visible(app)


async def test_counted_a_block_per_idle_step_the_view_only_ever_goes_to_the_nearest_match(
    monkeypatch: Any,
) -> None:
    """The blocks a keystroke left uncounted are counted nearest first, and no match is shown until
    the nearest is known: the view does not visit a far match on the way."""
    from zett_tui.ui.widgets import transcript as transcript_module
    from zett_tui.ui.widgets import transcript_find

    monkeypatch.setattr(transcript_module, "_FIND_KEY_BUDGET", 0.0)
    monkeypatch.setattr(transcript_find, "_PREPARE_BUDGET", 0.0)  # one block converted per idle step
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        fill(transcript, 30, needle_every=10)
        await settle(pilot)
        moved_to: list[Any] = []
        move_view_to = transcript.move_view_to
        monkeypatch.setattr(
            transcript, "move_view_to", lambda anchor: (moved_to.append(anchor), move_view_to(anchor))
        )
        transcript.find("zebra")
        await wait_for(pilot, lambda: transcript.find_complete)
        assert transcript.find_position == (3, 3)
        answer_20 = next(
            i for i, block in enumerate(transcript.blocks) if "zebra number 20" in block.search_text()
        )
        assert {anchor[1] for anchor in moved_to} == {answer_20}
        await settle(pilot)
        assert "zebra number 20" in visible(app)


async def test_f1_lists_the_find_keys() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        keys = dict(app.chat.key_help())
        assert keys.get("Ctrl+F") == "Find in the transcript"
        assert "Next match" in keys.values() and "Previous match" in keys.values()
        await pilot.pause()


def highlighted_runs(transcript: Transcript) -> list[tuple[str, bool]]:
    """Each run of highlighted text on the transcript's rows now, top to bottom: (text, is current)."""
    match = transcript.get_component_rich_style("transcript--find-match").bgcolor
    current = transcript.get_component_rich_style("transcript--find-current").bgcolor
    runs: list[tuple[str, bool]] = []
    for y in range(transcript.scrollable_content_region.height):
        for segment in transcript.render_line(y):
            background = segment.style.bgcolor if segment.style else None
            if background in (match, current) and segment.text:
                runs.append((segment.text, background == current))
    return runs


def wrapped_at_the_edge(width: int) -> tuple[str, str]:
    """Two answers whose needle the transcript must break across two rows at ``width`` cells: a
    phrase wrapped at its space, and a word too long for a row, folded inside "needle"."""
    words = "lorem " * ((width - 8) // 6)  # "zebra" ends the first row, "crossing" starts the next
    folded = "a" * (width - 3) + "needle" + "b" * 20  # "nee" ends the first row
    return f"{words}zebra crossing ends here.\n", f"{folded}\n"


async def test_a_match_broken_by_a_soft_wrap_is_highlighted_on_both_rows() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        await settle(pilot)
        phrase, folded = wrapped_at_the_edge(transcript.scrollable_content_region.width)
        for text in (phrase, folded):
            answer = transcript.add(AnswerBlock())
            answer.append(text)
            answer.finish()
        await settle(pilot)
        lines = [line.rstrip() for line in view(transcript)]
        assert any(line.endswith("zebra") for line in lines)  # the case is what the test says
        assert any(line.endswith("aaanee") for line in lines)
        await open_and_type(pilot, "zebra crossing")
        assert bar(app).label == "1 of 1"
        assert highlighted_runs(transcript) == [("zebra", True), ("crossing", True)]
        find_input(app).value = ""
        await pilot.press(*"needle")
        await settle(pilot)
        assert bar(app).label == "1 of 1"
        assert highlighted_runs(transcript) == [("nee", True), ("dle", True)]


async def test_a_wrapped_match_that_is_not_current_is_highlighted_as_a_match() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        await settle(pilot)
        phrase, _folded = wrapped_at_the_edge(transcript.scrollable_content_region.width)
        for text in ("A zebra crossing first.\n", phrase):
            answer = transcript.add(AnswerBlock())
            answer.append(text)
            answer.finish()
        await settle(pilot)
        await open_and_type(pilot, "zebra crossing")
        assert bar(app).label == "1 of 2"
        assert highlighted_runs(transcript) == [
            ("zebra crossing", True),
            ("zebra", False),
            ("crossing", False),
        ]
        await pilot.press("enter")
        await settle(pilot)
        assert bar(app).label == "2 of 2"
        assert highlighted_runs(transcript) == [
            ("zebra crossing", False),
            ("zebra", True),
            ("crossing", True),
        ]


async def test_words_that_only_meet_across_two_separate_lines_are_not_a_match() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        tool = transcript.add(ToolBlock("c1", "bash", "ls"))
        tool.finish("done", "the zebra\ncrossing sign\na zebra crossing", 0.2)
        transcript.toggle_block(tool)  # rows of output, one under the other
        answer = transcript.add(AnswerBlock())
        answer.append("One zebra.\n\nCrossing the road.\n")
        answer.finish()
        await settle(pilot)
        assert "  │ the zebra" in [line.rstrip() for line in view(transcript)]
        await open_and_type(pilot, "zebra crossing")
        assert bar(app).label == "1 of 1"
        assert highlighted_runs(transcript) == [("zebra crossing", True)]


def plain_text_copies(transcript: Transcript) -> int:
    """Characters of the answers' plain text (find's conversion) and parsed tokens still held, and
    preview lines held by tool rows that are not drawn (their raw output is kept)."""
    held = 0
    for block in transcript.blocks:
        if isinstance(block, AnswerBlock):
            for chunk in block.document._chunks:
                held += len(chunk.text or "") + len(chunk.tokens or ())
        elif isinstance(block, ToolBlock) and not block.has_render_cache and block._preview is not None:
            held += len(block._preview.head) + len(block._preview.tail)
    return held


async def test_a_closed_find_leaves_no_second_copy_of_the_answers() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=SIZE) as pilot:
        transcript = app.chat.transcript
        fill(transcript, 120, needle_every=13)
        await settle(pilot)
        await open_and_type(pilot, "zebra")
        await pilot.press("enter")
        await settle(pilot)
        assert bar(app).label.endswith("of 10")
        await pilot.press("escape")
        await settle(pilot)
        assert plain_text_copies(transcript) == 0
        await open_and_type(pilot, "zebra")  # found again, from the source
        assert bar(app).label.endswith("of 10")


def test_a_finished_answer_keeps_its_source_once_after_find_converts_it() -> None:
    streamed, resumed = AnswerBlock(), AnswerBlock()
    for answer in (streamed, resumed):
        answer.append("## One\n\nSome **bold** prose.\n\n")
        if answer is streamed:
            answer.search_text()  # converted while it streams (find open)
        answer.append("```python\nprint('two')\n```\n\nThe end.\n")
        answer.finish()
        assert "print('two')" in answer.search_text()
        assert sum(len(chunk.text or "") + len(chunk.tokens or ()) for chunk in answer.document._chunks) == 0
