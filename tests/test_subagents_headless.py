"""``zett -p``: a subagent runs under the same ``--allow-*`` flags as the main agent."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_headless import run
from tests.test_subagents import task


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
