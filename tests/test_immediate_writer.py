"""The terminal writer another thread can write through at once (``ui/speed/immediate_writer.py``): only
between two writes of the writer thread with nothing queued, so never inside a frame nor before a
frame queued earlier; and the event loop's queued writes never wait for the terminal."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from textual.drivers import linux_driver

from zett_tui.ui.speed.immediate_writer import ImmediateWriter
from zett_tui.ui.textual_compat import write_at_once_from_threads


class SlowTerminal(io.StringIO):
    """A terminal that can hold the writer in its next write or its next flush (``hold``)."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed = ""
        self.held_in: str | None = None
        self.entered = threading.Event()
        self.go_on = threading.Event()

    def hold(self, phase: str = "write") -> None:
        self.held_in = phase

    def _pass(self, phase: str) -> None:
        if self.held_in == phase:
            self.entered.set()
            assert self.go_on.wait(10)

    def write(self, text: str) -> int:
        self._pass("write")
        return super().write(text)

    def flush(self) -> None:
        self._pass("flush")
        self.flushed = self.getvalue()


@contextmanager
def running(writer: ImmediateWriter) -> Iterator[ImmediateWriter]:
    writer.start()
    try:
        yield writer
    finally:
        writer.stop()


def test_with_nothing_queued_a_text_is_written_and_flushed_at_once() -> None:
    terminal = SlowTerminal()
    with running(ImmediateWriter(terminal)) as writer:
        writer.write("frame 1")
        while terminal.flushed != "frame 1":
            threading.Event().wait(0.001)
        assert writer.write_now("<a>")
        assert terminal.flushed == "frame 1<a>"  # flushed before write_now returned


def test_a_text_queued_and_not_written_yet_comes_first() -> None:
    terminal = SlowTerminal()
    writer = ImmediateWriter(terminal)  # not started: what is queued stays queued
    writer.write("frame 1")
    assert not writer.write_now("<a>")
    assert terminal.getvalue() == ""
    with running(writer):
        writer.write("<a>")  # the caller queues it instead
    assert terminal.flushed == "frame 1<a>"


@pytest.mark.parametrize("phase", ["write", "flush"])
def test_nothing_is_written_while_the_writer_thread_writes_or_flushes(phase: str) -> None:
    """Its last text is counted out before the flush: the flush is still its write."""
    terminal = SlowTerminal()
    with running(ImmediateWriter(terminal)) as writer:
        terminal.hold(phase)
        writer.write("frame 1")
        assert terminal.entered.wait(10)  # the writer thread is in the middle of it
        assert not writer.write_now("<a>")
        terminal.go_on.set()
    assert terminal.flushed == "frame 1"


def test_the_loop_s_writes_do_not_wait_for_a_terminal_that_is_not_reading() -> None:
    terminal = SlowTerminal()
    with running(ImmediateWriter(terminal)) as writer:
        terminal.hold()
        writer.write("frame 1")
        assert terminal.entered.wait(10)
        queued = threading.Thread(target=writer.write, args=("frame 2",))
        queued.start()
        queued.join(2)
        assert not queued.is_alive()  # queued, not waiting for the terminal
        terminal.go_on.set()
    assert terminal.flushed == "frame 1frame 2"


def test_a_text_written_at_once_is_counted_out_of_nothing_queued() -> None:
    """After a write at once, the writer thread's own writes go on in order and flush."""
    terminal = SlowTerminal()
    with running(ImmediateWriter(terminal)) as writer:
        assert writer.write_now("<a>")
        writer.write("frame 1")
        writer.write("frame 2")
    assert terminal.flushed == "<a>frame 1frame 2"


class GoneTerminal(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(5, "Input/output error")


def test_a_terminal_that_is_gone_is_left_to_the_writer_thread() -> None:
    """The caller (the driver's input thread) gets False, not the error, which would end it."""
    writer = ImmediateWriter(GoneTerminal())
    assert not writer.write_now("<a>")
    closed = io.StringIO()
    closed.close()
    assert not ImmediateWriter(closed).write_now("<a>")


def test_textual_s_terminal_driver_makes_this_writer() -> None:
    """What the driver makes its writer thread from when the app starts (``App.__init__`` asks)."""
    write_at_once_from_threads()
    assert linux_driver.WriterThread is ImmediateWriter
