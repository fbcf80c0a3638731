"""The real ``zett`` killed with ``kill -9`` in its first turn, then ``zett --continue``: nothing of
what the screen showed is lost but the last second (issue 12, item 2)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, zett_env
from tests.fakes.llm_server import Reply
from zett_tui.ui.chat.past_turns import CUT_OFF

pytestmark = pytest.mark.e2e

KEY = "sk-test-not-a-real-key-000000000000"
#: Streamed slowly: the kill comes while it is still arriving.
ANSWER = "First part of the answer arrives. " + "Then a lot more text that never finishes. " * 40


def session_lines(home: Path) -> list[dict[str, object]]:
    [path] = (home / "data" / "zett" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def wait_until_journaled(home: Path, text: str, timeout: float = 30.0) -> None:
    """Until the turn's journal on disk holds ``text`` (it writes at most once a second): the
    moment a kill loses nothing of it, waited for instead of slept past."""
    sessions = home / "data" / "zett" / "sessions"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for partial in sessions.glob("*.partial"):
            try:
                if text in partial.read_text(errors="replace"):
                    return
            except OSError:  # replaced while read
                continue
        time.sleep(0.02)
    raise AssertionError(f"the journal never held {text!r}")


def test_the_app_killed_mid_stream_in_its_first_turn_is_continued(llm_server, tmp_path: Path) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(Reply.text(ANSWER, chunk=6, delay=0.05), Reply.text("Picked up again."))
    env = zett_env(home, OPENAI_API_KEY=KEY, OPENAI_BASE_URL=llm_server.openai_base_url)
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.send("tell me everything\r")
        terminal.wait_for_text("answer arrives.")
        wait_until_journaled(home, "answer arrives.")
        os.kill(terminal.child.pid, signal.SIGKILL)
        terminal.wait_exit()
    finally:
        terminal.close()
    sessions = home / "data" / "zett" / "sessions"
    assert not list(sessions.glob("*.jsonl")) and list(sessions.glob("*.live"))

    again = Terminal(["--model", "openai:gpt-test", "--continue"], env=env, cwd=project)
    try:
        # the partial answer (Markdown, rendered after it is painted), then the cut-off mark
        shown = again.wait_for(lambda text: CUT_OFF in text and "First part of the answer arrives." in text)
        assert "tell me everything" in shown
        # not "The model was never answered" under the answer it shows (issue 29)
        shown = again.wait_for_text("zett was stopped while the model was answering")
        assert "never answered" not in shown
        again.send("\x04")
        assert again.wait_exit() == 0
    finally:
        again.close()
    [line] = session_lines(home)
    assert line["status"] == "interrupted"
    assert not list(sessions.glob("*.live")) and not list(sessions.glob("*.partial"))


def test_zett_p_killed_mid_stream_leaves_a_listed_session(llm_server, tmp_path: Path) -> None:
    home = tmp_path / "p-home"
    project = tmp_path / "p-project"
    project.mkdir()
    llm_server.script(Reply.text(ANSWER, chunk=6, delay=0.05))
    env = zett_env(home, OPENAI_API_KEY=KEY, OPENAI_BASE_URL=llm_server.openai_base_url)
    command = [sys.executable, "-m", "zett_tui", "--model", "openai:gpt-test"]
    process = subprocess.Popen(
        [*command, "-p", "tell me everything"],
        env=env,
        cwd=project,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    printed = b""
    deadline = time.monotonic() + 30
    while b"answer arrives." not in printed:
        assert time.monotonic() < deadline and process.poll() is None, printed
        printed += os.read(process.stdout.fileno(), 4096)
    wait_until_journaled(home, "answer arrives.")
    process.kill()
    process.wait()
    process.stdout.close()

    listed = subprocess.run(
        [sys.executable, "-m", "zett_tui", "sessions", "list"],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    [row] = [line for line in listed.stdout.splitlines()[1:] if line.strip()]
    assert "cut off" in row and "tell me everything" in row
    [line] = session_lines(home)
    answer = line["messages"][-1]["data"]["content"]  # type: ignore[index]
    assert answer.startswith("First part of the answer arrives. ")
