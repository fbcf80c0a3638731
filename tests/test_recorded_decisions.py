"""Recorded answers belong to the agent that asked: a subagent's ``c1`` and the main agent's ``c1``
are different calls, in the file written now, in files written before the owner was recorded, and
in damaged ones (``sessions.recorded_decisions``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.recorded_decisions import turn_decisions
from zett_tui.sessions.recorded_turns import load_last_turns
from zett_tui.sessions.turn_views import NoteBlock, ToolView, TurnView

CHILD_DECLINED = "✗ You declined: write_file notes.txt (subagent general: bump x)"
MAIN_ALLOWED = "✓ You allowed: echo hi"
MAIN_DECLINED = "✗ You declined: echo hi"
CHILD_ALLOWED = "✓ You allowed: write_file notes.txt (subagent general: bump x)"


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def assistant(*calls: dict[str, Any], content: str = "") -> dict[str, Any]:
    return {"kind": 3, "data": {"attributes": {}, "content": content, "tool_calls": list(calls)}}


def result(call_id: str, name: str, content: str, success: bool = True) -> dict[str, Any]:
    data = {"attributes": {}, "tool_call_id": call_id, "name": name, "content": content, "success": success}
    return {"kind": 4, "data": data}


def child_run(
    session_id: object = "child-1", description: str = "bump x", ok: bool = False
) -> dict[str, Any]:
    write = call("c1", "write_file", {"path": "notes.txt", "content": "2"})
    return {
        "session_id": session_id,
        "type": "general",
        "description": description,
        "status": "completed",
        "messages": [
            {"kind": 2, "data": {"attributes": {}, "content": "Set x to 2"}},
            assistant(write),
            result("c1", "write_file", "wrote" if ok else "the user declined write_file", ok),
            assistant(content="done"),
        ],
    }


def write_turn(path: Path, decisions: object, subagents: object) -> TurnView:
    """One resumed turn: the main agent's ``c1`` (``echo hi``), then a ``task`` whose child also
    made a call ``c1`` (a write), with ``decisions`` and ``subagents`` as recorded."""
    messages = [
        {"kind": 2, "data": {"attributes": {}, "content": "go"}},
        assistant(call("c1", "bash", {"command": "echo hi"})),
        result("c1", "bash", "hi"),
        assistant(call("t1", "task", {"description": "bump x", "prompt": "Set x to 2"})),
        result("t1", "task", "done"),
        assistant(content="Finished."),
    ]
    line = {
        "version": 1,
        "session_id": "main-session",
        "started_at": "2026-01-01T00:00:00+00:00",
        "completed_at": "2026-01-01T00:01:00+00:00",
        "status": "completed",
        "metadata": {"zett": {"decisions": decisions, "subagents": subagents}},
        "tags": {},
        "messages": messages,
    }
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    [turn] = load_last_turns(path, 5, ReadNotices()).turns
    return turn


def main_call(turn: TurnView) -> ToolView:
    return next(tool for tool in turn.tools if tool.name == "bash")


def child_declined(turn: TurnView) -> bool:
    task = next(tool for tool in turn.tools if tool.name == "task")
    assert task.subagent is not None and [name for name, _, _ in task.subagent.tools] == ["write_file"]
    return 0 in task.subagent.declined


def layout(turn: TurnView) -> list[str]:
    """The turn's tool rows and decision lines in the order shown."""
    return [
        block.name if isinstance(block, ToolView) else block.text
        for block in turn.blocks
        if isinstance(block, ToolView) or (isinstance(block, NoteBlock) and block.kind == "decision")
    ]


def test_a_childs_declined_c1_does_not_mark_the_main_agents_c1(tmp_path: Path) -> None:
    decisions = [
        {"text": MAIN_ALLOWED, "call_id": "c1", "subagent_session": None},
        {"text": CHILD_DECLINED, "call_id": "c1", "subagent_session": "child-1", "declined": True},
    ]
    turn = write_turn(tmp_path / "s.jsonl", decisions, {"t1": child_run()})
    assert not main_call(turn).declined
    assert child_declined(turn)
    assert layout(turn) == ["bash", MAIN_ALLOWED, "task", CHILD_DECLINED]


def test_the_main_agents_declined_c1_does_not_mark_the_childs_c1(tmp_path: Path) -> None:
    decisions = [
        {"text": MAIN_DECLINED, "call_id": "c1", "subagent_session": None, "declined": True},
        {"text": CHILD_ALLOWED, "call_id": "c1", "subagent_session": "child-1"},
    ]
    turn = write_turn(tmp_path / "s.jsonl", decisions, {"t1": child_run(ok=True)})
    assert main_call(turn).declined
    assert not child_declined(turn)
    assert layout(turn) == ["bash", MAIN_DECLINED, "task", CHILD_ALLOWED]


def test_a_file_written_before_the_owner_was_recorded_is_read_as_it_was_meant(tmp_path: Path) -> None:
    """Old items name no session; a subagent's line ends with ``(subagent <kind>: <job>)``."""
    decisions = [
        {"text": MAIN_ALLOWED, "call_id": "c1"},
        {"text": CHILD_DECLINED, "call_id": "c1", "declined": True},
    ]
    turn = write_turn(tmp_path / "s.jsonl", decisions, {"t1": child_run()})
    assert not main_call(turn).declined and child_declined(turn)
    assert layout(turn) == ["bash", MAIN_ALLOWED, "task", CHILD_DECLINED]

    decisions = [
        {"text": MAIN_DECLINED, "call_id": "c1", "declined": True},
        {"text": CHILD_ALLOWED, "call_id": "c1"},
    ]
    turn = write_turn(tmp_path / "s.jsonl", decisions, {"t1": child_run(ok=True)})
    assert main_call(turn).declined and not child_declined(turn)


def test_an_old_line_two_runs_share_marks_neither_and_still_shows(tmp_path: Path) -> None:
    twin = child_run("child-2")
    runs = {"t1": child_run(), "t9": twin}
    decisions = [{"text": CHILD_DECLINED, "call_id": "c1", "declined": True}]
    turn = write_turn(tmp_path / "s.jsonl", decisions, runs)
    assert not main_call(turn).declined and not child_declined(turn)
    assert layout(turn)[-1] == CHILD_DECLINED  # its line is kept, after the tools


def test_a_nested_subagents_answer_marks_its_own_row(tmp_path: Path) -> None:
    inner = child_run("grandchild", description="inner job")
    outer = child_run(ok=True)
    outer["messages"][1:1] = [assistant(call("t2", "task", {"description": "inner job", "prompt": "p"}))]
    outer["subagents"] = {"t2": inner}
    decisions = [
        {"text": "✗ You declined: write (subagent general: inner job)", "call_id": "c1",
         "subagent_session": "grandchild", "declined": True},
    ]  # fmt: skip
    turn = write_turn(tmp_path / "s.jsonl", decisions, {"t1": outer})
    task = next(tool for tool in turn.tools if tool.name == "task")
    assert task.subagent is not None
    names = [name for name, _, _ in task.subagent.tools]
    assert names == ["task", "inner job › write_file", "write_file"]
    assert task.subagent.declined == frozenset({1})
    assert not main_call(turn).declined


BAD_DECISIONS: list[object] = [
    None,
    "declined",
    {"c1": True},
    [None, 1, "x", [], {"call_id": 5, "declined": True}, {"text": 3}],
    [{"text": "t", "call_id": "c1", "declined": True, "subagent_session": 7}],
    [{"text": "t", "call_id": "c1", "declined": True, "subagent_session": "no-such-run"}],
    [{"text": "t", "call_id": "c1", "declined": True, "subagent_session": ["child-1"]}],
    [{"text": None, "call_id": None, "declined": True, "subagent_session": None}],
    [{"text": "t (subagent general: bump x)", "call_id": {"id": "c1"}, "declined": "yes"}],
]
BAD_RUNS: list[object] = [
    None,
    [],
    {"t1": "run"},
    {"t1": child_run(session_id=None)},
    {"t1": child_run(session_id=["child-1"])},
    {"t1": {"session_id": "child-1", "type": 3, "description": None, "messages": "x", "subagents": [1]}},
    {5: child_run()},
]


@pytest.mark.parametrize("decisions", BAD_DECISIONS)
@pytest.mark.parametrize("runs", BAD_RUNS)
def test_any_shape_of_bad_input_reads_without_a_traceback_and_marks_no_other_agents_call(
    tmp_path: Path, decisions: object, runs: object
) -> None:
    turn = write_turn(tmp_path / "s.jsonl", decisions, runs)
    assert not main_call(turn).declined  # nothing in these says the main agent's c1 was declined
    assert turn_decisions({"decisions": decisions, "subagents": runs}) is not None


def test_a_deep_chain_of_runs_is_followed_only_so_far() -> None:
    run: dict[str, Any] = child_run("deepest")
    for level in range(50):
        run = {**child_run(f"level-{level}"), "subagents": {"t": run}}
    item = {"text": "x", "call_id": "c1", "subagent_session": "deepest", "declined": True}
    found = turn_decisions({"decisions": [item], "subagents": {"t1": run}})
    assert found.unknown and not found.main and not found.runs


def test_the_markdown_export_says_which_calls_were_declined_and_why(tmp_path: Path) -> None:
    """A reader of the export sees the main agent's and the subagent's declined calls as declined
    (not "failed"), each followed by the answer's line with the user's note."""
    from zett_tui.sessions.export import turn_markdown

    main_line = f"{MAIN_DECLINED} — your note: not on the shared box"
    decisions = [
        {"text": main_line, "call_id": "c1", "subagent_session": None, "declined": True},
        {"text": CHILD_DECLINED, "call_id": "c1", "subagent_session": "child-1", "declined": True},
    ]
    markdown = turn_markdown(write_turn(tmp_path / "s.jsonl", decisions, {"t1": child_run()}))
    assert "**Tool** `bash` `echo hi` — **declined by you**\n" in markdown
    assert f"> *Your answer:* {main_line}\n" in markdown
    assert "> - `write_file` `notes.txt` — **declined by you**\n" in markdown
    assert f"> *Your answer:* {CHILD_DECLINED}\n" in markdown
    assert "failed" not in markdown
