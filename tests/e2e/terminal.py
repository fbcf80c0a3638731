"""Runs the real ``zett`` in a pseudo-terminal and reads its screen through a terminal emulator."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pexpect
import pyte


class Terminal:
    """A pseudo-terminal of a fixed size with ``zett`` running in it."""

    def __init__(
        self,
        args: list[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        columns: int = 120,
        rows: int = 36,
        ignore_hangup: bool = False,
    ) -> None:
        """``ignore_hangup``: zett starts with SIGHUP ignored, as under ``nohup``."""
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "zett_tui", *args],
            env=dict(env),
            cwd=str(cwd),
            dimensions=(rows, columns),
            timeout=30,
            preexec_fn=(lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN)) if ignore_hangup else None,
        )

    def pump(self, seconds: float = 0.05) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=max(0.0, deadline - time.monotonic()))
            except pexpect.TIMEOUT:
                return
            except pexpect.EOF:
                return
            self.stream.feed(data)
            self.on_output(data)
            if time.monotonic() >= deadline:
                return

    def on_output(self, data: bytes) -> None:
        """Called with each chunk zett wrote (a terminal that answers questions overrides it)."""

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, condition: Callable[[str], bool], timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump(0.1)
            shown = self.text()
            if condition(shown):
                return shown
            if not self.child.isalive():
                self.pump(0.2)
                break
        raise AssertionError(f"the screen never showed what was expected; it shows:\n{self.text()}")

    def wait_for_text(self, text: str, timeout: float = 30.0) -> str:
        return self.wait_for(lambda shown: text in shown, timeout)

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def wait_exit(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            self.pump(0.1)
        self.pump(0.2)
        if self.child.isalive():
            self.child.terminate(force=True)
            raise AssertionError(f"zett did not exit; the screen shows:\n{self.text()}")
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else -1

    def hang_up(self) -> None:
        """Close the terminal as a dropped connection or a closed window does: its other side goes
        away, the kernel hangs it up (and sends zett, its session leader, SIGHUP and SIGCONT)."""
        self.child.ptyproc.fileobj.close()

    def wait_exit_without_terminal(self, timeout: float = 30.0) -> int:
        """After :meth:`hang_up`: zett's exit status (128 + n when a signal n ended it)."""
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.child.isalive():
            os.kill(self.child.pid, signal.SIGKILL)
            raise AssertionError(f"zett was still running {timeout:.0f} s after its terminal was closed")
        process = self.child.ptyproc
        return process.exitstatus if process.exitstatus is not None else 128 + (process.signalstatus or 0)

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


class RecordingTerminal(Terminal):
    """Keeps every byte zett wrote (``written``), escape sequences and all."""

    written = b""

    def on_output(self, data: bytes) -> None:
        self.written += data


def zett_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment: its own folders, no real keys, a plain terminal."""
    keep = {name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL", "PYTHONPATH") if name in os.environ}
    return {
        **keep,
        "HOME": str(home),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        **extra,
    }
