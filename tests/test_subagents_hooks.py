"""Hooks and subagents: a PreToolUse hook sees the ``task`` call as ``Task``; ``SubagentStop``
runs when a subagent is about to answer (and can send it back once), ``Stop`` only for the main
agent."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step
from tests.test_hooks import hook, inputs, script
from tests.test_subagents import task


async def test_subagent_stop_sends_the_subagent_back_and_stop_is_the_main_agents(
    project_dir: Path, hosts: HostFactory
) -> None:
    sub_stop = script(
        project_dir,
        "sub_stop.py",
        "if not event['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'check the tests too'}))\n",
    )
    stop = script(project_dir, "stop.py", "")
    pre = script(project_dir, "pre.py", "")
    model = ScriptedModel(
        task("t1", "look at it"),
        text_step("first report"),
        text_step("report with the tests checked"),
        text_step("all done"),
    )
    hooks = (hook("SubagentStop", sub_stop), hook("Stop", stop), hook("PreToolUse", pre, matcher="Task"))
    host = await hosts(model, cwd=project_dir, hooks=hooks)

    # the project's hooks wait while a tool runs, but not for the task call (they would never run)
    finished = await asyncio.wait_for(host.run_turn("delegate", Collector()), 30)

    assert finished.status == "completed" and finished.answer == "all done"
    assert "check the tests too" in str(model.requests[2].messages[-1].content)  # the child went back
    assert last_tool_result(model.requests[3]) == "report with the tests checked"
    assert [seen["hook_event_name"] for seen in inputs(sub_stop)] == ["SubagentStop", "SubagentStop"]
    assert [seen["stop_hook_active"] for seen in inputs(sub_stop)] == [False, True]
    assert [seen["hook_event_name"] for seen in inputs(stop)] == ["Stop"]  # once: the main agent's
    [seen] = inputs(pre)
    assert seen["tool_name"] == "Task" and seen["tool_input"]["prompt"] == "look at it"
