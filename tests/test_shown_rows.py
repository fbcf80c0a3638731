"""A dialog drawn whole again writes only what the terminal does not show as it is
(``zett_tui/ui/speed/shown_rows.py``), and the terminal still shows the dialog exactly: checked
against a terminal emulator fed every byte (``tests/terminal_mirror.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.segment import Segment
from textual import events
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Static

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.terminal_mirror import TerminalMirror
from tests.test_dialogs import QUESTION, ask
from tests.test_session_browser import browser_showing_a_session, three_sessions
from tests.ui_helpers import make_app, ready_app, submit, wait_for
from zett_tui.ui.modals.theme_picker import ThemePicker
from zett_tui.ui.speed.shown_rows import ChangedChops, RememberedChops, ShownChops, _written_chops
from zett_tui.ui.textual_compat import ChopsUpdate, LayoutUpdate
from zett_tui.ui.themes import DARK_THEME, HIGH_CONTRAST_THEME, LIGHT_THEME


def frames_of(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """From now on, each frame's kind and the bytes it writes."""
    frames: list[tuple[str, int]] = []
    display = app._display

    def counted(screen: Any, renderable: Any) -> None:
        display(screen, renderable)  # the mirror (watching before this) rendered it for the terminal
        if renderable is not None:
            kind = "whole" if isinstance(renderable, LayoutUpdate) else "part"
            frames.append((kind, len(renderable.render_segments(app.console))))

    monkeypatch.setattr(app, "_display", counted)
    return frames


def dialog_app() -> Any:
    return make_app(ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("HTML it is.")))


async def chat_settled(app: Any, pilot: Any) -> None:
    """The chat with its session open and labelled. A dialog opened while a change of the chat is
    still on its way draws the chat under it as it was (Textual's, seen with the tree before this
    module too): a test of what the dialog writes waits for the chat first."""
    app.chat.composer.cursor_blink = False
    await wait_for(pilot, lambda: app.chat.host is not None and bool(app.chat.status.session_id))
    await pilot.pause(0.3)


async def test_a_dialog_opening_draws_its_second_whole_frame_as_what_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = dialog_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await chat_settled(app, pilot)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        frames = frames_of(app, monkeypatch)
        await ask(app, pilot)
        await pilot.pause(0.3)
        mirror.settled()
    whole = [size for kind, size in frames if kind == "whole"]
    assert len(whole) == 2, frames  # shown, then again once its widgets report mounted (Textual's)
    assert whole[1] < whole[0] / 4, whole
    assert not mirror.differences, mirror.differences[:2]  # and the terminal shows the dialog as it is
    assert mirror.checked > 0


async def test_back_from_a_suspend_a_dialog_is_drawn_whole_again(monkeypatch: pytest.MonkeyPatch) -> None:
    app = dialog_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await chat_settled(app, pilot)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        await ask(app, pilot)
        await pilot.pause(0.3)
        mirror.settled()
        assert not mirror.differences, mirror.differences[:2]  # the dialog as it was before the suspend
        checked = mirror.checked
        mirror.screen.reset()  # the terminal was the shell's meanwhile
        app._resumed(app)  # what the app does when Textual says it is back
        await pilot.pause(0.3)
        mirror.settled()
    assert not mirror.differences, mirror.differences[:2]  # every row of it drawn again
    assert mirror.checked > checked


class Cover(ModalScreen[None]):
    """A screen over the dialog that draws its own rows."""

    def compose(self) -> Any:
        yield Static("covering\n" * 10)


async def test_after_another_screen_drew_the_dialog_draws_everything_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = dialog_app()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await ask(app, pilot)
        await pilot.pause(0.3)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        app.push_screen(Cover())
        await wait_for(pilot, lambda: isinstance(app.screen, Cover))
        await pilot.pause(0.2)
        app.pop_screen()
        await wait_for(pilot, lambda: app.screen is dialog)
        await pilot.pause(0.3)
        mirror.settled()
    assert not mirror.differences, mirror.differences[:2]
    assert mirror.checked > 0


async def test_the_session_browser_opening_draws_its_second_whole_frame_as_what_changed(
    monkeypatch: pytest.MonkeyPatch, project_dir: Path, tmp_path: Path
) -> None:
    await three_sessions(project_dir, tmp_path / "elsewhere")
    app = make_app(ScriptedModel())
    async with ready_app(app) as pilot:
        app.chat.composer.cursor_blink = False
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        frames = frames_of(app, monkeypatch)
        await browser_showing_a_session(pilot)
        await pilot.pause(0.3)
        mirror.settled()
    whole = [size for kind, size in frames if kind == "whole"]
    assert whole and max(whole[1:], default=0) < 1000, frames  # drawn once; again, only what changed
    assert not mirror.differences, mirror.differences[:2]
    assert mirror.checked > 0


async def test_each_theme_the_picker_previews_is_drawn_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """A theme changes every row's colours: nothing kept from the theme before may be taken as shown."""
    app = make_app(ScriptedModel(), theme=DARK_THEME)
    async with ready_app(app) as pilot:
        app.chat.composer.cursor_blink = False
        await submit(pilot, "/theme")
        await wait_for(pilot, lambda: isinstance(app.screen, ThemePicker))
        await pilot.pause(0.3)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        await pilot.press("down")
        await wait_for(pilot, lambda: app.theme == HIGH_CONTRAST_THEME)
        await pilot.pause(0.3)
        await pilot.press("down")
        await wait_for(pilot, lambda: app.theme == LIGHT_THEME)
        await pilot.pause(0.3)
        mirror.settled()
        await pilot.press("escape")
    assert not mirror.differences, mirror.differences[:2]
    assert mirror.checked > 0


def _strip(text: str) -> Strip:
    return Strip([Segment(text)], len(text))


def test_a_partial_frame_keeps_the_chops_it_writes_whole_and_forgets_those_it_cuts() -> None:
    shown = ShownChops()
    left, middle, right = _strip("aaaa"), _strip("bbbb"), _strip("cccc")
    for x, strip in ((0, left), (4, middle), (8, right)):
        shown.wrote(0, x, x + 4, strip)
    # row 0: the chops start at 0, 4, 8; what changed spans columns 0 to 6
    update = ChopsUpdate([{0: _strip("AAAA"), 4: _strip("BBBB"), 8: right}], [(0, 0, 6)], [[4, 8, 12]])
    written = list(_written_chops(update))
    assert [(x, end, whole) for _, x, end, _, whole in written] == [(0, 4, True), (4, 6, False)]
    RememberedChops(update, shown).render_segments(Console(color_system="truecolor"))
    assert set(shown.rows[0]) == {0, 8}  # the cut chop is forgotten; the one it did not reach is kept
    assert shown.rows[0][0] == (4, update.chops[0][0])


def test_a_partial_frame_leaves_out_the_chops_the_terminal_shows_as_they_are() -> None:
    shown = ShownChops()
    shown.wrote(0, 0, 4, _strip("aaaa"))
    shown.wrote(0, 4, 8, _strip("bbbb"))
    update = ChopsUpdate([{0: _strip("aaaa"), 4: _strip("BBBB")}], [(0, 0, 8)], [[4, 8]])
    written = RememberedChops(update, shown).render_segments(Console(color_system="truecolor"))
    assert "BBBB" in written and "aaaa" not in written
    assert shown.rows[0] == {0: (4, _strip("aaaa")), 4: (8, _strip("BBBB"))}


async def test_a_whole_frame_writes_the_chops_not_shown_as_they_are() -> None:
    app = make_app(ScriptedModel())
    async with app.run_test(size=(40, 5)):
        console = app.console
        shown = ShownChops()
        same, old = _strip("x" * 20), _strip("y" * 20)
        shown.wrote(0, 0, 20, same)
        shown.wrote(0, 20, 40, old)
        shown.wrote(1, 0, 40, _strip("z" * 40))
        new = _strip("w" * 20)
        frame = ChangedChops(LayoutUpdate([[same, new], [_strip("z" * 40)]], Region(0, 0, 40, 2)), shown)
        written = frame.render_segments(console)
        assert written == frame.render_segments(console)  # rendered twice (a mirror, the driver): the same
    assert "w" * 20 in written and "x" not in written and "z" not in written
    assert shown.rows[0][20] == (40, new)


async def test_the_cells_a_key_was_drawn_in_ahead_are_written_again_when_repainted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A key drawn from the input thread at the chat's prompt can land on a dialog just shown: the
    dialog's repaint of those cells must be written, though it kept them as it drew them."""
    app = dialog_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await chat_settled(app, pilot)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        dialog = await ask(app, pilot)
        await pilot.pause(0.3)
        mirror.settled()
        # a whole row, so that the dialog's repaint of it is whole chops, not cut ones (always written)
        cells = Region(0, app.chat.composer.content_region.y, app.size.width, 1)
        mirror.stream.feed(f"\x1b[{cells.y + 1};1H" + "x" * cells.width)  # what the input thread wrote there
        monkeypatch.setattr(app._predicted_echo, "handled", lambda event: [cells])
        app.input_handled(events.Key("x", "x"))
        await pilot.pause(0.3)
        mirror.settled()
        assert app.screen is dialog
    assert not mirror.differences, mirror.differences[:2]  # the cells show the dialog's again
