"""The transcript's scrolls move the terminal's rows (``ui/speed/terminal_scroll.py``): less is
written, and after every frame the terminal shows exactly what the app would draw from nothing,
whatever else happens on screen meanwhile (a toast, a dialog, a resize, the reader scrolling)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pyte
import pytest
from textual.containers import Container
from textual.screen import ModalScreen
from textual.widgets import Static

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.terminal_mirror import TerminalMirror
from tests.ui_helpers import idle, make_app, ready_app, submit, wait_for
from zett_tui.ui.speed import terminal_scroll
from zett_tui.ui.speed.terminal_scroll import PendingScroll, scroll_sequence
from zett_tui.ui.widgets import row_repaint
from zett_tui.ui.widgets.transcript import Transcript

#: Markdown of many rows and styles: headings, lists, code, emphasis.
ANSWER = "\n\n".join(
    f"## Part {n}\n\n- item *{n}* with `code {n}`\n- and **more** "
    + "words " * (n % 5 * 7 + 2)
    + (f"\n\n```python\nprint({n})\nvalue = {n} * 2\n```" if n % 4 == 0 else "")
    for n in range(30)
)

During = Callable[[Any, Any], Awaitable[None]]
#: How long a mirrored stream may take: every frame is also rendered afresh and parsed twice (pyte),
#: ~10 s alone on a slow 2-core machine, twice that beside the suite's other workers.
STREAM_TIMEOUT = 90.0


async def streamed(
    monkeypatch: pytest.MonkeyPatch, during: During | None = None, **launch: Any
) -> TerminalMirror:
    """Stream ``ANSWER`` at a model's pace with every frame mirrored; ``during`` runs once it has begun."""
    app = make_app(ScriptedModel(text_step(ANSWER, chunk=16, delay=0.003)), **launch)
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: "Part 3" in app.chat.transcript.blocks[-1].plain_text())
        if during is not None:
            await during(pilot, app)
        await wait_for(pilot, lambda: idle(app), timeout=STREAM_TIMEOUT)
        await pilot.pause(0.1)
        mirror.settled()
    return mirror


def scrolls(mirror: TerminalMirror) -> int:
    """The frames that scrolled the terminal, from the first one the test measures."""
    return sum("\x1b[r" in frame for frame in mirror.frames[mirror.measured_from :])


async def paced_after_a_full_screen(monkeypatch: pytest.MonkeyPatch) -> tuple[TerminalMirror, int]:
    """A first answer fills the screen; a second streams at a model's pace (a few characters a
    delta): the mirror, and the bytes written while the second streamed."""
    app = make_app(
        ScriptedModel(text_step(ANSWER, chunk=400), text_step(ANSWER[:1200], chunk=4, delay=0.002))
    )
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "fill the screen")
        await wait_for(pilot, lambda: idle(app), timeout=STREAM_TIMEOUT)
        await pilot.pause(0.1)
        before = mirror.written()
        await submit(pilot, "go")
        await wait_for(pilot, lambda: idle(app), timeout=STREAM_TIMEOUT)
        await pilot.pause(0.1)
        mirror.settled()
    return mirror, mirror.written() - before


async def test_a_paced_answer_scrolls_the_terminal_and_writes_a_fraction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mirror, written = await paced_after_a_full_screen(monkeypatch)
    assert mirror.differences == []
    assert mirror.checked >= 10 and scrolls(mirror) >= 3  # few frames on a loaded machine: still some
    monkeypatch.setattr(row_repaint, "request_scroll", lambda *args: False)
    drawn_whole, written_whole = await paced_after_a_full_screen(monkeypatch)
    assert drawn_whole.differences == [] and scrolls(drawn_whole) == 0
    assert written * 5 < written_whole * 3  # under 60% (the benchmark: ~27%, bench_paced_output)


async def test_a_fast_answer_is_drawn_right_after_every_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    mirror = await streamed(monkeypatch)
    assert mirror.differences == []
    assert mirror.checked >= 10 and scrolls(mirror) >= 3


async def test_with_terminal_scroll_off_every_row_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """``[ui] terminal_scroll = false``: for a terminal that would leave stale rows."""
    mirror = await streamed(monkeypatch, terminal_scroll=False)
    assert mirror.differences == [] and mirror.checked >= 10
    assert scrolls(mirror) == 0


async def test_a_toast_over_the_transcript_is_not_moved_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    async def toast(pilot: Any, app: Any) -> None:
        app.notify("A toast over the transcript", timeout=0.3)
        await pilot.pause(0.5)

    mirror = await streamed(monkeypatch, toast)
    assert mirror.differences == []


class Dialog(ModalScreen[None]):
    def compose(self) -> Any:
        with Container():
            yield Static("A dialog over the stream")


async def test_a_dialog_shown_and_closed_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def dialog(pilot: Any, app: Any) -> None:
        app.push_screen(Dialog())
        await pilot.pause(0.2)
        app.pop_screen()

    mirror = await streamed(monkeypatch, dialog)
    assert mirror.differences == []


async def test_the_reader_scrolling_up_and_back_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def read(pilot: Any, app: Any) -> None:
        for key in ("pageup", "pageup", "pagedown"):
            await pilot.press(key)
            await pilot.pause(0.05)
        await pilot.pause(0.1)  # the new-output badge is shown meanwhile
        await pilot.press("ctrl+end")

    mirror = await streamed(monkeypatch, read)
    assert mirror.differences == []


async def test_a_resize_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def resize(pilot: Any, app: Any) -> None:
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        await pilot.resize_terminal(100, 30)

    mirror = await streamed(monkeypatch, resize)
    assert mirror.differences == []


def band_after(sequence: str) -> list[str]:
    screen = pyte.Screen(10, 8)
    stream = pyte.Stream(screen)
    stream.feed("\r\n".join(f"row{y}" for y in range(8)))
    stream.feed(sequence)
    return [line.rstrip() for line in screen.display]


def test_the_sequence_moves_only_the_band() -> None:
    assert band_after(scroll_sequence(2, 4, 1)) == [
        "row0",
        "row1",
        "row3",
        "row4",
        "row5",
        "",
        "row6",
        "row7",
    ]
    assert band_after(scroll_sequence(2, 4, -2)) == ["row0", "row1", "", "", "row2", "row3", "row6", "row7"]


def test_scrolls_of_one_band_add_up_and_another_band_or_too_far_is_refused() -> None:
    pending = PendingScroll()
    assert pending.add(2, 4, 1) and pending.add(2, 4, 1)
    assert not pending.add(3, 4, 1)  # another band waits: the caller draws its rows
    assert not pending.add(2, 4, 2)  # 4 rows: nothing of the band would stay
    assert pending.take() == scroll_sequence(2, 4, 2)
    assert pending.take() == ""
    assert not pending.add(0, 1, 1)


async def test_a_menu_and_the_find_bar_opened_while_it_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    async def menu_and_find(pilot: Any, app: Any) -> None:
        await pilot.press("slash")  # the commands menu opens over the transcript's bottom rows
        await pilot.pause(0.2)
        await pilot.press("escape", "backspace")
        await pilot.press("ctrl+f")
        await pilot.press(*"item")
        await pilot.pause(0.2)
        await pilot.press("escape")

    mirror = await streamed(monkeypatch, menu_and_find)
    assert mirror.differences == []


async def after_an_answer(
    monkeypatch: pytest.MonkeyPatch, steps: Sequence[Callable[[Transcript], object]]
) -> TerminalMirror:
    """A whole answer on screen; then each step moves the view (before a frame), and its frame is
    waited for. The mirror, settled, measuring from the steps' frames (``scrolls``)."""
    app = make_app(ScriptedModel(text_step(ANSWER, chunk=400)))
    async with ready_app(app) as pilot:
        mirror = TerminalMirror.watch(app, monkeypatch)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: idle(app), timeout=STREAM_TIMEOUT)
        await pilot.pause(0.1)  # the answer's last frame: whether it scrolled is not the steps' doing
        mirror.measured_from = len(mirror.frames)
        for step in steps:
            drawn = len(mirror.frames)
            step(app.chat.transcript)
            await wait_for(pilot, lambda drawn=drawn: len(mirror.frames) > drawn)  # type: ignore[misc]
        mirror.settled()
    return mirror


def scroll_by(rows: int) -> Callable[[Transcript], object]:
    return lambda transcript: transcript.scroll_to(
        y=transcript.scroll_y + rows, animate=False, immediate=True
    )


async def test_the_reader_scrolling_a_few_rows_up_and_back_down(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows that left the screen come back blank from the terminal: they are drawn again."""
    mirror = await after_an_answer(monkeypatch, [scroll_by(rows) for rows in (-3, -2, 2, 3, -4, 4)])
    assert mirror.differences == []
    assert scrolls(mirror) >= 6


async def test_the_mirror_sees_a_terminal_scroll_one_row_too_far(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mirror's own check: a scroll that moves the terminal's rows one more than the app moved
    its own leaves every kept row one off, and the mirror names them (it would pass anything if it
    compared what it did not parse)."""
    monkeypatch.setattr(
        terminal_scroll,
        "scroll_sequence",
        lambda top, height, shift: scroll_sequence(top, height, shift + (1 if shift > 0 else -1)),
    )
    mirror = await after_an_answer(monkeypatch, [scroll_by(rows) for rows in (-3, 3)])
    assert scrolls(mirror) >= 2
    assert mirror.differences, "a terminal one row off went unseen"
    _frame, _row, shown, meant = mirror.differences[0]
    assert shown != meant
