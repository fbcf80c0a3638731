"""The prompt box drawn before Textual: where it is, what it shows, and that it never outlives a
start that failed (zett_tui/terminal/first_frame.py)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pyte
import pytest

from tests.e2e.terminal import Terminal, zett_env
from zett_tui.terminal import first_frame

COLUMNS, ROWS = 80, 24


def drawn(typed: str, columns: int = COLUMNS, rows: int = ROWS) -> list[str]:
    screen = pyte.Screen(columns, rows)
    pyte.Stream(screen).feed(first_frame.frame(columns, rows, typed))
    return screen.display


@pytest.fixture
def terminal_fd() -> Iterator[int]:
    """One end of a real pseudo-terminal of ``COLUMNS`` x ``ROWS``; the other end is read by nobody."""
    import fcntl
    import struct
    import termios

    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    try:
        yield follower
    finally:
        first_frame.hand_over()
        first_frame.app_paints()
        os.close(follower)
        os.close(leader)


def test_the_box_sits_where_the_apps_prompt_box_is_with_the_placeholder_and_a_starting_status() -> None:
    lines = drawn("")
    assert lines[-4] == "╭" + "─" * (COLUMNS - 2) + "╮"
    assert lines[-3].startswith("│ Ask zett…") and lines[-3].endswith(" │")
    assert lines[-2] == "╰" + "─" * (COLUMNS - 2) + "╯"
    assert lines[-1].strip() == "○ starting…"  # not "idle": the agent is not ready yet
    assert "".join(lines[:-4]).strip() == ""


def test_what_was_typed_shows_in_the_box_without_escape_sequences_and_its_end_when_long() -> None:
    assert drawn("hello")[-3].startswith("│ hello ")
    assert drawn("first line\rsecond\x1b[Aline")[-3].startswith("│ secondline ")
    long = "x" * 200 + "END"
    line = drawn(long)[-3]
    assert line.endswith("END  │") and len(line) == COLUMNS  # the box keeps its width
    assert drawn("日本語 ok")[-3].startswith("│  ok ")  # wide signs are left to the app


def test_nothing_is_drawn_off_a_terminal_on_a_dumb_one_or_on_a_tiny_one(
    terminal_fd: int, tmp_path: Path
) -> None:
    with (tmp_path / "out").open("w") as file:
        assert not first_frame.draw(file.fileno(), "", {"TERM": "xterm"})
    assert not first_frame.draw(terminal_fd, "", {"TERM": "dumb"})
    assert not first_frame.draw(terminal_fd, "", {})
    import fcntl
    import struct
    import termios

    fcntl.ioctl(terminal_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 4, 15, 0, 0))
    assert not first_frame.draw(terminal_fd, "", {"TERM": "xterm"})


def test_erase_leaves_the_alternate_screen_only_when_the_app_never_took_it(
    terminal_fd: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[bytes] = []
    real_write = os.write

    def spy(fd: int, data: bytes) -> int:
        written.append(data)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    assert first_frame.draw(terminal_fd, "", {"TERM": "xterm"})
    assert not first_frame.draw(terminal_fd, "", {"TERM": "xterm"})  # once
    first_frame.hand_over()
    first_frame.erase()
    assert len(written) == 1 and written[0].startswith(b"\x1b[?1049h")
    assert first_frame.draw(terminal_fd, "", {"TERM": "xterm"})
    first_frame.erase()
    first_frame.erase()
    assert len(written) == 3 and b"\x1b[?1049l" in written[2]


def read_all(child: pexpect.spawn, timeout: float = 60) -> bytes:
    output = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            output += child.read_nonblocking(65536, timeout=1)
        except pexpect.TIMEOUT:
            continue
        except pexpect.EOF:
            break
    return output


@pytest.mark.e2e
def test_a_start_that_fails_prints_its_message_after_leaving_the_box(tmp_path: Path) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "zett_tui", "--model", "nonsense:x"],
        env=zett_env(tmp_path / "home"),
        cwd=str(tmp_path),
        dimensions=(ROWS, COLUMNS),
    )
    try:
        output = read_all(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 2
    drawn_at = output.index(b"\x1b[?1049h")
    left_at = output.index(b"\x1b[?1049l")
    assert drawn_at < left_at < output.index(b"zett: Unknown provider")


@pytest.mark.e2e
def test_the_box_is_on_screen_before_the_app_and_keys_typed_into_it_reach_the_prompt(
    tmp_path: Path, project_dir: Path
) -> None:
    terminal = RecordingTerminal(["--demo"], env=zett_env(tmp_path / "home"), cwd=project_dir)
    try:
        terminal.wait_for(lambda shown: "Ask zett" in shown)
        terminal.send("typed early")
        terminal.wait_for(lambda shown: "○ idle" in shown and "typed early" in shown)
    finally:
        terminal.close()
    output = b"".join(terminal.chunks)
    assert b"\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J" in output[:64]  # the box is the first thing drawn
    assert output.index("○ starting…".encode()) < output.index("○ idle".encode())


class RecordingTerminal(Terminal):
    """Keeps every byte zett wrote."""

    chunks: list[bytes]

    def on_output(self, data: bytes) -> None:
        self.__dict__.setdefault("chunks", []).append(data)
