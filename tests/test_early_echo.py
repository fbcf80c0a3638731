"""Keys typed while zett imports show in the box drawn before the app, and still reach the app first
and in order (``zett_tui/terminal/early_echo.py``, ``zett_tui/ui/speed/box_echo.py``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest
from textual import events

from zett_tui.terminal import first_frame, typeahead
from zett_tui.terminal.early_echo import EarlyEcho
from zett_tui.ui.speed.box_echo import BoxEcho


@pytest.fixture
def keyboard() -> Iterator[tuple[int, int]]:
    """A pipe standing in for the terminal: (read end, write end); typeahead starts empty."""
    typeahead.take()
    read_end, write_end = os.pipe()
    try:
        yield read_end, write_end
    finally:
        typeahead.take()
        os.close(read_end)
        os.close(write_end)


class Shown:
    """What the box was asked to show, and a way to wait for a text."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._changed = threading.Condition()

    def __call__(self, typed: str) -> None:
        with self._changed:
            self.texts.append(typed)
            self._changed.notify_all()

    def wait_for(self, text: str) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: text in self.texts, timeout=10)


def test_each_key_shows_as_it_is_typed_and_is_kept_for_the_app(keyboard: tuple[int, int]) -> None:
    read_end, write_end = keyboard
    shown = Shown()
    echo = EarlyEcho.start(read_end, shown)
    try:
        os.write(write_end, b"h")
        assert shown.wait_for("h")
        os.write(write_end, b"i")
        assert shown.wait_for("hi")
    finally:
        echo.stop()
    assert typeahead.take() == "hi"


def test_keys_typed_after_stop_are_left_for_the_app_s_driver(keyboard: tuple[int, int]) -> None:
    read_end, write_end = keyboard
    echo = EarlyEcho.start(read_end, Shown())
    echo.stop()
    echo.stop()  # again: nothing
    os.write(write_end, b"later")
    assert os.read(read_end, 100) == b"later"
    assert typeahead.take() == ""


def test_the_background_answer_is_read_first_and_the_keys_typed_meanwhile_kept_before_the_rest(
    keyboard: tuple[int, int],
) -> None:
    read_end, write_end = keyboard
    os.write(write_end, b"b")  # typed after the answer came

    class Query:
        def answer(self) -> None:
            typeahead.keep(b"a")  # what ``BackgroundQuery`` does with keys typed before the answer

    shown = Shown()
    echo = EarlyEcho.start(read_end, shown, Query())  # type: ignore[arg-type]
    try:
        assert shown.wait_for("ab")
    finally:
        echo.stop()
    assert shown.texts[0] == "a"
    assert typeahead.take() == "ab"


def test_a_background_answer_that_fails_leaves_the_keys_shown_and_kept(keyboard: tuple[int, int]) -> None:
    """In the main thread the failure ended the start; in this thread it would print a traceback."""
    read_end, write_end = keyboard

    class Query:
        def answer(self) -> None:
            raise OSError("the terminal went away")

    shown = Shown()
    echo = EarlyEcho.start(read_end, shown, Query())  # type: ignore[arg-type]
    try:
        os.write(write_end, b"k")
        assert shown.wait_for("k")
    finally:
        echo.stop()
    assert typeahead.take() == "k"


def test_the_box_line_is_redrawn_until_the_app_paints_even_after_it_took_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fcntl
    import struct
    import termios

    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    written: list[bytes] = []
    monkeypatch.setattr(os, "write", lambda fd, data: written.append(data) or len(data))
    try:
        assert first_frame.draw(follower, "", {"TERM": "xterm"})
        first_frame.show_typed("abc")
        first_frame.hand_over()
        first_frame.show_typed("abcd")
        first_frame.erase()  # the app has the terminal: not left
        first_frame.app_paints()
        first_frame.show_typed("abcde")
    finally:
        first_frame.app_paints()
        os.close(follower)
        os.close(leader)
    assert len(written) == 3
    assert written[1].startswith(b"\x1b[22;1H\xe2\x94\x82 abc") and written[2].startswith(
        b"\x1b[22;1H\xe2\x94\x82 abcd"
    )
    assert not any(b"\x1b[?1049l" in data for data in written)


def test_keys_the_driver_reads_before_the_first_frame_show_in_the_box(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown: list[str] = []
    painted: list[bool] = []
    monkeypatch.setattr(first_frame, "show_typed", shown.append)
    monkeypatch.setattr(first_frame, "app_paints", lambda: painted.append(True))
    box = BoxEcho()
    box.start("typed")
    for key, character in (("x", "x"), ("y", "y"), ("backspace", None), ("escape", "\x1b"), ("z", "z")):
        box.key(events.Key(key, character))
    box.stop()
    box.key(events.Key("w", "w"))
    assert shown == ["typedx", "typedxy", "typedx", "typedxz"]
    assert painted == [True]


async def test_the_box_gets_no_line_once_the_chat_is_mounted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The box's echo ends in the chat's mount, before the screen's first frame can be queued: the
    app's own ``on_mount`` resumes only once the chat is ready for keys, which may be after it."""
    from tests.fakes.scripted_model import ScriptedModel
    from tests.ui_helpers import make_app, ready_app

    app = make_app(ScriptedModel())
    ready_when_ended: list[bool] = []
    monkeypatch.setattr(
        first_frame, "app_paints", lambda: ready_when_ended.append(app.chat.ready_for_keys.is_set())
    )
    async with ready_app(app):
        pass
    assert ready_when_ended[:1] == [False]
