"""The real ``zett`` whose terminal goes away, or that is asked to stop, in the middle of an answer:
it records the turn, puts the terminal back when there is one, and exits; it never goes on running
without a terminal (``terminal/hangup.py``)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, zett_env
from tests.fakes.llm_server import Reply

pytestmark = pytest.mark.e2e

KEY = "sk-test-not-a-real-key-000000000000"
#: Streamed slowly: the terminal goes while it is still arriving.
ANSWER = "The answer begins here. " + "And it goes on for a long while. " * 60


def sessions(home: Path) -> Path:
    return home / "data" / "zett" / "sessions"


def start_mid_answer(llm_server, tmp_path: Path, *, ignore_hangup: bool = False) -> tuple[Terminal, Path]:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(Reply.text(ANSWER, chunk=6, delay=0.05))
    env = zett_env(home, OPENAI_API_KEY=KEY, OPENAI_BASE_URL=llm_server.openai_base_url)
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project, ignore_hangup=ignore_hangup)
    terminal.wait_for_text("Ask zett")
    terminal.send("tell me a long story\r")
    terminal.wait_for_text("answer begins here.")
    return terminal, home


def assert_the_turn_was_recorded_by_quitting(home: Path, shown: str = "answer begins here.") -> None:
    """Quitting wrote the session (the turn stopped, with ``shown`` in it) and let go of it: not a
    journal left by a process that was ended before it could."""
    [path] = sessions(home).glob("*.jsonl")
    [turn] = [json.loads(line) for line in path.read_text().splitlines()]
    assert turn["status"] == "cancelled", turn["status"]
    assert shown in json.dumps(turn)
    assert not list(sessions(home).glob("*.live")) and not list(sessions(home).glob("*.lock"))


@pytest.mark.parametrize("ignore_hangup", [False, True], ids=["sighup", "sighup-ignored"])
def test_a_terminal_closed_mid_answer_ends_zett_with_the_turn_recorded(
    llm_server, tmp_path: Path, ignore_hangup: bool
) -> None:
    terminal, home = start_mid_answer(llm_server, tmp_path, ignore_hangup=ignore_hangup)
    try:
        terminal.hang_up()
        assert terminal.wait_exit_without_terminal() == 128 + signal.SIGHUP
    finally:
        terminal.close()
    assert_the_turn_was_recorded_by_quitting(home)


def test_sigterm_mid_answer_puts_the_terminal_back_and_records_the_turn(llm_server, tmp_path: Path) -> None:
    terminal, home = start_mid_answer(llm_server, tmp_path)
    written: list[bytes] = []
    terminal.on_output = written.append  # type: ignore[method-assign]
    try:
        os.kill(terminal.child.pid, signal.SIGTERM)
        assert terminal.wait_exit() == 128 + signal.SIGTERM
    finally:
        terminal.close()
    tail = b"".join(written)
    assert b"\x1b[?1049l" in tail  # the alternate screen left: the shell's screen is back
    assert_the_turn_was_recorded_by_quitting(home)


def test_a_suspended_zett_draws_its_whole_screen_again_when_continued(llm_server, tmp_path: Path) -> None:
    """SIGTSTP (as a shell's job control sends it), then SIGCONT (``fg``): the screen was the
    shell's meanwhile, so every line of zett's comes back, not only what changed since."""
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    env = zett_env(home, OPENAI_API_KEY=KEY, OPENAI_BASE_URL=llm_server.openai_base_url)
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    written: list[bytes] = []
    try:
        terminal.wait_for_text("○ idle")  # the agent is ready: nothing of the start-up is drawn later
        terminal.send("typed before the suspend")
        terminal.wait_for_text("typed before the suspend")
        os.kill(terminal.child.pid, signal.SIGTSTP)
        terminal.wait_for(lambda _shown: terminal.child.ptyproc.isalive() and _stopped(terminal.child.pid))
        terminal.on_output = written.append  # type: ignore[method-assign]
        os.kill(terminal.child.pid, signal.SIGCONT)
        terminal.wait_for(lambda _shown: b"openai:gpt-test" in b"".join(written))
        assert b"typed before the suspend" in b"".join(written)
        terminal.send(" and after")
        terminal.wait_for_text("typed before the suspend and after")
        terminal.send("\x11")  # Ctrl+Q
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()


def _stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "T"


def test_a_terminal_closed_while_an_approval_waits_runs_nothing_and_records_the_turn(
    llm_server, tmp_path: Path
) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(Reply.tool_call("bash", {"command": "echo ran > ran.txt"}))
    env = zett_env(home, OPENAI_API_KEY=KEY, OPENAI_BASE_URL=llm_server.openai_base_url)
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project, ignore_hangup=True)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.send("make the file\r")
        terminal.wait_for_text("Run this shell command?")
        terminal.hang_up()
        assert terminal.wait_exit_without_terminal() == 128 + signal.SIGHUP
    finally:
        terminal.close()
    assert not (project / "ran.txt").exists()
    assert_the_turn_was_recorded_by_quitting(home, shown="make the file")
