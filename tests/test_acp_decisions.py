"""What the editor's user answered in ``zett acp`` is kept in the session file, as the terminal
keeps its answers: a session made in the editor and opened again (in the terminal, or with
``session/load``) shows which calls were declined, and the answers' lines."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, text_block

from tests.fakes.llm_server import Reply
from tests.fakes.scripted_model import ScriptedModel
from tests.test_acp import EditorClient, spawn, started
from tests.test_headless import recorded_turns
from tests.ui_helpers import make_app, ready_app, screen_text, tools, wait_for
from zett_tui.entry.startup import find_session_to_resume


async def made_in_the_editor(llm_server: Any) -> dict[str, Any]:
    """One turn in which the editor allows ``touch one.txt`` and declines ``touch two.txt``."""
    llm_server.script(
        Reply.tool_call("bash", {"command": "touch one.txt"}, call_id="c1"),
        Reply.tool_call("bash", {"command": "touch two.txt"}, call_id="c2"),
        Reply.text("One of two."),
    )
    client = EditorClient(["run", "refuse"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("touch them")]), 90)
    assert len(client.questions) == 2
    [turn] = recorded_turns()
    return turn


async def test_the_editors_answers_are_kept_with_the_turn(llm_server: Any, project_dir: Path) -> None:
    turn = await made_in_the_editor(llm_server)
    assert (project_dir / "one.txt").exists() and not (project_dir / "two.txt").exists()
    decisions = turn["metadata"]["zett"]["decisions"]
    assert decisions == [
        {"text": "✓ You allowed: touch one.txt", "call_id": "c1", "subagent_session": None},
        {"text": "✗ You refused: touch two.txt", "call_id": "c2", "subagent_session": None, "declined": True},
    ]


async def test_a_session_made_in_the_editor_shows_its_declined_call_in_the_terminal(
    llm_server: Any, project_dir: Path
) -> None:
    turn = await made_in_the_editor(llm_server)
    found = find_session_to_resume(project_dir, turn["session_id"][:12], continue_last=False)
    app = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(app) as pilot:
        await wait_for(pilot, lambda: len(tools(app)) == 2)
        assert [row.state for row in tools(app)] == ["done", "declined"]
        await wait_for(pilot, lambda: "You refused: touch two.txt" in screen_text(app))


async def test_session_load_replays_the_declined_call_as_declined(llm_server: Any, project_dir: Path) -> None:
    turn = await made_in_the_editor(llm_server)
    client = EditorClient()
    async with spawn(client, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.load_session(cwd=os.getcwd(), session_id=turn["session_id"], mcp_servers=[])
    finished = {update.tool_call_id: update for update in client.of("tool_call_update")}
    assert finished["c1"].status == "completed"
    assert finished["c2"].status == "failed" and finished["c2"].raw_output == {"zett_state": "declined"}
    said = "".join(
        block.content.text for block in finished["c2"].content or () if hasattr(block.content, "text")
    )
    assert said.startswith("Declined by the user.") and "✗ You refused: touch two.txt" in said


async def test_a_subagents_declined_call_is_kept_as_its_own_and_replayed_under_its_task(
    llm_server: Any, project_dir: Path
) -> None:
    """The subagent's ``c1`` is declined in the editor; the main agent's ``c1`` ran: the file says
    whose answer it was, and ``session/load`` marks only the subagent's row."""
    llm_server.script(
        Reply.tool_call("bash", {"command": "touch main.txt"}, call_id="c1"),
        Reply.tool_call("task", {"description": "Write it", "prompt": "Write done.txt"}, call_id="t1"),
        Reply.tool_call("write_file", {"path": "done.txt", "content": "done\n"}, call_id="c1"),
        Reply.text("I could not write it."),
        Reply.text("The subagent was stopped."),
    )
    client = EditorClient(["run", "reject"])
    async with spawn(client, llm_server) as (conn, _process):
        session_id = await started(conn)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("go")]), 90)
    assert (project_dir / "main.txt").exists() and not (project_dir / "done.txt").exists()
    [turn] = recorded_turns()
    child_session = turn["metadata"]["zett"]["subagents"]["t1"]["session_id"]
    main, child = turn["metadata"]["zett"]["decisions"]
    assert main == {"text": "✓ You allowed: touch main.txt", "call_id": "c1", "subagent_session": None}
    assert child["call_id"] == "c1" and child["declined"] is True
    assert child["subagent_session"] == child_session
    assert child["text"] == "✗ You did not apply: create done.txt (+1 −0) (subagent general: Write it)"

    loaded = EditorClient()
    async with spawn(loaded, llm_server) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.load_session(cwd=os.getcwd(), session_id=turn["session_id"], mcp_servers=[])
    finished = {update.tool_call_id: update for update in loaded.of("tool_call_update")}
    assert finished["c1"].status == "completed" and finished["c1"].raw_output is None
    assert finished["t1/c1"].status == "failed"
    assert finished["t1/c1"].raw_output == {"zett_state": "declined"}
