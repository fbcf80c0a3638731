# ruff: noqa: F811
"""The ``explore`` subagent's shell, attacked for real: its commands run in a sandbox where the
project is read-only and the network is off (as Plan Mode's run), in auto mode, with a user who
says yes to every question, and with ``[sandbox] network = true``. A custom agent whose file asks
for that shell (``shell: read-only``) is attacked the same way, also when its ``tools`` name
Claude Code's ``Bash`` or are left out (every tool).

The project lives under /var/tmp, not /tmp: every sandboxed command has a private /tmp, so a file
beside a project under /tmp would be out of reach for that reason alone.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step, tools_step
from tests.sandbox_places import Place, connect_command, listener, place  # noqa: F401  (the fixture)
from zett_tui.config.schema import SandboxSettings
from zett_tui.core import paths
from zett_tui.runtime.events import SubagentActivity, ToolFinished
from zett_tui.runtime.host import AgentHost
from zett_tui.runtime.modes import PermissionMode
from zett_tui.workspace.extension_folders import load_workspace_files


def git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(project), *args], check=True, capture_output=True, text=True
    ).stdout


async def run_saying_yes(host: AgentHost, sink: Collector) -> None:
    """The turn, with every question answered yes (the worst a tired user can do)."""
    turn = asyncio.ensure_future(host.run_turn("explore it", sink))
    while not turn.done():
        try:
            decision = await asyncio.wait_for(sink.decisions.get(), 0.2)
        except TimeoutError:
            continue
        call = decision.payload.get("tool_call_id")
        host.answer(decision, {"tool_call_id": call, "decision": "execute", "network": True})
    await turn


def explore(commands: list[str], kind: str = "explore") -> ScriptedModel:
    calls = [(f"c{index}", "bash", {"command": command}) for index, command in enumerate(commands)]
    return ScriptedModel(
        tool_step("t1", "task", {"description": "look", "prompt": "look", "subagent_type": kind}),
        tools_step(calls),
        text_step("looked"),
        text_step("done"),
    )


#: The kinds whose shell only reads: the built-in one, and custom agent files that ask for it.
AGENT_FILES = {
    "explore": None,
    "looker": "tools: Read, Grep, Glob, Bash\nshell: read-only\n",
    "helper": "shell: read-only\n",  # no tools line: every tool, and still a shell that only reads
}


def read_only_kind(name: str, place: Place) -> dict[str, Any]:
    """The host options that offer ``name``: a custom one is written as the user's agent file and
    read by the loader zett starts with."""
    front = AGENT_FILES[name]
    if front is None:
        return {}
    folder = paths.config_dir() / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(f"---\nname: {name}\ndescription: looks\n{front}---\nLook around.\n")
    files = load_workspace_files(place.project, dict(os.environ))
    [kind] = files.agents
    assert kind.name == name and kind.read_only_shell and kind.allows("bash")
    return {"agent_types": files.agents}


def child_results(sink: Collector) -> dict[str, ToolFinished]:
    return {e.event.call_id: e.event for e in sink.of(SubagentActivity) if isinstance(e.event, ToolFinished)}


@pytest.mark.parametrize("kind", list(AGENT_FILES))
async def test_explore_shell_reads_and_cannot_change_anything(
    place: Place, hosts: HostFactory, kind: str
) -> None:
    options = read_only_kind(kind, place)
    project = place.project
    (project / "app.py").write_text("x = 1\n")
    git(project, "init", "-q")
    git(project, "add", "app.py")
    config_before = (project / ".git" / "config").read_text()
    victim = place.beside / "victim.txt"
    victim.write_text("original\n")
    attacks = [
        "echo pwned > app.py",
        "rm -f app.py",
        "mv app.py moved.py",
        "touch planted.txt",
        "echo '{\"mcpServers\": {}}' > .mcp.json",
        "mkdir -p .zett && echo 'x = 1' > .zett/config.toml",
        "mkdir -p .vscode && echo '{}' > .vscode/settings.json",
        "echo 'echo pwned' > .envrc",
        "ln -s /etc/passwd linked",
        "git config core.fsmonitor 'touch /var/tmp/zett-explore-fsmonitor'",
        "echo '#!/bin/sh' > .git/hooks/pre-commit",
        "git commit -q -m pwned --allow-empty",
        "git checkout -q -b pwned",
        f"echo pwned > {victim}",
        "echo pwned > ~/.bashrc",
        "python3 -c \"open('app.py', 'w').write('pwned')\"",
        "(sleep 0.2; echo late > late.txt) &",
    ]
    model = explore([*attacks, "cat app.py && git log --oneline -1 || true"], kind)
    host = await hosts(model, permission_mode=PermissionMode.AUTO, **options)
    sink = Collector()
    await asyncio.wait_for(run_saying_yes(host, sink), 60)
    await asyncio.sleep(0.5)  # the background write's moment has passed

    results = child_results(sink)
    assert len(results) == len(attacks) + 1
    assert results[f"c{len(attacks)}"].state == "done"
    assert "x = 1" in results[f"c{len(attacks)}"].output  # it reads
    assert (project / "app.py").read_text() == "x = 1\n"
    names = {path.name for path in project.iterdir()}
    assert names == {"app.py", ".git"}, names
    assert (project / ".git" / "config").read_text() == config_before
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert git(project, "branch", "--list", "pwned") == ""
    assert git(project, "rev-list", "--all") == ""  # no commit was made
    assert victim.read_text() == "original\n"
    assert not (place.home / ".bashrc").exists()
    assert not Path("/var/tmp/zett-explore-fsmonitor").exists()
    assert "This subagent only reads" in results["c0"].output  # the model hears why


@pytest.mark.parametrize("kind", list(AGENT_FILES))
async def test_explore_shell_has_no_network_even_when_the_sandbox_allows_it(
    place: Place, hosts: HostFactory, kind: str
) -> None:
    options = read_only_kind(kind, place)
    server, received = listener()
    port = server.getsockname()[1]
    connect = connect_command(port)
    try:
        model = explore([connect, f"curl -s --max-time 3 http://127.0.0.1:{port}/ || true"], kind)
        host = await hosts(
            model, permission_mode=PermissionMode.AUTO, sandbox=SandboxSettings(network=True), **options
        )
        assert host.shell_sandbox is not None and host.shell_sandbox.network
        sink = Collector()
        await asyncio.wait_for(run_saying_yes(host, sink), 60)
        await asyncio.sleep(0.3)
        assert received == []
        assert child_results(sink)["c0"].state == "failed"
    finally:
        server.close()


async def test_a_general_subagent_still_writes_in_auto_mode(place: Place, hosts: HostFactory) -> None:
    """The read-only shell is explore's, not every subagent's."""
    model = ScriptedModel(
        tool_step("t1", "task", {"description": "write", "prompt": "write", "subagent_type": "general"}),
        tool_step("c1", "bash", {"command": "echo hi > made.txt"}),
        text_step("made"),
        text_step("done"),
    )
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
    await asyncio.wait_for(host.run_turn("go", Collector()), 30)
    assert (place.project / "made.txt").read_text() == "hi\n"


@pytest.mark.parametrize("kind", list(AGENT_FILES))
async def test_explore_shell_does_not_run_without_a_sandbox(
    place: Place, hosts: HostFactory, kind: str
) -> None:
    options = read_only_kind(kind, place)
    model = explore(["echo pwned > app.py"], kind)
    host = await hosts(
        model, permission_mode=PermissionMode.AUTO, sandbox=SandboxSettings(mode="off"), **options
    )
    sink = Collector()
    await asyncio.wait_for(run_saying_yes(host, sink), 30)
    assert not (place.project / "app.py").exists()
    result = child_results(sink)["c0"]
    assert result.state == "failed" and "only in a read-only sandbox" in result.output
