"""A typed character drawn from the driver's input thread (``ui/speed/predicted_echo.py``): drawn
only where the prompt will draw the same cells, and whatever happens to the key meanwhile, the
terminal ends up showing what the app means.

The driver hands each event over with ``App._post_message`` in its input thread; here the test
calls it itself, so the character is drawn there and then, and the key reaches the app only when
the test awaits what it returned. What the input thread writes is fed to the terminal mirror
(pyte), in order with the frames.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import pytest
from rich.style import Style
from textual import events
from textual.geometry import Region
from textual.keys import _character_to_key
from textual.screen import ModalScreen
from textual.widgets import Static

from tests.fakes.scripted_model import ScriptedModel
from tests.terminal_mirror import TerminalMirror, _cells
from tests.ui_helpers import make_app, ready_app, wait_for
from zett_tui.ui.speed import predicted_echo
from zett_tui.ui.speed.predicted_echo import ERASE, EchoSpot, EmptyPrompt, PredictedEcho

# -- the drawing, without an app ---------------------------------------------------------------------


def spot(x: int = 4, limit: int = 10) -> EchoSpot:
    return EchoSpot(x, 2, limit, lambda character: f"<{character}>", "[cursor]")


def test_a_character_is_drawn_at_the_cursor_and_the_cursor_moves_on() -> None:
    written: list[str] = []
    echo = PredictedEcho(written.append)
    echo.publish(spot())
    echo.arrived("event a", "a")
    echo.arrived("event b", "b")
    assert written == ["\x1b[3;5H<a>[cursor]\x1b[3;6H", "\x1b[3;6H<b>[cursor]\x1b[3;7H"]
    assert echo.handled("event a") == [Region(4, 2, 2, 1)]
    assert echo.handled("event b") == [Region(5, 2, 2, 1)]


def test_backspace_is_drawn_over_the_characters_known_to_be_there_and_no_further() -> None:
    """Backspace erases what the last frame showed before the cursor, then what was drawn since;
    never the last character (the app draws its placeholder then)."""
    written: list[str] = []
    echo = PredictedEcho(written.append)
    echo.publish(replace(spot(), erasable=1))
    echo.arrived("x", "x")
    for event in ("erase 1", "erase 2", "erase 3"):
        echo.arrived(event, ERASE)
    assert written == [
        "\x1b[3;5H<x>[cursor]\x1b[3;6H",
        "\x1b[3;5H[cursor]< >\x1b[3;5H",
        "\x1b[3;4H[cursor]< >\x1b[3;4H",
    ]
    assert echo.handled("erase 2") == [Region(3, 2, 2, 1)]
    assert echo.handled("erase 3") == []


def test_in_the_empty_prompt_the_first_character_typed_is_not_erased_ahead() -> None:
    written: list[str] = []
    echo = PredictedEcho(written.append)
    echo.publish(replace(spot(), clear="[blanks]", erasable=-1))
    echo.arrived("h", "h")
    echo.arrived("erase", ERASE)
    assert written == ["\x1b[3;5H<h>[cursor][blanks]\x1b[3;6H"]


def emptied(x: int = 4) -> EmptyPrompt:
    return EmptyPrompt(x, 2, 10, "Ask", (Style(), Style()), "[Ask]")


def test_backspace_over_the_only_character_draws_the_empty_prompt_back() -> None:
    """Typed over the placeholder, then erased: the empty prompt's row as last drawn comes back, and
    the next character replaces the placeholder again."""
    written: list[str] = []
    echo = PredictedEcho(written.append)
    echo.publish(replace(spot(), clear="[blanks]", erasable=-1, emptied=emptied()))
    echo.arrived("h", "h")
    echo.arrived("erase", ERASE)
    echo.arrived("i", "i")
    assert written == [
        "\x1b[3;5H<h>[cursor][blanks]\x1b[3;6H",
        "\x1b[3;5H[Ask]\x1b[3;5H",
        "\x1b[3;5H<i>[cursor]<    >\x1b[3;6H",
    ]
    assert echo.handled("erase") == [Region(4, 2, 6, 1)]


def test_backspace_empties_the_prompt_only_over_its_only_character() -> None:
    """Two characters with the first not known to be there, or the cursor not just after the
    empty prompt's first cell: nothing to draw back."""
    for published in (
        replace(spot(x=6), erasable=0, emptied=emptied(), length=2),
        replace(spot(x=6), erasable=0, emptied=emptied(), length=1),
    ):
        written: list[str] = []
        echo = PredictedEcho(written.append)
        echo.publish(published)
        echo.arrived("erase", ERASE)
        assert written == []


def test_nothing_is_drawn_up_to_the_prompt_s_edge() -> None:
    """The character and the cursor after it stay inside, with a cell to spare: a prompt wraps its
    line before its last column, and a guess that wrapped would be wrong."""
    written: list[str] = []
    echo = PredictedEcho(written.append)
    echo.publish(spot(x=6, limit=10))
    for key in "abcd":
        echo.arrived(key, key)
    assert len(written) == 2  # at 6 and 7; the cursor would reach the edge after 8


def test_any_other_event_stops_the_drawing_until_a_frame_after_it() -> None:
    written: list[str] = []
    echo = PredictedEcho(written.append)
    echo.publish(spot())
    echo.arrived("left", None)  # a key that types nothing: the cursor may move anywhere
    echo.arrived("a", "a")
    echo.publish(spot())  # a frame drawn before the two events were handled: not where it goes
    echo.arrived("b", "b")
    assert written == []
    for event in ("left", "a", "b"):
        echo.handled(event)
    echo.publish(spot(x=5))
    echo.arrived("c", "c")
    assert written == ["\x1b[3;6H<c>[cursor]\x1b[3;7H"]


@pytest.mark.parametrize("character", ["é", "日", "\t", "\x7f", "ab"])
def test_only_single_printable_ascii_characters_are_drawn(character: str) -> None:
    written: list[str] = []
    echo = PredictedEcho(written.append)
    echo.publish(spot())
    echo.arrived(character, character)
    assert written == []


def test_an_event_that_never_reaches_the_loop_stops_nothing_for_long(monkeypatch: pytest.MonkeyPatch) -> None:
    """An event dropped on the way (its widget gone) is forgotten after ``LOST_AFTER``: its cells
    are repainted with the next event handled, and frames are read again."""
    written: list[str] = []
    echo = PredictedEcho(written.append)
    echo.publish(spot())
    echo.arrived("lost", "a")
    clock = [time.monotonic()]
    monkeypatch.setattr(predicted_echo.time, "monotonic", lambda: clock[0])
    echo.arrived("next", None)
    assert echo.handled("next") == []  # the lost one still counts: not long enough
    clock[0] += predicted_echo.LOST_AFTER + 0.1
    echo.arrived("later", None)
    assert echo.handled("later") == [Region(4, 2, 2, 1)]
    echo.publish(spot(x=5))
    echo.arrived("b", "b")
    assert len(written) == 2


# -- in the app ----------------------------------------------------------------------------------------


class Mirrored:
    """The app's frames and what its input thread draws, fed to one terminal mirror in order."""

    def __init__(self, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.app = app
        self.mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.chat.composer.region)
        monkeypatch.setattr(app._predicted_echo, "_write", self.mirror.stream.feed)
        app._predicted_echo.enabled = True  # a terminal to draw on: the mirror

    def row(self, y: int) -> list[Any]:
        return _cells(self.mirror.screen, y)

    async def type_ahead(self, character: str) -> Any:
        """``character`` as the driver reads it (``ERASE``: Backspace): drawn now if it can be; the
        key reaches the app when the result is awaited."""
        if character == ERASE:
            return self.app._post_message(events.Key("backspace", "\x7f"))
        return self.app._post_message(events.Key(_character_to_key(character), character))

    async def left_to_the_app(self, pilot: Any, character: str, text: str) -> None:
        """``type_ahead``: not drawn, and once handled the prompt holds ``text``, the terminal
        showing what the app means."""
        drawn = self.app._predicted_echo.drawn
        await (await self.type_ahead(character))
        await wait_for(pilot, lambda: self.app.chat.composer.text == text)
        assert self.app._predicted_echo.drawn == drawn
        await settled(pilot, self)

    async def drawn_ahead(self, character: str) -> Any:
        """``type_ahead``, and the character was drawn."""
        drawn = self.app._predicted_echo.drawn
        hand_over = await self.type_ahead(character)
        assert self.app._predicted_echo.drawn == drawn + 1, "not drawn from the input thread"
        return hand_over


@asynccontextmanager
async def after_abc(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Any, Any, Mirrored]]:
    """The app, mirrored, with "abc" typed in the prompt: the pilot, the app and the mirror."""
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        mirrored = Mirrored(app, monkeypatch)
        await empty_prompt_read(pilot, app)
        await pilot.press(*"abc")
        await pilot.pause(0.1)
        yield pilot, app, mirrored


async def empty_prompt_read(pilot: Any, app: Any) -> None:
    """A frame of the empty prompt drawn and read (Backspace over the last character draws it back)."""
    look = app._prompt_look
    look._empty = None

    def read() -> bool:
        app.chat.composer.refresh()
        return look._empty is not None

    await wait_for(pilot, read, timeout=5)


async def drawn_then_handled(pilot: Any, mirrored: Mirrored, text: str) -> tuple[list[Any], list[Any]]:
    """Types ``text`` ahead: the prompt's row as drawn from the input thread, then once the app has
    handled the keys and drawn its frame."""
    app = pilot.app
    y = app.chat.composer.cursor_screen_offset.y
    before = app._predicted_echo.drawn
    hand_overs = [await mirrored.type_ahead(character) for character in text]
    assert app._predicted_echo.drawn == before + len(text), "not drawn from the input thread"
    guessed = mirrored.row(y)
    typed_before = app.chat.composer.text
    for hand_over in hand_overs:
        await hand_over
    await wait_for(
        pilot, lambda: app.chat.composer.text.endswith(text) and app.chat.composer.text != typed_before
    )
    await pilot.pause(0.1)
    return guessed, mirrored.row(y)


async def settled(pilot: Any, mirrored: Mirrored) -> None:
    await pilot.pause(0.2)
    mirrored.mirror.settled()
    assert mirrored.mirror.differences == []


async def test_characters_typed_after_text_are_drawn_as_the_prompt_draws_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        guessed, drawn = await drawn_then_handled(pilot, mirrored, "de f")
        assert guessed == drawn
        assert app.chat.composer.text == "abcde f"
        await settled(pilot, mirrored)


@pytest.mark.parametrize("typed", ["abc", ""])
async def test_a_character_typed_while_the_cursor_blinked_off_shows_it_again_as_the_prompt_does(
    monkeypatch: pytest.MonkeyPatch, typed: str
) -> None:
    """A key shows the cursor again (the prompt wakes it): drawn ahead with the cursor's look read
    while it was shown, after text and in the empty prompt."""
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        composer = app.chat.composer
        composer.text = typed
        composer.move_cursor(composer.document.end)
        await pilot.pause(0.1)
        composer._cursor_visible = False  # the blink's off phase
        composer.refresh()
        await pilot.pause(0.1)
        assert app._prompt_look.spot(composer) is not None
        guessed, drawn = await drawn_then_handled(pilot, mirrored, "d")
        assert guessed == drawn
        await settled(pilot, mirrored)


async def test_backspace_is_drawn_as_the_prompt_draws_it(monkeypatch: pytest.MonkeyPatch) -> None:
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        y = app.chat.composer.cursor_screen_offset.y
        hand_overs = [await mirrored.drawn_ahead(ERASE), await mirrored.drawn_ahead(ERASE)]
        guessed = mirrored.row(y)
        for hand_over in hand_overs:
            await hand_over
        await wait_for(pilot, lambda: app.chat.composer.text == "a")
        await pilot.pause(0.1)
        assert guessed == mirrored.row(y)


@pytest.mark.parametrize("frame_between", [True, False])
async def test_backspace_over_the_only_character_draws_the_placeholder_back_as_the_prompt_does(
    monkeypatch: pytest.MonkeyPatch, frame_between: bool
) -> None:
    """The placeholder comes back as last drawn, cursor and all: after a frame that showed the
    character, and typed and erased ahead of any frame."""
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        mirrored = Mirrored(app, monkeypatch)
        await empty_prompt_read(pilot, app)
        y = app.chat.composer.cursor_screen_offset.y
        empty_row = mirrored.row(y)
        typed = await mirrored.drawn_ahead("a")
        if frame_between:
            await typed
            await wait_for(pilot, lambda: app.chat.composer.text == "a")
            await pilot.pause(0.1)
        erased = await mirrored.drawn_ahead(ERASE)
        guessed = mirrored.row(y)
        assert guessed == empty_row
        if not frame_between:
            await typed
        await erased
        await wait_for(pilot, lambda: app.chat.composer.text == "")
        await pilot.pause(0.1)
        assert mirrored.row(y) == guessed
        await settled(pilot, mirrored)


async def test_the_placeholder_is_not_drawn_back_once_another_one_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A turn started while the prompt held text: emptied, it shows the turn's placeholder, not
    the one last drawn."""
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        await pilot.press("backspace", "backspace")
        app.chat.composer.show_turn_running(True)
        await pilot.pause(0.1)
        await mirrored.left_to_the_app(pilot, ERASE, "")


@pytest.mark.parametrize("change", ["resize", "theme"])
async def test_the_placeholder_is_not_drawn_back_where_the_prompt_moved_or_changed_its_look(
    monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        await pilot.press("backspace", "backspace")
        if change == "resize":
            await pilot.resize_terminal(90, 30)
        else:
            app.theme = "zett-light" if app.theme != "zett-light" else "zett-dark"
        await pilot.pause(0.2)
        mirrored.mirror.rows = lambda app: Region(0, 0, *app.size)
        await mirrored.left_to_the_app(pilot, ERASE, "")


async def test_backspace_after_a_paste_s_placeholder_is_left_to_the_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Backspace deletes a large paste's placeholder whole: not one cell to draw ahead."""
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        composer = app.chat.composer
        await pilot.press("space")
        composer.post_message(events.Paste("\n".join(f"line {n}" for n in range(40))))
        await wait_for(pilot, lambda: "Pasted" in composer.text)
        await pilot.pause(0.1)
        assert composer.single_erases(10) == 0
        await mirrored.left_to_the_app(pilot, ERASE, "abc ")


async def test_the_first_character_replaces_the_placeholder_as_the_prompt_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The empty prompt shows its placeholder, not the text's style: the style is the one read while
    the prompt last held text."""
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        mirrored = Mirrored(app, monkeypatch)
        await pilot.press("x", "backspace")
        await wait_for(pilot, lambda: app.chat.composer.text == "")
        await pilot.pause(0.1)
        guessed, drawn = await drawn_then_handled(pilot, mirrored, "h")
        assert guessed == drawn
        await settled(pilot, mirrored)


@pytest.mark.parametrize("theme", ["zett-dark", "zett-light", "zett-high-contrast"])
async def test_the_first_character_ever_typed_is_drawn_as_the_prompt_draws_it(
    monkeypatch: pytest.MonkeyPatch, theme: str
) -> None:
    """Before the prompt has held text, its text's style is the prompt's own, in every bundled theme."""
    app = make_app(ScriptedModel(), theme=theme)
    async with ready_app(app) as pilot:
        mirrored = Mirrored(app, monkeypatch)
        await wait_for(pilot, lambda: app._prompt_look.spot(app.chat.composer) is not None)  # not blinked off
        await pilot.pause(0.05)
        guessed, drawn = await drawn_then_handled(pilot, mirrored, "a")
        assert guessed == drawn
        await settled(pilot, mirrored)


async def test_nothing_is_drawn_while_text_is_selected(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        mirrored = Mirrored(app, monkeypatch)
        await pilot.press("a", "b", "shift+left")
        await pilot.pause(0.1)
        await mirrored.left_to_the_app(pilot, "c", "ac")  # replaces the selection: not at the cursor


async def test_a_character_that_never_reaches_the_text_is_drawn_again_as_the_prompt_shows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual lets no binding take a printable key from a focused text area, and the prompt's own
    keys are not printable: here the prompt is made to swallow one, as anything unforeseen might.
    The cells drawn for it are drawn again, with the prompt as it is."""
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        composer = app.chat.composer
        take_key = composer._take_key

        async def swallow_percent(event: events.Key) -> None:
            if event.character == "%":
                event.stop()
                event.prevent_default()
                return
            await take_key(event)

        monkeypatch.setattr(composer, "_take_key", swallow_percent)
        await (await mirrored.drawn_ahead("%"))
        await pilot.pause(0.2)
        assert composer.text == "abc"
        await settled(pilot, mirrored)


class Cover(ModalScreen[None]):
    """A dialog over the whole screen, the prompt's row included."""

    DEFAULT_CSS = "Cover { background: red; } Cover Static { width: 100%; height: 100%; }"

    def compose(self) -> Any:
        yield Static("covered " * 400)


async def test_a_dialog_opened_before_the_key_arrives_is_drawn_again_where_the_character_went(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The character was drawn, then a dialog opened (a tool asks for approval, say) before the loop
    took the key: the dialog takes it, and its cells are drawn again from the dialog."""
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        hand_over = await mirrored.drawn_ahead("d")
        await app.push_screen(Cover())
        await hand_over
        await pilot.pause(0.2)
        mirrored.mirror.rows = lambda app: Region(0, 0, *app.size)
        await settled(pilot, mirrored)
        assert app.chat.composer.text == "abc"


async def test_a_theme_switched_before_the_key_arrives_is_drawn_in_the_new_theme(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        hand_over = await mirrored.drawn_ahead("d")
        app.theme = "zett-light" if app.theme != "zett-light" else "zett-dark"
        await hand_over
        await wait_for(pilot, lambda: app.chat.composer.text == "abcd")
        await settled(pilot, mirrored)


async def test_a_resize_before_the_key_arrives_leaves_nothing_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    async with after_abc(monkeypatch) as (pilot, app, mirrored):
        hand_over = await mirrored.drawn_ahead("d")
        await pilot.resize_terminal(90, 30)
        await hand_over
        await wait_for(pilot, lambda: app.chat.composer.text == "abcd")
        await settled(pilot, mirrored)
