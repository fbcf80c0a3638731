"""Notices that zett must end without a key pressed: its terminal is gone, or it was asked to stop
by a signal. No Textual import.

Three ways zett is ended from outside, each of which otherwise loses the turn's last moments or
leaves something behind:

- **The terminal goes away** (an SSH connection drops, a terminal window is closed). The kernel
  sends SIGHUP, whose default action ends zett on the spot. Where SIGHUP is ignored (zett started
  under ``nohup``, or by a program that ignores it), nothing ends zett at all: Textual's input
  thread reads end-of-file from the dead terminal in a loop without ever waiting, and a SIGCONT
  sent with the hang-up starts a second one; zett spun two cores until it was killed. So the
  terminal itself is watched: an epoll set holding its descriptor with no event asked for reports
  only hang-up and error, and the event loop waits on that set's own descriptor. Nothing is read
  (the keys stay the driver's) and nothing runs while the terminal lives.
- **SIGHUP** while the terminal lives (``kill -HUP``), and **SIGTERM** (``kill``, a logout, a
  service manager): their default action ends zett with the terminal left in raw mode on the
  alternate screen, and the turn in progress recorded only by its journal.

In each case ``end`` is called once, on the event loop, to quit as the user would: the turn is
cancelled and recorded, the terminal (if any) is put back. A signal that was ignored when zett
started (``nohup``) stays ignored; the terminal's end is still noticed. Quitting is given
:data:`GRACE_SECONDS`; a zett still running then ends at once (the turn's journal keeps what was
shown), so a zett without a terminal never lingers.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import select
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

#: What quitting may take after zett was ended from outside, before the process ends at once.
GRACE_SECONDS = 10.0
#: The exit status for each: 128 + the signal's number, as a shell reports a process it ended.
HANGUP_STATUS = 128 + signal.SIGHUP
STOP_SIGNALS = (signal.SIGHUP, signal.SIGTERM)


@dataclass(frozen=True)
class Ending:
    """Why zett is ending: ``status`` to exit with, ``terminal_gone`` when nothing can be drawn."""

    status: int
    terminal_gone: bool
    reason: str


def terminal_is_gone(fd: int) -> bool:
    """True when ``fd`` is a terminal that hung up: reading its attributes fails with EIO (on a
    file or pipe it fails with ENOTTY, on a closed descriptor with EBADF: not a terminal gone)."""
    import termios

    try:
        termios.tcgetattr(fd)
    except termios.error as error:
        return bool(error.args) and error.args[0] == errno.EIO
    except (OSError, ValueError):
        return False
    return False


class EndWatch:
    """Calls ``end`` once, on the event loop, when zett's terminal is gone or a stop signal comes."""

    def __init__(self, end: Callable[[Ending], None], *, grace: float | None = GRACE_SECONDS) -> None:
        """``grace``: seconds quitting may take before the process ends at once (None: no limit)."""
        self._end = end
        self._grace = grace
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fd: int | None = None
        self._poll: select.epoll | None = None
        self._signals: list[signal.Signals] = []
        self._ending: Ending | None = None

    def start(self, loop: asyncio.AbstractEventLoop, terminal_fd: int | None) -> None:
        """Watch ``terminal_fd`` (when it is a terminal) and catch the stop signals zett would die of."""
        self._loop = loop
        if terminal_fd is not None and hasattr(select, "epoll") and _is_terminal(terminal_fd):
            poll = select.epoll()
            try:
                poll.register(terminal_fd, 0)  # no event asked: epoll still reports hang-up and error
                loop.add_reader(poll.fileno(), self._terminal_event)
            except (OSError, ValueError, NotImplementedError, RuntimeError):
                poll.close()
                log.warning("cannot watch the terminal for its end", exc_info=True)
            else:
                self._fd, self._poll = terminal_fd, poll
        for number in STOP_SIGNALS:
            if signal.getsignal(number) is not signal.SIG_DFL:  # ignored (nohup) or someone else's
                continue
            try:
                loop.add_signal_handler(number, self._signalled, number)
            except (ValueError, RuntimeError, NotImplementedError):  # not the main thread, no signals
                continue
            self._signals.append(number)

    def stop(self) -> None:
        """Stop watching (zett is closing by itself); the signals get their default action back."""
        loop, self._loop = self._loop, None
        poll, self._poll = self._poll, None
        if loop is not None and poll is not None:
            with contextlib.suppress(Exception):
                loop.remove_reader(poll.fileno())
        if poll is not None:
            poll.close()
        for number in self._signals:
            if loop is not None:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(number)
        self._signals.clear()

    def _terminal_event(self) -> None:
        poll = self._poll
        if poll is None or self._fd is None:
            return
        events = poll.poll(0)
        if not events:
            return
        if self._loop is not None:
            self._loop.remove_reader(poll.fileno())  # level-triggered, it stays readable: once is enough
        hung_up = any(mask & select.EPOLLHUP for _fd, mask in events)
        if not hung_up and not terminal_is_gone(self._fd):
            log.warning("the terminal reported an error but still works; it is no longer watched")
            return
        self._ended(Ending(HANGUP_STATUS, terminal_gone=True, reason="the terminal was closed"))

    def _signalled(self, number: signal.Signals) -> None:
        gone = self._fd is not None and terminal_is_gone(self._fd)
        self._ended(
            Ending(128 + number, terminal_gone=gone, reason=f"{signal.Signals(number).name} received")
        )

    def _ended(self, ending: Ending) -> None:
        if self._ending is not None:
            return
        self._ending = ending
        log.warning("zett is ending: %s", ending.reason)
        if ending.terminal_gone:
            _write_nowhere()
        if self._grace is not None:
            _end_after(self._grace, ending.status)
        self._end(ending)


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except (OSError, ValueError):
        return False


def _write_nowhere() -> None:
    """Point standard output and error, where they are the dead terminal, at the null device: what
    zett still writes while it closes (the driver restoring the screen, a last message) then goes
    nowhere instead of failing, and the interpreter's last flush does not turn the exit status into
    120. Standard input is left alone: the driver's input threads are stopped instead."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        for fd in (1, 2):
            if terminal_is_gone(fd):  # not a live terminal, a file or a pipe
                with contextlib.suppress(OSError):
                    os.dup2(null, fd)
    finally:
        os.close(null)


def _end_after(seconds: float, status: int) -> None:
    """End the process with ``status`` after ``seconds`` unless it has ended by itself by then."""
    timer = threading.Timer(seconds, os._exit, (status,))
    timer.daemon = True
    timer.name = "zett-end-after-grace"
    timer.start()
