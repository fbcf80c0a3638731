"""``terminal/hangup.py`` and ``terminal/resume_guard.py`` in this process, on a pseudo-terminal of
the test's own (the real zett's terminal closed mid-answer: ``tests/e2e/test_terminal_gone.py``)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import tty
from collections.abc import Iterator

import pytest

from zett_tui.terminal.hangup import HANGUP_STATUS, Ending, EndWatch, terminal_is_gone
from zett_tui.terminal.resume_guard import resume_only_after_suspend

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="epoll and a pseudo-terminal: Linux")


@pytest.fixture
def stop_signals_restored() -> Iterator[None]:
    saved = {number: signal.getsignal(number) for number in (signal.SIGHUP, signal.SIGTERM)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


async def run_for(seconds: float) -> None:
    await asyncio.sleep(seconds)


def test_a_terminal_that_hangs_up_is_noticed_once_and_keys_are_not(stop_signals_restored: None) -> None:
    leader, follower = os.openpty()
    tty.setraw(follower)  # keys reach a reader as typed, not a line at a time
    endings: list[Ending] = []

    async def scenario() -> None:
        watch = EndWatch(endings.append, grace=None)
        watch.start(asyncio.get_running_loop(), follower)
        os.write(leader, b"typed keys wait to be read")  # readable, not gone: nothing happens
        await run_for(0.2)
        assert endings == []
        assert os.read(follower, 100) == b"typed keys wait to be read"  # nothing was taken
        os.close(leader)
        for _ in range(100):
            if endings:
                break
            await run_for(0.02)
        await run_for(0.1)  # the set stays readable: it must not be reported again
        watch.stop()

    try:
        asyncio.run(scenario())
    finally:
        os.close(follower)
    assert endings == [Ending(HANGUP_STATUS, terminal_gone=True, reason="the terminal was closed")]


def test_a_stop_signal_is_caught_unless_it_was_ignored(stop_signals_restored: None) -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    endings: list[Ending] = []

    async def scenario() -> None:
        watch = EndWatch(endings.append, grace=None)
        watch.start(asyncio.get_running_loop(), None)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGHUP)
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)  # a second one changes nothing
        await run_for(0.1)
        watch.stop()

    asyncio.run(scenario())
    assert endings == [Ending(128 + signal.SIGTERM, terminal_gone=False, reason="SIGTERM received")]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # given back


def test_a_process_that_does_not_quit_in_its_grace_ends_anyway() -> None:
    script = textwrap.dedent(
        """
        import asyncio, os, signal
        from zett_tui.terminal.hangup import EndWatch

        async def main():
            EndWatch(lambda ending: None, grace=0.3).start(asyncio.get_running_loop(), None)
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(60)  # never quits by itself

        asyncio.run(main())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=30, check=False)
    assert done.returncode == 128 + signal.SIGTERM


def test_only_a_hung_up_terminal_counts_as_gone() -> None:
    leader, follower = os.openpty()
    read_end, write_end = os.pipe()
    try:
        assert not terminal_is_gone(follower)
        assert not terminal_is_gone(read_end)  # a pipe is no terminal, not a gone one
        os.close(leader)
        assert terminal_is_gone(follower)
    finally:
        for fd in (follower, read_end, write_end):
            os.close(fd)


def test_sigcont_resumes_the_terminal_only_after_a_suspend() -> None:
    calls: list[str] = []
    saved = {number: signal.getsignal(number) for number in (signal.SIGTSTP, signal.SIGCONT)}
    # stand-ins for the driver's handlers (Textual's real SIGTSTP one stops the process)
    signal.signal(signal.SIGTSTP, lambda *_: calls.append("suspend"))
    signal.signal(signal.SIGCONT, lambda *_: calls.append("resume"))
    try:
        assert resume_only_after_suspend()
        signal.raise_signal(signal.SIGCONT)  # kill -CONT, or the one sent with a hang-up
        assert calls == []
        signal.raise_signal(signal.SIGTSTP)
        signal.raise_signal(signal.SIGCONT)
        signal.raise_signal(signal.SIGCONT)
        assert calls == ["suspend", "resume"]
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
