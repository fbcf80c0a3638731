"""``zett -p``: a subagent runs under the same ``--allow-*`` flags as the main agent."""

from __future__ import annotations

import io
import json
from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_headless import run
from tests.test_subagents import task
from zett_tui.config.schema import SubagentSettings
from zett_tui.entry.headless import run_headless
from zett_tui.entry.launch import LaunchSettings


async def test_a_child_command_is_refused_without_the_flag_and_runs_with_it(project_dir: Path) -> None:
    def script() -> ScriptedModel:
        return ScriptedModel(
            task("t1", "make the file", description="make it"),
            tool_step("c1", "bash", {"command": "touch made.txt"}),
            text_step("child done"),
            text_step("Done."),
        )

    refused = await run(script(), allow_shell=["ls"])
    assert refused.code == 0 and not (project_dir / "made.txt").exists()
    assert "zett: refused shell command `touch made.txt`" in refused.err

    allowed = await run(script(), output="json", allow_shell=["touch"])
    assert (project_dir / "made.txt").exists()
    [started] = allowed.of("subagent_started")
    assert started["call_id"] == "t1" and started["agent_type"] == "general"
    child_rows = [e for e in allowed.of("tool_finished") if e.get("parent_call_id") == "t1"]
    assert [(e["name"], e["state"]) for e in child_rows] == [("bash", "done")]
    [approved] = allowed.of("approved")
    assert approved["target"] == "touch made.txt"
    [finished] = allowed.of("subagent_finished")
    assert finished["status"] == "completed"


async def test_text_mode_marks_the_child_lines(project_dir: Path) -> None:
    model = ScriptedModel(
        task("t1", "make the file", description="make it"),
        tool_step("c1", "bash", {"command": "touch made.txt"}),
        text_step("child done"),
        text_step("Done."),
    )
    result = await run(model, allow_shell=["touch"])
    assert "zett:   ↳ ran `touch made.txt`" in result.err
    assert "zett: task make it" in result.err


async def test_json_mode_tells_a_subagents_own_subagent_by_its_sessions(project_dir: Path) -> None:
    """Call ids are unique only within a session: with ``max_depth = 2`` each line names the
    subagent's session, and a nested ``subagent_started`` its parent's."""
    (project_dir / "notes.txt").write_text("the notes\n")
    model = ScriptedModel(
        task("t1", "Delegate the reading", description="outer job"),
        task("t1", "Read notes.txt", description="inner job"),
        tool_step("t1", "read_file", {"path": "notes.txt"}),
        text_step("inner report"),
        text_step("outer report"),
        text_step("Done."),
    )
    out, err = io.StringIO(), io.StringIO()
    launch = LaunchSettings(
        model_label="scripted",
        model_factory=lambda: model,
        cwd=Path.cwd(),
        subagents=SubagentSettings(max_depth=2),
    )
    code = await run_headless(launch, "go", out=out, err=err, handle_signals=False, output="json")
    assert code == 0, err.getvalue()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    outer, inner = [line for line in lines if line["type"] == "subagent_started"]
    assert (outer["description"], inner["description"]) == ("outer job", "inner job")
    assert inner["parent_session_id"] == outer["session_id"] != outer["parent_session_id"]
    reads = [line for line in lines if line["type"] == "tool_finished" and line["name"] == "read_file"]
    assert [(line["parent_call_id"], line["session_id"]) for line in reads] == [("t1", inner["session_id"])]
    ended = {line["session_id"]: line["status"] for line in lines if line["type"] == "subagent_finished"}
    assert ended == {outer["session_id"]: "completed", inner["session_id"]: "completed"}


async def test_text_mode_keeps_a_subagents_refusal_apart_from_the_main_agents_call_of_its_id(
    project_dir: Path,
) -> None:
    """Call ids repeat across sessions: the subagent's refused ``c1`` must not silence the main
    agent's own ``c1`` line."""
    model = ScriptedModel(
        task("t1", "clean up", description="clean"),
        tool_step("c1", "bash", {"command": "rm -f notes.txt"}),
        text_step("it was refused"),
        tool_step("c1", "bash", {"command": "touch main.txt"}),
        text_step("Done."),
    )
    result = await run(model, allow_shell=["touch"])
    assert "zett: refused shell command `rm -f notes.txt`" in result.err
    assert "zett: ran `touch main.txt`" in result.err
    assert (project_dir / "main.txt").exists()
