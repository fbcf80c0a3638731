"""``zett -p`` with MCP servers: the servers are ready before the turn, a call runs only under
``--allow-mcp SERVER`` or ``SERVER__TOOL``, anything else is refused with the flag that allows it,
and the servers stop with the run."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.test_mcp_app import FAKE
from zett_tui.cli import build_parser
from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.entry.headless import headless_request, run_headless
from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.mcp import lifetime


async def run(model: ScriptedModel, servers: tuple[McpServerConfig, ...], **options: Any) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    launch = LaunchSettings(
        model_label="scripted", model_factory=lambda: model, cwd=Path.cwd(), mcp_servers=servers
    )
    code = await run_headless(launch, "go", out=out, err=err, handle_signals=False, **options)
    return code, err.getvalue()


def note_call(tool: str = "write_note") -> ScriptedModel:
    return ScriptedModel(tool_step("c1", f"mcp__fake__{tool}", {"text": "hi"}), text_step("Done."))


async def test_a_call_without_the_flag_is_refused_with_how_to_allow_it(project_dir: Path) -> None:
    model = note_call()
    code, err = await run(model, (FAKE,))
    assert code == 0
    assert "refused MCP tool fake__write_note" in err and "--allow-mcp fake__write_note" in err
    result = last_tool_result(model.requests[1])
    assert "declined mcp__fake__write_note" in result and "--allow-mcp fake__write_note" in result


async def test_the_tool_or_its_server_allowed_by_flag_runs(project_dir: Path) -> None:
    for allowed in ("fake__write_note", "fake"):
        model = note_call()
        code, err = await run(model, (FAKE,), allow_mcp=[allowed])
        assert code == 0
        assert "refused" not in err
        assert last_tool_result(model.requests[1]) == "wrote 2 characters"


async def test_another_tool_of_the_server_is_not_allowed_by_one_tools_flag(project_dir: Path) -> None:
    model = ScriptedModel(tool_step("c1", "mcp__fake__lookup", {"word": "x"}), text_step("Done."))
    _code, err = await run(model, (FAKE,), allow_mcp=["fake__write_note"])
    assert "refused MCP tool fake__lookup" in err


async def test_a_server_that_cannot_start_is_one_warning_and_the_run_goes_on(project_dir: Path) -> None:
    broken = McpServerConfig("broken", command=str(project_dir / "no-such-program"))
    code, err = await run(ScriptedModel(text_step("Fine.")), (broken,))
    assert code == 0
    assert "MCP server broken failed to start: cannot start it" in err


async def test_the_servers_stop_with_the_run(project_dir: Path, monkeypatch: Any) -> None:
    made: list[Any] = []
    original = lifetime.start_for_process

    def spy(*args: Any, **kwargs: Any) -> Any:
        manager = original(*args, **kwargs)
        made.append(manager)
        return manager

    monkeypatch.setattr(lifetime, "start_for_process", spy)
    await run(note_call(), (FAKE,), allow_mcp=["fake"])
    assert made and made[0]._thread is None  # stopped: its loop and thread are gone


def test_allow_mcp_is_a_repeatable_flag() -> None:
    options = build_parser().parse_args(["-p", "x", "--allow-mcp", "a", "--allow-mcp", "b__c"])
    assert options.allow_mcp == ["a", "b__c"]
    request = headless_request(options, stdin=None)
    assert request is not None and request.allow_mcp == ["a", "b__c"]


async def test_an_allow_mcp_for_a_server_not_configured_is_one_warning(project_dir: Path) -> None:
    code, err = await run(ScriptedModel(text_step("Fine.")), (), allow_mcp=["tyop__tool"])
    assert code == 0
    assert "--allow-mcp tyop__tool: no MCP server 'tyop' is configured" in err


def test_the_launch_carries_the_users_servers_and_a_projects_only_once_trusted(project_dir: Path) -> None:
    from zett_tui.config import trust
    from zett_tui.core import paths
    from zett_tui.entry.startup import prepare_launch

    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[mcp_servers.mine]\ncommand = "my-server"\n', encoding="utf-8")
    (project_dir / ".zett").mkdir()
    (project_dir / ".zett" / "config.toml").write_text(
        '[mcp_servers.theirs]\ncommand = "their-server"\n', encoding="utf-8"
    )
    untrusted = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    assert [server.name for server in untrusted.mcp_servers] == ["mine"]
    project = trust.project_files(project_dir)
    assert project is not None
    trust.remember(project, trusted=True)
    trusted = prepare_launch(cwd=project_dir, env={}, ask_trust=True)
    assert [(server.name, server.source) for server in trusted.mcp_servers] == [
        ("mine", "user"),
        ("theirs", "project"),
    ]


async def test_a_tool_allowed_always_in_the_app_runs_without_a_flag(project_dir: Path) -> None:
    from zett_tui.runtime.mcp.saved_rules import McpRules

    McpRules(project_dir).allow("mcp__fake__write_note")
    model = note_call()
    code, err = await run(model, (FAKE,))
    assert code == 0 and "refused" not in err
    assert last_tool_result(model.requests[1]) == "wrote 2 characters"
