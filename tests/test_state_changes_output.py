"""A change of the session's state (what it is doing, the tools running, the context meter, the
queue, the permission mode) repaints the status line's row, not the whole screen; the focus moving
in a dialog or between the session browser's panes repaints the widgets it left and reached; a
dialog's close draws the chat whole once.

The chat screen held that state in reactives of its own, bound to the status line; a reactive of
a screen repaints the screen, so each change drew every row again: ~36 KB written to the terminal
in a turn that read one file, where the rows that changed are a few hundred bytes. Textual's
``Screen.focused`` is such a reactive too: each focus move (a dialog arming, an arrow key between
its choices) drew the whole screen, where the widgets that gain and lose the focus repaint
themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual._compositor import LayoutUpdate

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.terminal_mirror import TerminalMirror
from tests.test_dialogs import QUESTION, ask, focused_id
from tests.test_session_browser import browser_showing_a_session, three_sessions
from tests.ui_helpers import idle, make_app, ready_app, submit, wait_for


def count_whole_frames(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """From now on, each frame ``app`` draws that is the whole screen."""
    whole_frames: list[Any] = []
    watched = app._display

    def counted(screen: Any, renderable: Any) -> None:
        if isinstance(renderable, LayoutUpdate):
            whole_frames.append(renderable)
        watched(screen, renderable)

    monkeypatch.setattr(app, "_display", counted)
    return whole_frames


async def test_a_turn_and_a_mode_change_repaint_the_status_line_not_the_screen(
    monkeypatch: pytest.MonkeyPatch, project_dir: Path
) -> None:
    (project_dir / "notes.txt").write_text("one\ntwo\n")
    model = ScriptedModel(
        tool_step("r1", "read_file", {"path": "notes.txt"}, text="Looking."), text_step("It says one, two.")
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await wait_for(pilot, lambda: idle(app))
        await pilot.pause(0.3)
        status = app.chat.status
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.chat.status.region)
        await wait_for(pilot, lambda: mirror.whole)  # the whole frame the mirror asks for
        row = status.region.y
        before = mirror.screen.display[row]
        mode_before = status.permission_mode
        whole_frames = count_whole_frames(app, monkeypatch)
        await submit(pilot, "what do the notes say?")
        await wait_for(pilot, lambda: idle(app))
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: status.permission_mode != mode_before)
        await pilot.pause(0.3)
        mirror.settled()
        after = mirror.screen.display[row]
    assert not whole_frames, f"{len(whole_frames)} frames drew the whole screen"
    assert not mirror.differences, mirror.differences[:2]  # the terminal's status row is the app's
    assert after != before  # and it did change: the mode, the context meter
    assert mirror.checked > 0


async def test_the_focus_moving_between_a_dialogs_choices_redraws_them_not_the_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("HTML it is."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await ask(app, pilot)
        await pilot.pause(0.3)  # the dialog's own first frames (drawn whole: it covers the screen)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        whole_frames = count_whole_frames(app, monkeypatch)
        assert focused_id(dialog) == "choice-1"
        await pilot.press("down")
        await wait_for(pilot, lambda: focused_id(dialog) == "choice-2")
        await pilot.press("down")
        await wait_for(pilot, lambda: focused_id(dialog) == "choice-3")
        await pilot.pause(0.3)
        mirror.settled()
        drawn_whole = len(whole_frames)
        await pilot.press("escape")
    assert not drawn_whole, f"{drawn_whole} frames drew the whole screen"
    assert not mirror.differences, mirror.differences[:2]  # what the terminal shows is the dialog
    assert mirror.checked > 0


async def test_opening_and_closing_the_find_bar_does_not_draw_the_whole_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app(ScriptedModel(text_step("The answer mentions a needle once.")))
    async with ready_app(app) as pilot:
        # the prompt's cursor blinks on its own: a blink just before the last check, its frame not
        # drawn yet, would count as a row left stale; the cursor still shows and hides with the focus
        app.chat.composer.cursor_blink = False
        await submit(pilot, "go")
        await wait_for(pilot, lambda: idle(app))
        await pilot.press("ctrl+f", "escape")  # the find bar's first opening mounts it (a whole frame)
        await pilot.pause(0.3)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        whole_frames = count_whole_frames(app, monkeypatch)
        await pilot.press("ctrl+f")  # the focus goes to the find bar's field
        await wait_for(pilot, lambda: app.chat.focused is not app.chat.composer)
        await pilot.press(*"needle")
        await pilot.pause(0.2)
        await pilot.press("escape")  # and back to the prompt
        await wait_for(pilot, lambda: app.chat.focused is app.chat.composer)
        await pilot.pause(0.3)
        mirror.settled()
    assert not whole_frames, f"{len(whole_frames)} frames drew the whole screen"
    assert not mirror.differences, mirror.differences[:2]
    assert mirror.checked > 0


async def test_tab_between_the_session_browsers_panes_redraws_them_not_the_screen(
    monkeypatch: pytest.MonkeyPatch, project_dir: Path, tmp_path: Path
) -> None:
    await three_sessions(project_dir, tmp_path / "elsewhere")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(140, 40)) as pilot:
        browser = await browser_showing_a_session(pilot)
        await pilot.pause(0.3)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        whole_frames = count_whole_frames(app, monkeypatch)
        for key, pane in (
            ("tab", browser.session_list),
            ("tab", browser.preview),
            ("tab", browser.search_input),
            ("shift+tab", browser.preview),
        ):
            await pilot.press(key)
            await wait_for(pilot, lambda pane=pane: browser.focused is pane)
        await pilot.pause(0.3)
        mirror.settled()
    assert not whole_frames, f"{len(whole_frames)} frames drew the whole screen"
    assert not mirror.differences, mirror.differences[:2]  # the panes' focus styles were drawn
    assert mirror.checked > 0


async def test_closing_a_dialog_draws_the_chat_whole_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual repaints the app whole once more for each screen it prunes (twice at a dialog's
    close): the chat, which the dialog's going changes nothing in, was drawn whole three times."""
    model = ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("HTML it is."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        app.chat.composer.cursor_blink = False  # a blink's frame still on its way would count as stale
        await ask(app, pilot)
        await pilot.pause(0.3)
        mirror = TerminalMirror.watch(app, monkeypatch, rows=lambda app: app.screen.region)
        await wait_for(pilot, lambda: mirror.whole)
        whole_frames = count_whole_frames(app, monkeypatch)
        await pilot.press("enter")  # the first choice
        await wait_for(pilot, lambda: app.screen is app.chat and idle(app))
        await pilot.pause(0.3)
        mirror.settled()
    assert len(whole_frames) == 1, f"{len(whole_frames)} frames drew the whole screen"
    assert not mirror.differences, mirror.differences[:2]  # the terminal shows the chat as it is
    assert mirror.checked > 0


async def test_after_a_dialog_closes_the_pointer_hovers_what_the_chat_shows_under_it() -> None:
    model = ScriptedModel(tool_step("q1", "ask_user", QUESTION), text_step("HTML it is."))
    app = make_app(model)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await ask(app, pilot)
        await pilot.pause(0.3)
        await pilot.hover(offset=(50, 15))
        assert app.mouse_over is not None and app.mouse_over.screen is dialog
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is app.chat)
        await wait_for(pilot, lambda: app.mouse_over is not None and app.mouse_over.screen is app.chat)
