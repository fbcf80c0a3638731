"""Typing always reaches the prompt, and the transcript is read from the prompt: keys in, screen out."""

from __future__ import annotations

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import idle, make_app, notices, prompts, ready_app, screen_text, wait_for
from zett_tui.ui.app import ZettApp
from zett_tui.ui.widgets.transcript import ReasoningBlock


def long_transcript(app: ZettApp, lines: int = 120) -> None:
    for number in range(lines):
        app.chat.say(f"line {number:03}")
    app.chat.transcript.update_now()


async def test_after_a_click_on_the_transcript_letters_and_enter_go_to_the_prompt() -> None:
    model = ScriptedModel([text_step("Hello there.")])
    app = make_app(model)
    async with ready_app(app) as pilot:
        await pilot.click("#transcript")
        assert app.focused is app.chat.transcript
        await pilot.press("h", "i", "space", "y", "o", "u", "enter")
        await wait_for(pilot, lambda: prompts(app) == ["hi you"])
        await wait_for(pilot, lambda: idle(app))
        assert app.focused is app.chat.composer


async def test_tab_with_no_completion_keeps_the_focus_and_the_next_words() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        await pilot.press("a", "b", "tab", "tab", "c", "d")
        assert app.focused is app.chat.composer
        assert app.chat.composer.text == "abcd"


async def test_page_keys_scroll_the_transcript_from_the_prompt_and_ctrl_end_returns() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(80, 20)) as pilot:
        long_transcript(app)
        await pilot.pause()
        transcript = app.chat.transcript
        bottom = transcript.scroll_y
        assert bottom > 0 and "line 119" in screen_text(app)
        await pilot.press("pageup")
        assert app.focused is app.chat.composer
        assert transcript.scroll_y < bottom and "line 119" not in screen_text(app)
        await pilot.press("pagedown")
        assert transcript.scroll_y == bottom
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert transcript.scroll_y == 0 and "line 000" in screen_text(app)
        app.chat.say("something new")
        await pilot.pause()
        assert "new output (Ctrl+End)" in screen_text(app)  # the badge names the key that works
        await pilot.press("ctrl+end")
        await pilot.pause()
        shown = screen_text(app)
        assert "something new" in shown and "new output" not in shown


async def test_alt_arrows_select_and_expand_a_block_from_the_prompt() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(80, 20)) as pilot:
        reasoning = ReasoningBlock()
        reasoning.append("first thought\nsecond thought\nthird thought")
        reasoning.finish()
        app.chat.transcript.add(reasoning)
        app.chat.say("after it")
        await pilot.pause()
        assert "third thought" not in screen_text(app)  # collapsed to one line
        await pilot.press("alt+up")
        assert app.chat.transcript.selected_block is reasoning
        await pilot.press("alt+right")
        await pilot.pause()
        assert "third thought" in screen_text(app)
        await pilot.press("alt+left")
        await pilot.pause()
        assert "third thought" not in screen_text(app)
        assert app.focused is app.chat.composer and app.chat.composer.text == ""


async def test_f1_lists_the_reading_and_block_keys() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(120, 40)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: any(text.startswith("Commands:") for text in notices(app)))
        [help_text] = [text for text in notices(app) if text.startswith("Commands:")]
        for description in (
            "Scroll the transcript up a page",
            "Go to the latest output",
            "Select the previous tool row or reasoning block",
            "Expand the selected block",
        ):
            assert description in help_text


async def test_keys_posted_in_one_burst_are_applied_in_order() -> None:
    """As a terminal delivers a burst: every key is in the app's queue before the first is handled."""
    from textual import events

    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        burst = [*"abc", "backspace", *"d", "ctrl+j", *"ef", "left", "backspace", "right", *"g"]
        for key in burst:
            character = key if len(key) == 1 else {"ctrl+j": "\n", "backspace": "\x7f"}.get(key)
            app.post_message(events.Key(key, character))
        await wait_for(pilot, lambda: app.chat.composer.text.endswith("g"))
        assert app.chat.composer.text == "abd\nfg"


async def test_ctrl_d_after_keys_in_the_same_burst_deletes_instead_of_quitting() -> None:
    from textual import events

    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        for key, character in (("x", "x"), ("y", "y"), ("left", None), ("ctrl+d", "\x04")):
            app.post_message(events.Key(key, character))
        await wait_for(pilot, lambda: app.chat.composer.text == "x")
        await pilot.pause(0.1)
        assert app.is_running and app.chat.composer.text == "x"
