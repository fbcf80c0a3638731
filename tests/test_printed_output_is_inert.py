"""What zett prints outside the app is inert too: ``zett -p`` answers, its notices, ``sessions show``.

A model answer holding OSC 52 put ``rm -rf ~`` on the clipboard and OSC 0 retitled the terminal
(issue 12). Every byte that reaches a terminal goes through ``core/inert_text``; JSON keeps the
text exact for a reader, with what a terminal would act on escaped.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_headless import run
from zett_tui.core import paths
from zett_tui.core.inert_text import InertWriter
from zett_tui.sessions import cli as session_cli

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
TITLE = "\x1b]0;pwned\x1b\\"
C1_CSI = "\x9b31m"
BIDI = "\u202e"
HOSTILE = f"safe {CLIPBOARD}start{TITLE} {C1_CSI}red{BIDI}txt end"
TERMINAL_ACTS_ON = ("\x1b", "\x07", "\x9b", "\u202e")


def assert_inert(text: str) -> None:
    for char in TERMINAL_ACTS_ON:
        assert char not in text, f"{char!r} reached the terminal"


async def test_a_hostile_answer_prints_inert_in_text_mode(project_dir: Path) -> None:
    result = await run(ScriptedModel(text_step(HOSTILE, chunk=3)))
    assert result.code == 0
    assert_inert(result.out)
    assert "safe" in result.out and "end" in result.out


async def test_a_hostile_command_in_a_refusal_notice_prints_inert(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": f"echo {TITLE}x"}), text_step("done"))
    result = await run(model)
    assert "refused" in result.err or "not allowed" in result.err
    assert_inert(result.err)


async def test_json_mode_escapes_what_a_terminal_would_act_on_and_keeps_the_text(project_dir: Path) -> None:
    result = await run(ScriptedModel(text_step(HOSTILE)), output="json")
    assert_inert(result.out)
    text = "".join(event["text"] for event in result.events if event["type"] == "text")
    assert text == HOSTILE  # a JSON reader still gets exactly what the model said


async def test_sessions_show_prints_a_hostile_session_inert(project_dir: Path) -> None:
    await run(ScriptedModel(text_step(HOSTILE)), prompt=f"title {TITLE}")
    session = next(paths.sessions_dir().glob("*.jsonl"))
    session_id = json.loads(session.read_text().splitlines()[0])["session_id"]
    out, err = io.StringIO(), io.StringIO()
    code = session_cli.show_session(session_id, InertWriter(out), err=InertWriter(err))  # type: ignore[arg-type]
    assert code == 0
    assert_inert(out.getvalue() + err.getvalue())
    assert "title" in out.getvalue()
