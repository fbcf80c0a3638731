"""MCP servers through the real app: started with the agent, each call asked about in a dialog that
shows the server, the tool and the arguments; the answer reaches the model; Plan Mode refuses a tool
its server does not mark read-only without asking; quitting stops the servers."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.test_dialogs import dialog_closed, open_dialog, shown
from tests.ui_helpers import dialog_armed, idle, make_app, notices, prompts, ready_app, submit, wait_for
from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp.server_connection import ServerState
from zett_tui.runtime.modes import PermissionMode
from zett_tui.ui.app import ZettApp
from zett_tui.ui.modals.choice_dialog import ChoiceDialog

ROOT = Path(__file__).resolve().parent.parent
TIME = McpServerConfig(
    "time", command=sys.executable, args=("-m", "mcp_server_time", "--local-timezone", "UTC")
)
FAKE = McpServerConfig(
    "fake", command=sys.executable, args=("-m", "tests.fakes.mcp_server"), env={"PYTHONPATH": str(ROOT)}
)


def servers_ready(app: ZettApp) -> bool:
    manager = app.mcp.manager
    return manager is not None and all(status.state is ServerState.READY for status in manager.statuses())


@pytest.fixture
async def stop_servers() -> AsyncIterator[list[ZettApp]]:
    """The apps a test made: their servers are stopped even when the test fails (run_test does not
    go through /quit)."""
    apps: list[ZettApp] = []
    yield apps
    for app in apps:
        app.mcp.stop()


async def test_an_approved_call_shows_its_arguments_and_its_result_reaches_the_model(
    stop_servers: list[ZettApp],
) -> None:
    model = ScriptedModel(
        tool_step("c1", "mcp__time__get_current_time", {"timezone": "Europe/Berlin"}),
        text_step("It is late."),
    )
    app = make_app(model, mcp_servers=(TIME,))
    stop_servers.append(app)
    async with ready_app(app, size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)
        await submit(pilot, "what time is it in Berlin?")
        dialog = await open_dialog(pilot)
        text = shown(app)
        assert "time" in text and "get_current_time" in text
        assert '"timezone": "Europe/Berlin"' in text
        assert "Run once" in text and "for this session" in text and "Don't run" in text
        await pilot.press("enter")  # Run once
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app), timeout=30)
    assert len(model.requests) == 2
    result = last_tool_result(model.requests[1])
    assert "Europe/Berlin" in result and "datetime" in result
    names = {tool.name for tool in model.requests[0].tools}
    assert "mcp__time__get_current_time" in names


async def test_a_refused_call_never_reaches_the_server(stop_servers: list[ZettApp]) -> None:
    model = ScriptedModel(tool_step("c1", "mcp__fake__write_note", {"text": "hello"}), text_step("ok"))
    app = make_app(model, mcp_servers=(FAKE,))
    stop_servers.append(app)
    async with ready_app(app, size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)
        await submit(pilot, "write a note")
        dialog = await open_dialog(pilot)
        await pilot.press("escape")  # Don't run: the note field
        await pilot.press("enter")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app), timeout=30)
    result = last_tool_result(model.requests[1])
    assert "declined mcp__fake__write_note" in result and "wrote" not in result


async def test_plan_mode_refuses_a_tool_not_marked_read_only_without_a_dialog(
    stop_servers: list[ZettApp],
) -> None:
    model = ScriptedModel(
        tool_step("c1", "mcp__fake__write_note", {"text": "hello"}),
        tool_step("c2", "mcp__fake__lookup", {"word": "plan"}),
        text_step("Planned."),
    )
    app = make_app(model, mcp_servers=(FAKE,), host_overrides={"permission_mode": PermissionMode.PLAN})
    stop_servers.append(app)
    seen: list[Any] = []
    async with ready_app(app, size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)
        await submit(pilot, "plan a note")

        def finished() -> bool:
            seen.append(app.screen)
            return idle(app) and len(model.requests) == 3

        await wait_for(pilot, finished, timeout=30)
    assert not any(isinstance(screen, ChoiceDialog) for screen in seen)
    assert "cannot run while Plan Mode is on" in last_tool_result(model.requests[1])
    assert last_tool_result(model.requests[2]) == "plan: a word"


async def test_quitting_stops_the_servers(stop_servers: list[ZettApp]) -> None:
    app = make_app(ScriptedModel(), mcp_servers=(FAKE,))
    stop_servers.append(app)
    async with ready_app(app) as pilot:
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)
        manager = app.mcp.manager
        assert manager is not None
        pid = int((await manager.call_tool("fake", "pid", {})).content[0].text)  # type: ignore[union-attr]
        os.kill(pid, 0)  # running
        await app.action_quit()
    assert app.mcp.manager is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_the_status_line_says_when_a_server_failed_and_clears_when_all_are_ready(
    stop_servers: list[ZettApp], project_dir: Path
) -> None:
    broken = McpServerConfig("broken", command=str(project_dir / "no-such-program"))
    app = make_app(ScriptedModel(), mcp_servers=(FAKE, broken))
    stop_servers.append(app)
    async with ready_app(app, size=(160, 30)) as pilot:
        await wait_for(pilot, lambda: "1 failed (/mcp)" in app.chat.status.mcp, timeout=60)
        await wait_for(pilot, lambda: "starting" not in app.chat.status.mcp, timeout=60)
        assert "MCP: 1 failed (/mcp)" in shown(app)
        manager = app.mcp.manager
        assert manager is not None
        manager.disable("broken")
        await wait_for(pilot, lambda: app.chat.status.mcp == "")


def test_the_status_words() -> None:
    from zett_tui.runtime.mcp.lifetime import status_line
    from zett_tui.runtime.mcp.server_connection import ServerStatus

    assert status_line([ServerStatus("a", ServerState.READY)]) == ""
    assert status_line(
        [ServerStatus("a", ServerState.STARTING), ServerStatus("b", ServerState.DISABLED)]
    ) == ("MCP: 1 starting")
    assert status_line([ServerStatus("a", ServerState.STARTING), ServerStatus("b", ServerState.FAILED)]) == (
        "MCP: 1 starting, 1 failed (/mcp)"
    )


async def test_slash_mcp_lists_restarts_and_disables(stop_servers: list[ZettApp], project_dir: Path) -> None:
    from tests.ui_helpers import notices

    broken = McpServerConfig("broken", command=str(project_dir / "no-such-program"))
    off = McpServerConfig("off", command="true", enabled=False)
    app = make_app(ScriptedModel(), mcp_servers=(FAKE, broken, off))
    stop_servers.append(app)
    async with ready_app(app, size=(160, 40)) as pilot:
        manager = app.mcp.manager
        assert manager is not None
        await wait_for(
            pilot, lambda: "failed" in app.chat.status.mcp and "starting" not in app.chat.status.mcp, 60
        )
        await submit(pilot, "/mcp")
        await wait_for(pilot, lambda: any("MCP servers:" in text for text in notices(app)))
        listing = next(text for text in notices(app) if "MCP servers:" in text)
        assert "fake: ready with 6 tools" in listing
        assert "mcp__fake__lookup (read-only)  Look a word up." in listing
        assert "mcp__fake__write_note  Write a note." in listing
        assert "broken: failed: cannot start it" in listing
        assert "off: disabled (/mcp restart off starts it)" in listing
        pid_before = (await manager.call_tool("fake", "pid", {})).content[0].text  # type: ignore[union-attr]
        await submit(pilot, "/mcp restart fake")
        await wait_for(pilot, lambda: any("Starting MCP server fake again" in text for text in notices(app)))

        async def new_pid() -> bool:
            try:
                answer = await manager.call_tool("fake", "pid", {})
            except Exception:
                return False
            return answer.content[0].text != pid_before  # type: ignore[union-attr]

        deadline = 60
        while not await new_pid():
            deadline -= 1
            assert deadline > 0
            await pilot.pause(0.1)
        await submit(pilot, "/mcp disable fake")
        await wait_for(pilot, lambda: not manager.ready_tools())
        await submit(pilot, "/mcp restart nosuch")
        await wait_for(pilot, lambda: any("There is no MCP server 'nosuch'" in text for text in notices(app)))


async def test_allowed_for_the_session_the_next_call_does_not_ask(stop_servers: list[ZettApp]) -> None:
    model = ScriptedModel(
        tool_step("c1", "mcp__fake__write_note", {"text": "one"}),
        tool_step("c2", "mcp__fake__write_note", {"text": "three"}),
        text_step("Both written."),
    )
    app = make_app(model, mcp_servers=(FAKE,))
    stop_servers.append(app)
    dialogs: list[Any] = []
    async with ready_app(app, size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)
        await submit(pilot, "write two notes")
        dialog = await open_dialog(pilot)
        await pilot.press("2")  # Allow write_note of fake for this session
        await dialog_closed(pilot, dialog)

        def finished() -> bool:
            if isinstance(app.screen, ChoiceDialog):
                dialogs.append(app.screen)
            return idle(app) and len(model.requests) == 3

        await wait_for(pilot, finished, timeout=30)
    assert dialogs == []
    assert last_tool_result(model.requests[2]) == "wrote 5 characters"


def test_the_dialog_shows_hostile_arguments_escaped_and_bounded() -> None:
    from zett_tui.ui.modals.mcp_approval import MAX_VALUE_LINES, shown_arguments

    text = shown_arguments({"lines": list(range(200)), "path": "\x1b[2Jgone\u202eexe.txt"})
    assert "\x1b" not in text and "\u202e" not in text
    assert '"path": "\\u001b[2Jgone\\u202eexe.txt"' in text  # after a long value, still shown
    assert len(text.splitlines()) == MAX_VALUE_LINES + 2
    assert 'more characters of "lines" not shown' in text


async def test_always_allowed_is_saved_for_the_project_and_a_later_run_does_not_ask(
    stop_servers: list[ZettApp], project_dir: Path
) -> None:
    from zett_tui.runtime.mcp.saved_rules import McpRules

    first = ScriptedModel(tool_step("c1", "mcp__fake__write_note", {"text": "one"}), text_step("ok"))
    app = make_app(first, mcp_servers=(FAKE,), cwd=project_dir)
    stop_servers.append(app)
    async with ready_app(app, size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)
        await submit(pilot, "write")
        dialog = await open_dialog(pilot)
        assert "Always allow it in this project" in shown(app)
        await pilot.press("3")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: idle(app), timeout=30)
    assert McpRules(project_dir).allowed() == {"mcp__fake__write_note"}
    assert McpRules(project_dir).path.stat().st_mode & 0o777 == 0o600

    second = ScriptedModel(tool_step("c1", "mcp__fake__write_note", {"text": "four"}), text_step("ok"))
    later = make_app(second, mcp_servers=(FAKE,), cwd=project_dir)
    stop_servers.append(later)
    dialogs: list[Any] = []
    async with ready_app(later, size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: servers_ready(later), timeout=60)
        await submit(pilot, "write again")

        def finished() -> bool:
            if isinstance(later.screen, ChoiceDialog):
                dialogs.append(later.screen)
            return idle(later) and len(second.requests) == 2

        await wait_for(pilot, finished, timeout=30)
    assert dialogs == []
    assert last_tool_result(second.requests[1]) == "wrote 4 characters"


def test_a_damaged_saved_file_allows_nothing_and_is_moved_aside_on_the_next_save(project_dir: Path) -> None:
    from zett_tui.runtime.mcp.saved_rules import McpRules

    rules = McpRules(project_dir)
    rules.path.parent.mkdir(parents=True, exist_ok=True)
    rules.path.write_text('{"allowed": "mcp__fake__write_note"}', encoding="utf-8")
    assert rules.allowed() == frozenset() and rules.problem is not None
    rules.allow("mcp__fake__lookup")
    assert McpRules(project_dir).allowed() == {"mcp__fake__lookup"}
    assert rules.path.with_name(rules.path.name + ".corrupt").exists()


def fake_server_project(project_dir: Path, *, trusted: bool) -> None:
    """A repository with only a ``.mcp.json`` naming the fake server and a ``.claude`` command."""
    from zett_tui.config import trust

    server = {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_server"],
        "env": {"PYTHONPATH": str(ROOT)},
    }
    (project_dir / ".mcp.json").write_text(json.dumps({"mcpServers": {"fake": server}}), encoding="utf-8")
    (project_dir / ".claude" / "commands").mkdir(parents=True)
    (project_dir / ".claude" / "commands" / "ship.md").write_text("ship $1", encoding="utf-8")
    (project_dir / ".claude" / "skills" / "deploy").mkdir(parents=True)
    (project_dir / ".claude" / "skills" / "deploy" / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploy the site\n---\nRun it.\n", encoding="utf-8"
    )
    project = trust.project_files(project_dir)
    assert project is not None
    trust.remember(project, trusted=trusted)


async def test_trusting_mid_session_starts_the_projects_servers_into_this_session(
    stop_servers: list[ZettApp], project_dir: Path
) -> None:
    from tests.test_extensions import app_for_project

    fake_server_project(project_dir, trusted=False)
    model = ScriptedModel(text_step("shipped"))
    app = app_for_project(project_dir, model)
    stop_servers.append(app)
    async with ready_app(app, size=(140, 40)) as pilot:
        assert app.chat.commands.get("ship") is None
        await submit(pilot, "/extensions trust")
        await dialog_armed(pilot)
        await pilot.press("2")
        await wait_for(pilot, lambda: any(text.startswith("Trusted ") for text in notices(app)))
        [said] = [text for text in notices(app) if text.startswith("Trusted ")]
        assert "Starting its MCP servers now: fake (/mcp shows them)." in said
        manager = app.mcp.manager
        assert manager is not None
        await wait_for(pilot, lambda: "fake" in manager.configs and servers_ready(app), timeout=60)
        await submit(pilot, "/ship v2")  # the project's command is offered at once too
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 1, timeout=30)
        assert prompts(app) == ["ship v2"]
    assert "mcp__fake__lookup" in {tool.name for tool in model.requests[0].tools}
    assert "- deploy: Deploy the site" in "\n".join(
        str(message.content) for message in model.requests[0].messages
    )


async def test_distrusting_mid_session_stops_the_projects_servers_and_trusting_again_starts_them(
    stop_servers: list[ZettApp], project_dir: Path
) -> None:
    from tests.test_extensions import app_for_project

    fake_server_project(project_dir, trusted=True)
    app = app_for_project(project_dir, ScriptedModel(text_step("ok")))
    stop_servers.append(app)
    async with ready_app(app, size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)
        assert app.chat.commands.get("ship") is not None
        await submit(pilot, "/extensions trust")
        await dialog_armed(pilot)
        await pilot.press("1")
        await wait_for(pilot, lambda: any(text.startswith("Not trusted: ") for text in notices(app)))
        [said] = [text for text in notices(app) if text.startswith("Not trusted: ")]
        assert "Its MCP servers are stopped: fake." in said
        manager = app.mcp.manager
        assert manager is not None
        assert [status.state for status in manager.statuses()] == [ServerState.DISABLED]
        assert app.chat.commands.get("ship") is None
        await submit(pilot, "/extensions trust")  # and trusted again: the server comes back
        await dialog_armed(pilot)
        await pilot.press("2")
        await wait_for(pilot, lambda: any("Starting its MCP servers now: fake" in t for t in notices(app)))
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)


async def test_extensions_lists_each_server_with_where_it_came_from_its_state_and_what_did_not_load(
    stop_servers: list[ZettApp], project_dir: Path
) -> None:
    from tests.test_extensions import app_for_project
    from zett_tui.config import trust
    from zett_tui.core import paths

    fake = {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_server"],
        "env": {"PYTHONPATH": str(ROOT)},
    }
    user_config = paths.config_file()
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(
        f'[mcp_servers.mine]\ncommand = {json.dumps(sys.executable)}\nargs = ["-m", "tests.fakes.mcp_server"]\n'
        f"env = {{ PYTHONPATH = {json.dumps(str(ROOT))} }}\n[mcp_servers.nothing]\nenabled = true\n",
        encoding="utf-8",
    )
    document = {"mcpServers": {"theirs": fake, "broken": {"command": 3}}}
    (project_dir / ".mcp.json").write_text(json.dumps(document), encoding="utf-8")
    project = trust.project_files(project_dir)
    assert project is not None
    trust.remember(project, trusted=True)
    app = app_for_project(project_dir, ScriptedModel())
    stop_servers.append(app)
    async with ready_app(app, size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: servers_ready(app), timeout=60)
        await submit(pilot, "/extensions")
        await wait_for(pilot, lambda: "MCP servers (/mcp lists their tools):" in notices(app)[-1])
        listing = notices(app)[-1]
    mcp_json = project_dir.resolve() / ".mcp.json"
    assert (
        f"  mine             ready with 6 tools\n                   from user config {user_config}" in listing
    )
    assert (
        f"  theirs           ready with 6 tools\n                   from project .mcp.json {mcp_json}"
        in listing
    )
    not_loaded = listing.split("MCP servers not loaded:\n", 1)[1].splitlines()
    assert not_loaded[0] == (
        f"  {user_config}:5: mcp_servers.nothing: "
        'needs command = "program" (with args) or url = "https://..."; server ignored'
    )
    assert not_loaded[1].startswith(
        f"  {mcp_json}: mcpServers.broken: command: expected the program to start"
    )
