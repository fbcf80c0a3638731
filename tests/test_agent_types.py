"""Subagent kinds: the built-in ones, custom ones from Markdown files (the user's, a trusted
project's), the tools each may use, and ``/agents``."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_subagents import system_text, task
from zett_tui.core import paths
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.subagents.types import READ_TOOLS, AgentType, agent_types, tool_names
from zett_tui.workspace.agent_files import load_agent_files
from zett_tui.workspace.extension_folders import load_workspace_files
from zett_tui.workspace.markdown_commands import Origin

REVIEWER = """---
name: reviewer
description: Reviews a diff for bugs
tools: Read, Grep, Glob
model: inherit
---
You review code. Report bugs with file and line.
"""


def test_claude_code_agent_files_load_with_their_tools(tmp_path: Path) -> None:
    (tmp_path / "reviewer.md").write_text(REVIEWER)
    (tmp_path / "broken.md").write_text("---\nname: Bad Name!\ndescription: x\n---\nbody\n")
    (tmp_path / "empty.md").write_text("---\nname: empty\n---\n")
    agents, problems = load_agent_files([Origin("user", tmp_path)])
    [reviewer] = agents
    assert reviewer.name == "reviewer" and reviewer.model == ""
    assert reviewer.tools == READ_TOOLS and reviewer.read_only
    assert "tools" not in reviewer.prompt and reviewer.prompt.startswith("You review code.")
    assert len(problems) == 2


def test_an_agent_file_asks_for_the_read_only_shell_and_never_gets_a_writable_one(tmp_path: Path) -> None:
    body = "---\nname: {name}\ndescription: looks\n{front}---\nLook around.\n"
    for name, front in (
        ("reader", "tools: Read, Grep\nshell: read-only\n"),
        ("quoted", "tools: Read, Bash\nshell: 'Read-Only'\n"),
        ("writer", "tools: Read, Bash\nshell: writable\n"),
        ("blank", "tools: Read\nshell:\n"),
    ):
        (tmp_path / f"{name}.md").write_text(body.format(name=name, front=front))
    agents, problems = load_agent_files([Origin("user", tmp_path)])
    kinds = {agent.name: agent for agent in agents}
    assert set(kinds) == {"reader", "quoted"}
    assert kinds["reader"].tools == {"read_file", "view_image", "grep", "bash"}
    assert all(kind.read_only_shell and kind.read_only for kind in kinds.values())
    assert len(problems) == 2 and all("shell can only be 'read-only'" in str(problem) for problem in problems)


def test_tool_lists_in_either_naming_and_as_yaml_lists() -> None:
    assert tool_names("Bash, Edit") == {"bash", "edit"}
    assert tool_names("[read_file, grep]") == {"read_file", "grep"}
    assert tool_names("\n- Read\n- Write") == {"read_file", "view_image", "write_file"}
    assert tool_names("Task, Read") == {"read_file", "view_image"}  # never task itself
    assert tool_names("") is None


def test_a_project_agent_loads_only_once_the_project_is_trusted_as_it_is(
    project_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zett_tui.config.trust import TrustState, project_files, remember, trust_state

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = project_dir / ".claude" / "agents"  # a repository with only .claude/agents is a project
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text(REVIEWER)
    env = dict(os.environ)
    files = load_workspace_files(project_dir, env)
    assert files.agents == []
    assert any(".claude/agents" in line for line in files.untrusted)
    project = project_files(project_dir)
    assert project is not None and ".claude/agents/reviewer.md" in project.files
    remember(project, trusted=True)
    [agent] = load_workspace_files(project_dir, env).agents
    assert agent.name == "reviewer" and agent.source.startswith("project: ")
    (folder / "reviewer.md").write_text(REVIEWER.replace("Read, Grep, Glob", "Bash, Write"))
    changed = project_files(project_dir)
    assert changed is not None and trust_state(changed) is not TrustState.TRUSTED  # asked again
    assert load_workspace_files(project_dir, env).agents == []
    (paths.config_dir() / "agents").mkdir(parents=True, exist_ok=True)
    (paths.config_dir() / "agents" / "mine.md").write_text(REVIEWER.replace("reviewer", "mine"))
    assert [agent.name for agent in load_workspace_files(project_dir, env).agents] == ["mine"]


async def test_a_custom_read_only_agent_cannot_write_and_gets_its_instructions(
    project_dir: Path, hosts: HostFactory
) -> None:
    target = project_dir / "app.py"
    target.write_text("x = 1\n")
    (project_dir / "agents").mkdir()
    (project_dir / "agents" / "reviewer.md").write_text(REVIEWER)
    [reviewer], _ = load_agent_files([Origin("user", project_dir / "agents")])
    model = ScriptedModel(
        task("t1", "review", kind="reviewer"),
        tool_step("w1", "write_file", {"path": "app.py", "content": "pwned"}),
        text_step("no bugs"),
        text_step("ok"),
    )
    host = await hosts(model, agent_types=[reviewer], permission_mode=PermissionMode.AUTO)
    await asyncio.wait_for(host.run_turn("go", Collector()), 20)
    task_tool = next(tool for tool in model.requests[0].tools if tool.name == "task")
    assert "reviewer: Reviews a diff for bugs" in task_tool.description  # the model sees the kinds
    assert "explore:" in task_tool.description and "general:" in task_tool.description
    assert "You review code." in system_text(model.requests[1])
    assert target.read_text() == "x = 1\n"


def test_a_file_cannot_replace_a_built_in_kind(tmp_path: Path) -> None:
    (tmp_path / "explore.md").write_text("---\ndescription: explores and writes\ntools: Write\n---\nWrite.\n")
    agents, problems = load_agent_files([Origin("user", tmp_path)])
    assert agents == [] and "built-in" in str(problems[0])
    kinds = agent_types([AgentType("explore", "mine", "prompt", tools=frozenset({"write_file"}))])
    assert [kind.name for kind in kinds] == ["general", "explore"] and kinds[1].read_only


async def test_an_agent_model_answers_its_runs_and_is_closed_after(
    project_dir: Path, hosts: HostFactory
) -> None:
    from zett_tui.runtime.subagents.types import AgentType
    from zett_tui.runtime.turn_model import TurnModel

    small = ScriptedModel(text_step("from the small model"))
    kind = AgentType("quick", "quick lookups", "Be quick.", model="small-one", source="user: quick.md")
    asked: list[str] = []

    def model_for(wanted: str) -> tuple[TurnModel | None, str]:
        asked.append(wanted)
        return TurnModel("small-one", lambda: small, "low"), ""

    main = ScriptedModel(task("t1", "look it up", kind="quick"), text_step("done"))
    host = await hosts(main, agent_types=[kind], model_for=model_for)
    sink = Collector()
    await asyncio.wait_for(host.run_turn("go", sink), 20)
    assert asked == ["small-one"]
    assert len(small.requests) == 1 and len(main.requests) == 2
    from tests.test_subagents import last_tool_result
    from zett_tui.runtime.events import SubagentStarted

    assert last_tool_result(main.requests[1]) == "from the small model"
    assert small.closed
    [started] = sink.of(SubagentStarted)
    assert started.model == "small-one"
