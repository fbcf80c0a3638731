"""Characters typed while an answer streams are drawn from the input thread, for real: the real
``zett`` in a pseudo-terminal writes each one at the prompt's cursor before its frame, and the
screen ends up as the app means it, the text sent whole (``ui/speed/predicted_echo.py``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.terminal import RecordingTerminal, zett_env
from tests.fakes.llm_server import Reply

pytestmark = pytest.mark.e2e

SLOW = "The loader reads each file, then the tests check what it read, one after another. " * 6
TYPED = "and the docs"
#: Typed with slips: Backspace (DEL, as a terminal sends it) erases them; the first one empties the
#: prompt.
KEYS = "q\x7fand the dox\x7fcs"


def erased_ahead(written: bytes) -> bool:
    """Whether Backspace was written as the input thread draws it: the cursor moved back a cell, the
    cursor's blank and a blank in another style there, the cursor left on that cell."""
    pattern = rb"\x1b\[(\d+);(\d+)H\x1b\[[0-9;]*m \x1b\[0m\x1b\[[0-9;]*m \x1b\[0m\x1b\[\1;\2H"
    return re.search(pattern, written) is not None


def placeholder_drawn_back(written: bytes) -> bool:
    """Whether the empty prompt's row was written as the input thread draws it back: the cursor moved
    to a cell, runs of styled text with the running turn's placeholder, the cursor back there."""
    pattern = rb"\x1b\[(\d+);(\d+)H((?:\x1b\[[0-9;]*m[^\x1b]*\x1b\[0m)+)\x1b\[\1;\2H"
    return any(b"tell the running turn" in found[2] for found in re.findall(pattern, written))


def drawn_ahead(written: bytes, character: str) -> bool:
    """Whether ``character`` was written as the input thread draws one: the cursor moved to a cell,
    the character in one style, a blank (the cursor) in another, the cursor moved one cell on."""
    pattern = (
        rb"\x1b\[(\d+);(\d+)H\x1b\[[0-9;]*m" + re.escape(character.encode()) + rb"\x1b\[0m"
        rb"\x1b\[[0-9;]*m \x1b\[0m(?:\x1b\[[0-9;]*m +\x1b\[0m)?\x1b\[\1;(\d+)H"
    )
    return any(int(found[2]) == int(found[1]) + 1 for found in re.findall(pattern, written))


def test_keys_typed_while_an_answer_streams_are_drawn_ahead_and_sent_whole(
    llm_server: Any, tmp_path: Path
) -> None:
    home = tmp_path / "e2e-home"
    project = tmp_path / "e2e-project"
    project.mkdir()
    llm_server.script(Reply.text(SLOW, chunk=4, delay=0.02), Reply.text("Docs noted."))
    env = zett_env(
        home, OPENAI_API_KEY="sk-test-echo-000000000000", OPENAI_BASE_URL=llm_server.openai_base_url
    )
    terminal = RecordingTerminal(["--model", "openai:gpt-test"], env=env, cwd=project)
    try:
        terminal.wait_for_text("Ask zett")
        terminal.wait_for(lambda text: "idle" in text)
        terminal.send("read the loader\r")
        terminal.wait_for_text("The loader reads")
        terminal.written = b""
        for key in KEYS:
            terminal.send(key)
            terminal.pump(0.08)
        assert drawn_ahead(terminal.written, "q") and drawn_ahead(terminal.written, "d")
        assert drawn_ahead(terminal.written, "s")
        assert erased_ahead(terminal.written)
        assert placeholder_drawn_back(terminal.written)
        terminal.wait_for(lambda text: "idle" in text, timeout=60)
        shown = terminal.wait_for_text(TYPED)
        assert shown.count(TYPED) == 1
        terminal.send("\r")
        terminal.wait_for_text("Docs noted.")
    finally:
        terminal.close()
    users = [message for message in llm_server.requests[-1].body["messages"] if message["role"] == "user"]
    assert TYPED in json.dumps(users[-1]["content"])
