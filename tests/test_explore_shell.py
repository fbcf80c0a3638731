# ruff: noqa: F811
"""The ``explore`` subagent's shell, attacked for real: its commands run in a sandbox where the
project is read-only and the network is off (as Plan Mode's run), in auto mode, with a user who
says yes to every question, and with ``[sandbox] network = true``.

The project lives under /var/tmp, not /tmp: every sandboxed command has a private /tmp, so a file
beside a project under /tmp would be out of reach for that reason alone.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step, tools_step
from tests.sandbox_places import Place, connect_command, listener, place  # noqa: F401  (the fixture)
from zett_tui.config.schema import SandboxSettings
from zett_tui.runtime.events import SubagentActivity, ToolFinished
from zett_tui.runtime.host import AgentHost
from zett_tui.runtime.modes import PermissionMode


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


def explore(commands: list[str]) -> ScriptedModel:
    calls = [(f"c{index}", "bash", {"command": command}) for index, command in enumerate(commands)]
    return ScriptedModel(
        tool_step("t1", "task", {"description": "look", "prompt": "look", "subagent_type": "explore"}),
        tools_step(calls),
        text_step("looked"),
        text_step("done"),
    )


def child_results(sink: Collector) -> dict[str, ToolFinished]:
    return {e.event.call_id: e.event for e in sink.of(SubagentActivity) if isinstance(e.event, ToolFinished)}


async def test_explore_shell_reads_and_cannot_change_anything(place: Place, hosts: HostFactory) -> None:
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
    model = explore([*attacks, "cat app.py && git log --oneline -1 || true"])
    host = await hosts(model, permission_mode=PermissionMode.AUTO)
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


async def test_explore_shell_has_no_network_even_when_the_sandbox_allows_it(
    place: Place, hosts: HostFactory
) -> None:
    server, received = listener()
    port = server.getsockname()[1]
    connect = connect_command(port)
    try:
        model = explore([connect, f"curl -s --max-time 3 http://127.0.0.1:{port}/ || true"])
        host = await hosts(model, permission_mode=PermissionMode.AUTO, sandbox=SandboxSettings(network=True))
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


async def test_explore_shell_does_not_run_without_a_sandbox(place: Place, hosts: HostFactory) -> None:
    model = explore(["echo pwned > app.py"])
    host = await hosts(model, permission_mode=PermissionMode.AUTO, sandbox=SandboxSettings(mode="off"))
    sink = Collector()
    await asyncio.wait_for(run_saying_yes(host, sink), 30)
    assert not (place.project / "app.py").exists()
    result = child_results(sink)["c0"]
    assert result.state == "failed" and "only in a read-only sandbox" in result.output
