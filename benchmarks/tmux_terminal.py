"""A program in a tmux pane, read as ``bench_app.Pty`` reads one through pyte: the same methods,
the screen parsed by tmux (C) instead of this process (pure Python, ~2-3 us a byte).

Why: with pyte a key's echo is seen only once this process has parsed everything written before
it, on the same cores as the program, so a program that writes more (a new screenful each frame)
pays for the harness's parsing as well as its own drawing. tmux parses as a terminal does.

The pane is read through one tmux control-mode client (``tmux -C``: commands on its input, each
answer between ``%begin`` and ``%end``; the pane's output notifications switched off) polled every
``POLL`` seconds; a key is sent with ``send-keys -H`` (its bytes, as typed). The program's output
is counted by ``pipe-pane`` into a file. tmux answers the terminal queries itself (device
attributes, the background colour).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_app import COLS, ROWS, Pty

#: How often the pane is read while waiting for something to show.
POLL = 0.003


def available() -> bool:
    """Whether tmux is on the PATH (``bench_peers --terminal tmux`` says so when it is not)."""
    return shutil.which("tmux") is not None


class _Lines:
    """What ``Pty`` reads of its pyte screen: the rows as text."""

    def __init__(self) -> None:
        self.display: list[str] = [" " * COLS] * ROWS


class _Keys:
    """``pty.child.send(text)`` as in ``Pty``: the bytes typed into the pane."""

    def __init__(self, terminal: TmuxPty) -> None:
        self._terminal = terminal

    def send(self, text: str) -> None:
        self._terminal.type(text)

    @property
    def pid(self) -> int:
        return self._terminal.pid


class TmuxPty(Pty):
    """``program args`` in a detached tmux session of its own (a server of its own, 120x36)."""

    def __init__(
        self, args: list[str], env: dict[str, str], cwd: Path, program: str = sys.executable
    ) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="zett-bench-tmux-"))
        self._socket = str(self._folder / "socket")
        self._output = self._folder / "output"
        self._output.touch()
        self._lines = _Lines()
        self.screen = self._lines  # type: ignore[assignment]
        self.first_frame: float | None = None
        self.ready_at: float | None = None
        self.bytes_read = 0
        self.parse_seconds = 0.0
        env_file = self._folder / "env"
        env_file.write_text("".join(f"export {name}={_quoted(value)}\n" for name, value in env.items()))
        command = f". {_quoted(str(env_file))} && cd {_quoted(str(cwd))} && exec " + " ".join(
            _quoted(part) for part in [program, *args]
        )
        tmux_env = {"PATH": os.environ.get("PATH", ""), "TERM": "xterm-256color", "HOME": str(self._folder)}
        self._tmux = ["tmux", "-L", "bench", "-S", self._socket, "-f", "/dev/null"]
        subprocess.run(
            [*self._tmux, "new-session", "-d", "-s", "b", "-x", str(COLS), "-y", str(ROWS), "sleep 3600"],
            check=True,
            env=tmux_env,
        )
        for option in (["default-terminal", "xterm-256color"], ["escape-time", "0"], ["status", "off"]):
            subprocess.run([*self._tmux, "set", "-g", *option], check=True, env=tmux_env)
        subprocess.run([*self._tmux, "set", "-g", "window-size", "manual"], check=True, env=tmux_env)
        subprocess.run(
            [*self._tmux, "set", "-ga", "terminal-features", "xterm*:RGB:sync"], check=True, env=tmux_env
        )
        self._control = subprocess.Popen(
            [*self._tmux, "-C", "attach", "-t", "b"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=tmux_env,
            bufsize=0,
        )
        self._answer("attach")  # the control client's first answer is its own attach's
        self._ask("refresh-client -f no-output")
        self._ask(f"pipe-pane -o -t b 'cat >> {_quoted(str(self._output))}'")
        self.started = time.perf_counter()
        self._ask(f"respawn-pane -k -t b {_quoted(command)}")
        self.pid = int(self._ask("display-message -p -t b '#{pane_pid}'")[0])
        self.child = _Keys(self)
        self.last_output = self.started
        self.read_at = self.started
        self._last_bytes = 0

    def _ask(self, command: str) -> list[str]:
        """One control-mode command; its answer's lines."""
        assert self._control.stdin is not None
        self._control.stdin.write(command.encode() + b"\n")
        return self._answer(command)

    def _answer(self, command: str) -> list[str]:
        assert self._control.stdout is not None
        lines: list[str] = []
        inside = False
        while True:
            raw = self._control.stdout.readline()
            if not raw:
                raise RuntimeError(f"tmux control client ended at {command!r}")
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("%begin"):
                inside, lines = True, []
            elif line.startswith(("%end", "%error")) and inside:
                if line.startswith("%error"):
                    raise RuntimeError(f"tmux: {command!r}: {lines}")
                return lines
            elif inside:
                lines.append(line)

    def type(self, text: str) -> None:
        self._ask("send-keys -t b -H " + " ".join(f"{byte:02x}" for byte in text.encode()))

    def pump(self, timeout: float) -> bool:
        """Read the pane once ``POLL`` has passed (or ``timeout``, if shorter); True if it changed."""
        time.sleep(max(0.0, min(POLL, timeout)))
        lines = self._ask("capture-pane -p -t b")
        lines = [line.ljust(COLS) for line in lines[:ROWS]] + [" " * COLS] * (ROWS - len(lines))
        size = self._output.stat().st_size
        changed = lines != self._lines.display or size != self._last_bytes
        now = time.perf_counter()
        if size - self._last_bytes > 200:
            self.last_output = now
        self.bytes_read += size - self._last_bytes
        self._last_bytes = size
        if changed:
            self._lines.display = lines
            self.read_at = now
        if self.first_frame is None and self.composer() is not None:
            self.first_frame = now
        if self.ready_at is None and self.idle():
            self.ready_at = now
        return changed

    def cpu_ticks(self) -> int:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def close(self) -> None:
        subprocess.run([*self._tmux, "kill-server"], check=False, capture_output=True)
        if self._control.stdin is not None:
            self._control.stdin.close()
        try:
            self._control.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._control.kill()
        shutil.rmtree(self._folder, ignore_errors=True)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
