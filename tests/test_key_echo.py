"""A key typed into the prompt is drawn as soon as the prompt has handled it (``ui/speed/key_echo.py``),
not at the screen's next frame; what needs more than a repaint of the prompt waits for that frame."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from textual import events
from zett_agent.messages import AssistantMessage
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse

from tests.fakes.scripted_model import ScriptedModel, Step, usage
from tests.ui_helpers import answers, idle, make_app, ready_app, submit, wait_for
from zett_tui.ui import textual_compat
from zett_tui.ui.app import ZettApp
from zett_tui.ui.widgets.composer import Composer

#: A character no other part of the screen shows.
MARK = "ж"


def record_frames(app: ZettApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every update the app sends to its terminal, as the text (with escape codes) it would write."""
    frames: list[str] = []
    display = app._display

    def recording(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            frames.append(renderable.render_segments(app.console))
        display(screen, renderable)

    monkeypatch.setattr(app, "_display", recording)
    return frames


def check_after_each_key(
    monkeypatch: pytest.MonkeyPatch, check: Callable[[Composer, events.Key], None]
) -> None:
    """Run ``check`` right after the prompt has handled each key, before anything else runs."""
    handle = Composer._on_key

    async def handled(self: Composer, event: events.Key) -> None:
        await handle(self, event)
        check(self, event)

    monkeypatch.setattr(Composer, "_on_key", handled)


def stream_until(done: asyncio.Event, sent: list[str]) -> Step:
    """A model step that streams numbered pieces of text until ``done`` is set."""

    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        while not done.is_set():
            sent.append(f"Piece {len(sent)} streaming along. ")
            yield ModelEvent.text(sent[-1])
            await asyncio.sleep(0.001)
        message = AssistantMessage(content="".join(sent))
        yield ModelEvent.completed(ModelResponse(message, finish_reason="stop", usage=usage()))

    return step


def send_key(app: ZettApp, character: str) -> None:
    """As the terminal driver does (``pilot.press`` would wait for the app to be idle)."""
    driver = textual_compat.terminal_driver(app)
    assert driver is not None
    driver.send_message(events.Key(character, character))


async def test_a_key_typed_while_an_answer_streams_is_drawn_before_the_next_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done = asyncio.Event()
    sent: list[str] = []
    model = ScriptedModel(stream_until(done, sent))
    app = make_app(model)
    drawn_when_handled: list[bool] = []
    async with ready_app(app, size=(100, 30)) as pilot:
        frames = record_frames(app, monkeypatch)

        def check(composer: Composer, event: events.Key) -> None:
            if event.key == MARK:
                drawn_when_handled.append(any(MARK in frame for frame in frames))

        check_after_each_key(monkeypatch, check)
        await submit(pilot, "stream please")
        await wait_for(pilot, lambda: bool(answers(app)) and len(answers(app)[-1].text) > 200)
        assert answers(app)[-1].streaming
        frames.clear()
        send_key(app, MARK)
        await wait_for(pilot, lambda: bool(drawn_when_handled))
        assert app.chat.composer.text == MARK
        assert drawn_when_handled == [True]
        done.set()
        await wait_for(pilot, lambda: idle(app))
        assert answers(app)[-1].text == "".join(sent)  # the stream went on, whole and in order


async def test_without_the_immediate_echo_the_key_waits_for_the_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check above can fail: with the echo switched off, the key is not drawn when handled."""
    from zett_tui.ui.speed import key_echo

    monkeypatch.setattr(key_echo, "paint_now", lambda widget: False)
    app = make_app(ScriptedModel())
    drawn_when_handled: list[bool] = []
    async with ready_app(app) as pilot:
        frames = record_frames(app, monkeypatch)
        check_after_each_key(
            monkeypatch,
            lambda composer, event: drawn_when_handled.append(any(MARK in frame for frame in frames)),
        )
        send_key(app, MARK)
        await wait_for(pilot, lambda: bool(drawn_when_handled))
        assert drawn_when_handled == [False]
        await wait_for(pilot, lambda: any(MARK in frame for frame in frames))  # the next frame has it


async def test_the_immediate_echo_draws_the_prompt_only_and_leaves_the_rest_to_the_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app(ScriptedModel())
    seen: list[tuple[bool, bool]] = []
    async with ready_app(app) as pilot:
        transcript = app.chat.transcript
        frames = record_frames(app, monkeypatch)
        handle_key = Composer._handle_key

        async def handle_with_transcript_change(self: Composer, event: events.Key) -> None:
            await handle_key(self, event)
            if event.key == MARK:  # the transcript changed too, just before the echo
                transcript.refresh()
                app.screen._dirty_widgets.add(transcript)

        monkeypatch.setattr(Composer, "_handle_key", handle_with_transcript_change)

        def check(composer: Composer, event: events.Key) -> None:
            # what the transcript asked to redraw is still waiting for the screen's frame
            seen.append((any(MARK in frame for frame in frames), transcript in app.screen._dirty_widgets))

        check_after_each_key(monkeypatch, check)
        send_key(app, MARK)
        await wait_for(pilot, lambda: bool(seen))
        assert seen == [(True, True)]
        await wait_for(pilot, lambda: transcript not in app.screen._dirty_widgets)


async def test_a_key_that_changes_the_prompt_s_height_is_drawn_by_the_frame_after_its_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        composer.focus()
        composer.load_text("line one")
        await pilot.pause()
        height = composer.size.height
        results: list[bool] = []
        original = textual_compat.paint_now

        def paint_now(widget: Any) -> bool:
            results.append(original(widget))
            return results[-1]

        from zett_tui.ui.speed import key_echo

        monkeypatch.setattr(key_echo, "paint_now", paint_now)
        await pilot.press("ctrl+j")  # a new line: the box grows
        await wait_for(pilot, lambda: composer.size.height > height)
        assert results and results[-1] is False  # a layout was needed: left to the frame
        assert composer.text.count("\n") == 1 and "line one" in composer.text


async def test_a_burst_of_keys_is_drawn_at_most_once_per_gap_and_all_arrive() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        composer.focus()
        for character in "abcdefghij":
            send_key(app, character)
        await wait_for(pilot, lambda: composer.text == "abcdefghij")
        assert 1 <= composer._echo.drawn <= 10


async def test_the_immediate_echo_renders_the_prompt_alone_while_the_transcript_waits_for_its_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A partial update rendered every widget beside the region drawn (the whole transcript, its
    scrollbar, the status line) and kept only the prompt's rows: the echo renders the prompt alone."""
    from zett_tui.ui.speed import keys_first
    from zett_tui.ui.widgets.status_line import StatusLine
    from zett_tui.ui.widgets.transcript import Transcript

    # the transcript's frame waits for the key (speed/keys_first.py), however long it takes to the prompt
    monkeypatch.setattr(keys_first, "MAX_HOLD", 30.0)
    app = make_app(ScriptedModel())
    rendered: list[str] = []
    async with ready_app(app) as pilot:
        frames = record_frames(app, monkeypatch)
        for kind in (Transcript, StatusLine, Composer):
            original = kind.render_lines

            def counting(self: Any, crop: Any, original: Any = original) -> Any:
                rendered.append(type(self).__name__)
                return original(self, crop)

            monkeypatch.setattr(kind, "render_lines", counting)
        seen: list[list[str]] = []
        check_after_each_key(monkeypatch, lambda composer, event: seen.append(list(rendered)))
        app.chat.transcript.refresh()  # the transcript waits for a frame, as while an answer streams
        rendered.clear()
        frames.clear()
        send_key(app, MARK)
        await wait_for(pilot, lambda: bool(seen))
        assert any(MARK in frame for frame in frames)
        assert [set(widgets) for widgets in seen] == [
            {"Composer"}
        ]  # its row read again: speed/predicted_echo


async def test_the_immediate_echo_renders_what_is_in_front_of_the_prompt_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The completion menu drawn over the prompt: drawing the prompt alone would cover it."""
    from textual.geometry import Region

    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        composer = app.chat.composer
        compositor = app.chat._compositor
        visible = compositor.visible_widgets
        menu = app.chat.query_one("#completion-menu")
        front = {menu: (Region(0, visible[composer][0].y, 10, 1), app.chat.region), **visible}
        monkeypatch.setattr(compositor, "_visible_widgets", front)
        drawn: list[dict[Any, Any]] = []
        update = compositor.render_update

        def recording(*args: Any, **kwargs: Any) -> Any:
            drawn.append(dict(compositor._visible_widgets))
            return update(*args, **kwargs)

        monkeypatch.setattr(compositor, "render_update", recording)
        from zett_tui.ui.textual_compat import paint_now

        composer.refresh()
        composer._repaint_required = True
        paint_now(composer)
        await pilot.pause()
        assert drawn and menu in drawn[0] and len(drawn[0]) > 1
