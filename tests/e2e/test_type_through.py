"""Type-through, for real: keys typed in a terminal across a shell dialog's opening never answer it.

The real ``zett`` runs in a pseudo-terminal against the fake OpenAI server, which asks for a shell
command (slowly, so the dialog opens while the user is still typing). The user goes on typing a
follow-up with a "1" (the dialog's "Run once") and Enter in it, and then "ok go" + Enter. Nothing
runs: the command's file is never made, the transcript says it was refused, and everything typed is
in the prompt, in order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.terminal import Terminal, zett_env
from tests.fakes.llm_server import Reply

pytestmark = pytest.mark.e2e

DIALOG = "Run this shell command?"
#: The dialog's key line once it takes keys (until then it shows "…").
TAKES_KEYS = "Enter choose"
BEFORE = "thanks, and after that please update the docs and then "
ACROSS = "1 test"


def test_keys_typed_across_a_shell_dialog_opening_stay_in_the_prompt(llm_server, tmp_path: Path) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(
        Reply.tool_call("bash", {"command": "echo ran > ran.txt"}, chunk=4, delay=0.1),
        Reply.text("Understood, not run."),
    )
    env = zett_env(
        home, OPENAI_API_KEY="sk-test-not-a-real-key-000000000000", OPENAI_BASE_URL=llm_server.openai_base_url
    )
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.wait_for_text("openai:gpt-test")
        terminal.send("make the file\r")
        typed_before = 0
        for character in BEFORE:  # typing on while the model's answer streams in
            if DIALOG in terminal.text():
                break
            terminal.send(character)
            typed_before += 1
            terminal.pump(0.03)
        shown = terminal.wait_for_text(DIALOG)
        assert typed_before > 0, "the dialog opened before any key was typed: nothing was typed across it"
        rest = BEFORE[typed_before:] + ACROSS
        terminal.send(rest + "\r" + "ok go" + "\r")  # as fast as a terminal delivers them
        shown = terminal.wait_for_text(TAKES_KEYS)
        assert DIALOG in shown and "You allowed" not in shown
        assert not (project / "ran.txt").exists()

        terminal.send("\x1b")  # armed now: Esc refuses
        shown = terminal.wait_for_text("Understood, not run.")
        assert "You refused: echo ran > ran.txt" in shown
        assert (BEFORE + ACROSS) in shown and "ok go" in shown  # in the prompt, in order, nothing lost
        assert not (project / "ran.txt").exists()
        terminal.send("\x03")  # Ctrl+C clears the prompt
        terminal.wait_for(lambda text: "ok go" not in text)
        terminal.send("\x04")  # Ctrl+D on an empty prompt quits
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()
    bodies = [request.body for request in llm_server.requests]
    assert len(bodies) == 2  # the prompt, then the refused command's result; nothing sent from the prompt
    assert not any("ok go" in str(body) for body in bodies)


def test_a_disguised_command_and_a_message_typed_after_a_pause_in_a_real_terminal(
    llm_server, tmp_path: Path
) -> None:
    """The dialog draws the escapes of ``touch X # ESC[2K ESC[1G echo hello`` (a terminal would
    otherwise erase the line and show only ``echo hello``); then, with the dialog taking keys, a
    message typed and ended with Enter lands in the prompt and approves nothing."""
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(
        Reply.tool_call("bash", {"command": "touch X # \x1b[2K\x1b[1Gecho hello"}),
        Reply.text("Understood, not run."),
    )
    env = zett_env(
        home, OPENAI_API_KEY="sk-test-not-a-real-key-000000000000", OPENAI_BASE_URL=llm_server.openai_base_url
    )
    terminal = Terminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.send("tidy up\r")
        shown = terminal.wait_for_text(TAKES_KEYS)  # armed: the user paused
        assert r"touch X # \x1b[2K\x1b[1Gecho hello" in shown
        terminal.send("wait, first explain\r")
        shown = terminal.wait_for_text("wait, first explain")
        assert DIALOG in shown and "You allowed" not in shown
        terminal.wait_for_text(TAKES_KEYS)
        assert not (project / "X").exists()
        terminal.send("\x1b")
        shown = terminal.wait_for_text("Understood, not run.")
        assert "You refused" in shown and "wait, first explain" in shown
        assert not (project / "X").exists()
        terminal.send("\x03")
        terminal.wait_for(lambda text: "wait, first explain" not in text)
        terminal.send("\x04")
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()
    assert not (project / "X").exists()
