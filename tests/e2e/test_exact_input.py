"""Input is exact, for real: in a pseudo-terminal, the terminal's answers never reach the prompt and
keys arriving in one burst are applied in the order they were typed.

The real ``zett`` runs against the fake OpenAI server; what the model receives is the proof.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.terminal import Terminal, zett_env
from tests.fakes.llm_server import Reply

pytestmark = pytest.mark.e2e

COLOUR_QUESTION = b"\x1b]11;?"
ATTRIBUTES_QUESTION = b"\x1b[c"
COLOUR_ANSWER = "\x1b]11;rgb:0000/0000/0000\x1b\\"
ATTRIBUTES_ANSWER = "\x1b[?1;2c"


class AnsweringTerminal(Terminal):
    """A terminal that answers a background-colour question and a device-attributes request the
    way xterm does, on the same line as the keyboard."""

    questions = b""

    def on_output(self, data: bytes) -> None:
        self.questions += data
        if COLOUR_QUESTION in data:
            self.send(COLOUR_ANSWER)
        if ATTRIBUTES_QUESTION in data:
            self.send(ATTRIBUTES_ANSWER)


def _user_prompts(llm_server: Any) -> list[str]:
    prompts = []
    for request in llm_server.requests:
        user = [message for message in request.body["messages"] if message["role"] == "user"]
        content = user[-1]["content"]
        prompts.append(content if isinstance(content, str) else "".join(part["text"] for part in content))
    return prompts


def _start(llm_server: Any, tmp_path: Path, **extra: str) -> AnsweringTerminal:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    env = zett_env(
        home,
        OPENAI_API_KEY="sk-test-not-a-real-key-000000000000",
        OPENAI_BASE_URL=llm_server.openai_base_url,
        **extra,
    )
    terminal = AnsweringTerminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    terminal.wait_for_text("Ask zett")
    terminal.wait_for_text("openai:gpt-test")
    return terminal


def test_the_terminals_answers_never_reach_the_prompt_whatever_sets_the_theme(
    llm_server: Any, tmp_path: Path
) -> None:
    llm_server.script(Reply.text("Noted."))
    terminal = _start(llm_server, tmp_path, ZETT_THEME="zett-dark")
    try:
        assert COLOUR_QUESTION in terminal.questions  # zett asked, and was answered, before the app
        # answers that arrive late, while the app runs: attributes (split across two reads), the
        # colours again, a DCS version answer, focus out and in, a cursor position report
        terminal.send("\x1b[?62;")
        terminal.pump(0.05)
        terminal.send("22c")
        terminal.send(COLOUR_ANSWER + "\x1b]10;rgb:ffff/ffff/ffff\x07" + "\x1bP>|xterm(390)\x1b\\")
        terminal.send("\x1b[O\x1b[I\x1b[12;40R")
        terminal.send("hi")
        shown = terminal.wait_for_text("hi")
        for leaked in ("[?", "62;22", "rgb", "xterm(", "12;40"):
            assert leaked not in shown
        terminal.send("\r")
        terminal.wait_for_text("Noted.")
    finally:
        terminal.close()
    assert _user_prompts(llm_server) == ["hi"]


#: Bursts written to the terminal in one write each, and what they leave in the prompt together.
BURSTS = [
    "see @mox\x7fd41 now\x7f\x7f\x7fthen",  # Backspace inside and after an @ query
    "\x0aline two",  # Ctrl+J: a new line, before the words typed after it
    "\x1b[Dx\x1b[C",  # Left, a letter, Right
    " foo bar\x17baz",  # Ctrl+W deletes the word before the cursor
]
EXPECTED = "see @mod41 then\nline twxo foo baz"


def test_keys_in_a_burst_are_applied_in_the_order_they_were_typed(llm_server: Any, tmp_path: Path) -> None:
    llm_server.script(Reply.text("Got it."))
    terminal = _start(llm_server, tmp_path)
    try:
        for burst in BURSTS:
            terminal.send(burst)
        terminal.wait_for_text("baz")
        terminal.pump(0.3)
        terminal.send("\r")
        terminal.wait_for_text("Got it.")
    finally:
        terminal.close()
    assert _user_prompts(llm_server) == [EXPECTED]
