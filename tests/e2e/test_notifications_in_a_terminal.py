"""The real ``zett`` in a pseudo-terminal: the terminal reports focus out (``ESC [ O``) while a turn
runs, and zett writes the notification and the title; focus in (``ESC [ I``) puts the title back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.terminal import RecordingTerminal, zett_env
from tests.fakes.llm_server import Reply

pytestmark = pytest.mark.e2e

FOCUS_OUT, FOCUS_IN = "\x1b[O", "\x1b[I"
NOTIFICATION = b"\x1b]9;zett: done - Sum the column\x07\x1b]777;notify;zett: done;Sum the column\x07"
TITLE_DONE = b"\x1b[22;0t\x1b]0;zett: done\x07"
TITLE_BACK = b"\x1b]0;zett\x07\x1b[23;0t"


def test_focus_out_then_a_turn_ending_notifies_and_focus_in_restores_the_title(
    llm_server, tmp_path: Path
) -> None:
    home, project = tmp_path / "e2e-home", tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(Reply.text("The total is 42, counted one row at a time.", chunk=4, delay=0.3))
    env = zett_env(
        home, OPENAI_API_KEY="sk-test-not-a-real-key-000000000000", OPENAI_BASE_URL=llm_server.openai_base_url
    )
    terminal = RecordingTerminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.wait_for_text("openai:gpt-test")
        assert b"\x1b[?1004h" in terminal.written  # Textual asked the terminal to report focus
        terminal.send("Sum the column\r")
        terminal.wait_for_text("The total")  # the answer is streaming: the user looks away now
        terminal.send(FOCUS_OUT)
        terminal.wait_for(lambda shown: "idle" in shown)
        terminal.wait_for(lambda shown: TITLE_DONE in terminal.written)
        assert NOTIFICATION + TITLE_DONE in terminal.written
        terminal.send(FOCUS_IN)
        terminal.wait_for(lambda shown: TITLE_BACK in terminal.written)
        terminal.send("\x11")  # Ctrl+Q
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()
    assert terminal.written.count(TITLE_BACK) == 1  # quitting had nothing more to put back
