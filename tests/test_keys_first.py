"""While a typed key is on its way to the prompt, the chat screen's frames wait for it
(``ui/speed/keys_first.py``); nothing they would have drawn is lost, and a key that never reaches
the prompt holds them back only briefly."""

from __future__ import annotations

import asyncio

import pytest
from textual import events

from tests.fakes.scripted_model import ScriptedModel
from tests.test_key_echo import record_frames, send_key, stream_until
from tests.ui_helpers import answers, idle, make_app, ready_app, screen_text, submit, wait_for
from zett_tui.ui.chat.screen import ChatScreen
from zett_tui.ui.speed import keys_first
from zett_tui.ui.speed.keys_first import KeysInFlight
from zett_tui.ui.widgets.composer import Composer
from zett_tui.ui.widgets.transcript_blocks import NoticeBlock

MARK = "ж"
SHOWN = "Drawn by the transcript's frame"


def frame_due_before_the_prompt_handles_keys(
    chat: ChatScreen, frames: list[str], monkeypatch: pytest.MonkeyPatch, log: list[str]
) -> None:
    """Just before the prompt handles a key, the transcript changes and the screen's update timer
    ticks (as it does many times a second while an answer streams); ``log`` says what happened."""
    handle = Composer._on_key

    async def handled(self: Composer, event: events.Key) -> None:
        if event.key == MARK:
            chat.transcript.add(NoticeBlock(SHOWN))
            chat.transcript.update_now()
            chat.transcript.refresh()
            chat._dirty_widgets.add(chat.transcript)
            before = len(frames)
            chat._on_timer_update()
            log.append(f"tick drew {len(frames) - before}")
        await handle(self, event)
        log.append(f"handled {event.key}")

    monkeypatch.setattr(Composer, "_on_key", handled)


async def test_a_frame_due_while_a_key_is_on_its_way_waits_until_the_prompt_has_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(keys_first, "MAX_HOLD", 30.0)  # a loaded machine may take a while to the prompt
    app = make_app(ScriptedModel())
    log: list[str] = []
    async with ready_app(app) as pilot:
        frames = record_frames(app, monkeypatch)
        frame_due_before_the_prompt_handles_keys(app.chat, frames, monkeypatch, log)
        send_key(app, MARK)
        await wait_for(pilot, lambda: f"handled {MARK}" in log)
        assert log == ["tick drew 0", f"handled {MARK}"]  # the key was on its way: the tick waited
        assert app.chat.keys_in_flight.frames_held >= 1
        await wait_for(pilot, lambda: any(SHOWN in frame for frame in frames))  # what waited is drawn
        assert app.chat.composer.text == MARK


async def test_without_the_hold_the_frame_is_drawn_before_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a tick that does not wait draws the transcript before the key."""
    monkeypatch.setattr(KeysInFlight, "hold_frame", lambda self: False)
    app = make_app(ScriptedModel())
    log: list[str] = []
    async with ready_app(app) as pilot:
        frames = record_frames(app, monkeypatch)
        frame_due_before_the_prompt_handles_keys(app.chat, frames, monkeypatch, log)
        send_key(app, MARK)
        await wait_for(pilot, lambda: f"handled {MARK}" in log)
        assert log == ["tick drew 1", f"handled {MARK}"]


async def test_keys_typed_while_an_answer_streams_all_arrive_and_the_answer_is_whole() -> None:
    done = asyncio.Event()
    sent: list[str] = []
    app = make_app(ScriptedModel(stream_until(done, sent)))
    async with ready_app(app, size=(100, 30)) as pilot:
        await submit(pilot, "stream please")
        await wait_for(pilot, lambda: bool(answers(app)) and len(answers(app)[-1].text) > 200)
        for character in "abcdefgh":
            send_key(app, character)
            await asyncio.sleep(0.005)
        await wait_for(pilot, lambda: app.chat.composer.text == "abcdefgh")
        done.set()
        await wait_for(pilot, lambda: idle(app))
        assert answers(app)[-1].text == "".join(sent)
        assert not app.chat.keys_in_flight.hold_frame()  # every key was handled: frames flow


class _Focused:
    has_focus = True


def in_flight() -> KeysInFlight:
    """Keys in flight for a prompt that has the focus."""
    keys = KeysInFlight()
    keys.prompt = _Focused()  # type: ignore[assignment]
    return keys


def test_a_key_that_never_reaches_the_prompt_holds_frames_back_briefly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(keys_first.time, "perf_counter", lambda: now[0])
    keys = in_flight()
    assert not keys.hold_frame()
    keys.arrived()  # a binding takes it: the prompt never says it handled it
    assert keys.hold_frame()
    now[0] += keys_first.MAX_HOLD + 0.001
    assert not keys.hold_frame()
    assert not keys.hold_frame()  # and it is forgotten


def test_two_keys_on_their_way_hold_frames_until_both_are_handled() -> None:
    keys = in_flight()
    keys.arrived()
    keys.arrived()
    keys.handled()
    assert keys.hold_frame()
    keys.handled()
    assert not keys.hold_frame()
    keys.handled()  # a paste or a key sent to the prompt directly: never below nothing
    keys.arrived()
    assert keys.hold_frame()


async def test_a_transcript_update_waits_while_a_key_is_on_its_way_and_then_shows_everything_in_order() -> (
    None
):
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        transcript = app.chat.transcript
        assert transcript.hold_updates == app.chat.keys_in_flight.waiting  # the chat wires it
        held = [True]
        transcript.hold_updates = lambda: held[0]
        synced = transcript.sync_count
        for number in range(3):
            transcript.add(NoticeBlock(f"line {number} of the held update"))
        for _ in range(5):
            await pilot.pause(0.01)
        assert transcript.sync_count == synced  # the update is still waiting
        held[0] = False
        await wait_for(pilot, lambda: transcript.sync_count > synced)
        texts = [block.text for block in transcript.blocks if isinstance(block, NoticeBlock)]
        assert texts[-3:] == [f"line {number} of the held update" for number in range(3)]
        await wait_for(pilot, lambda: "line 2 of the held update" in screen_text(app))


async def test_a_key_is_counted_in_the_driver_s_thread_before_the_loop_takes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The terminal driver makes the app's ``_post_message`` coroutine in its input thread: the key is
    counted there, so frames due in the loop's turns before the app's queue takes it wait too."""
    monkeypatch.setattr(keys_first, "MAX_HOLD", 30.0)  # a loaded machine may take a while in between
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        keys = app.chat.keys_in_flight
        handing_over = await asyncio.to_thread(app._post_message, events.Key(MARK, MARK))
        assert keys.waiting()  # counted, though the loop has not run the hand-over yet
        assert await handing_over
        await wait_for(pilot, lambda: app.chat.composer.text == MARK)
        assert not keys.waiting()


async def test_keys_that_bindings_take_hold_nothing_back() -> None:
    """Esc stops a turn and Ctrl+C clears or stops: what they change is drawn at the next frame."""
    app = make_app(ScriptedModel())
    async with ready_app(app):
        keys = app.chat.keys_in_flight
        for key, character in (("escape", "\x1b"), ("ctrl+c", "\x03"), ("enter", "\r")):
            handing_over = await asyncio.to_thread(app._post_message, events.Key(key, character))
            assert not keys.waiting(), key
            handing_over.close()  # not handed over: the app is not asked to act on it


async def test_a_key_for_another_field_than_the_prompt_holds_nothing_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The find bar (or a dialog) has the focus: its keys do not wait for the prompt."""
    from textual.widgets import Input

    monkeypatch.setattr(keys_first, "MAX_HOLD", 30.0)  # a loaded machine may take a while in between
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        keys = app.chat.keys_in_flight
        field = Input(id="another-field")
        await app.chat.mount(field)
        field.focus()
        await wait_for(pilot, lambda: field.has_focus)
        handing_over = await asyncio.to_thread(app._post_message, events.Key(MARK, MARK))
        assert not keys.waiting()
        assert await handing_over
        app.chat.composer.focus()
        await wait_for(pilot, lambda: app.chat.composer.has_focus)
        handing_over = await asyncio.to_thread(app._post_message, events.Key("b", "b"))
        assert keys.waiting()  # the prompt has the focus again: counted
        assert await handing_over


async def test_the_prompt_tells_whom_it_was_given_of_each_key_it_handled() -> None:
    """The prompt is handed what to tell (``key_handled``), not looking for it on its screen: a
    prompt on any screen reports its keys, and one given nothing still takes them."""
    from textual.app import App, ComposeResult

    told: list[str] = []

    class TwoPrompts(App[None]):
        def compose(self) -> ComposeResult:
            yield Composer(id="reporting", key_handled=lambda _key: told.append("handled"))
            yield Composer(id="alone")

    app = TwoPrompts()
    async with app.run_test() as pilot:
        reporting, alone = app.query_one("#reporting", Composer), app.query_one("#alone", Composer)
        reporting.focus()
        await pilot.press("a", "b")
        await wait_for(pilot, lambda: reporting.text == "ab")
        assert told == ["handled", "handled"]
        alone.focus()
        await pilot.press("c")
        await wait_for(pilot, lambda: alone.text == "c")
        assert told == ["handled", "handled"]


def test_other_threads_read_whether_a_key_is_pending_without_settling_it() -> None:
    """The warm-up's import thread asks (``import_pauses``); only the loop counts keys handled."""
    keys = KeysInFlight()
    keys.prompt = type("Focused", (), {"has_focus": True})()  # type: ignore[assignment]
    keys.arrived()
    assert keys.pending()
    keys._since -= keys_first.MAX_PENDING * 2  # a key a binding took: no longer pending
    assert not keys.pending()
    assert keys._handled == 0
    keys.handled()
    assert not keys.pending()


def test_a_key_read_before_the_prompt_is_mounted_counts() -> None:
    """The app holds such keys for the prompt (``ZettApp.on_mount``): the warm-up's imports and the
    first frames wait for them too."""
    keys = KeysInFlight()
    keys.arrived()
    assert keys.waiting() and keys.pending()
