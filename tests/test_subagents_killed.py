"""A zett killed (``kill -9``) while a subagent works keeps what the subagent did so far: the turn
in progress holds its run, the next zett adds it to the session as an interrupted turn, and a
resume shows the subagent's block with its rows."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.fakes.host import kill_when_it_prints
from zett_tui.core import paths
from zett_tui.entry.startup import find_session_to_resume
from zett_tui.sessions import live_turn
from zett_tui.sessions.naming import live_path, session_path
from zett_tui.sessions.reader import ReadNotices
from zett_tui.sessions.recorded_turns import load_last_turns

SECRET = "ghp_R8t2Y6u0I4o8P2a6S0d4F8g2H6j0K4l8Z2x6"

KILLED_IN_A_SUBAGENT = textwrap.dedent(
    """
    import asyncio
    from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
    from tests.fakes.host import Collector, make_host, wait_until

    async def main():
        never = asyncio.Event()
        model = ScriptedModel(
            tool_step("t1", "task", {"description": "read notes", "prompt": "Read notes.txt"}),
            tool_step("r1", "read_file", {"path": "notes.txt"}),
            text_step("The notes say the answer is 42 and then", chunk=12, gate=never),
        )
        host = await make_host(model, session_id="killed-in-a-subagent")
        sink = Collector()
        task = asyncio.create_task(host.run_turn("ask a subagent", sink))
        path = host.recorder.session_path(host.session_id)
        live = path.with_suffix(".live")
        await wait_until(lambda: live.exists() and "the answer is 42" in live.read_text(), timeout=20)
        print("MID-SUBAGENT", flush=True)
        await task

    asyncio.run(main())
    """
)


def test_a_kill_in_the_middle_of_a_subagent_keeps_its_run_and_resume_shows_it(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text(f"the answer is 42\nTOKEN={SECRET}\n")
    kill_when_it_prints(KILLED_IN_A_SUBAGENT, "MID-SUBAGENT", cwd=project_dir)
    path = session_path(paths.sessions_dir(), "killed-in-a-subagent")
    assert live_path(path).exists() and not path.exists()  # only the journal, as the kill left it
    assert SECRET not in live_path(path).read_text()  # redacted like the turn's line

    found = find_session_to_resume(project_dir, None, continue_last=True)
    assert found.session_id == "killed-in-a-subagent"
    [line] = [json.loads(text) for text in path.read_text().splitlines()]
    assert line["status"] == live_turn.INTERRUPTED
    child = line["metadata"]["zett"]["subagents"]["t1"]
    assert child["status"] == live_turn.INTERRUPTED and child["description"] == "read notes"
    # Its tokens so far: the one model call that finished (the read), not the one cut off.
    assert (child["input_tokens"], child["output_tokens"]) == (20, 7)
    texts = json.dumps(child["messages"])
    assert "Read notes.txt" in texts and "the answer is 42" in texts  # its prompt and what it read
    assert SECRET not in path.read_text()

    page = load_last_turns(path, 5, ReadNotices())
    [turn] = page.turns
    [tool] = turn.tools
    assert tool.name == "task" and tool.subagent is not None
    assert tool.subagent.status == live_turn.INTERRUPTED and tool.subagent.tokens == 27
    assert tool.subagent.tools == (("read_file", "notes.txt", True),)
