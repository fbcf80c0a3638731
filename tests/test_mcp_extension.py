"""McpToolsExtension: tools registered per request, every call through the permission decision."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from zett_agent.messages import ToolCall

from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp.extension import Answer, McpRefused, McpToolsExtension
from zett_tui.runtime.mcp.manager import McpManager
from zett_tui.runtime.mcp.server_connection import ServerState
from zett_tui.runtime.modes import PermissionMode

ROOT = Path(__file__).resolve().parent.parent


class Context:
    """The part of zett-agent's AgentRunContext the extension uses."""

    def __init__(self) -> None:
        self.session_id = "s1"
        self.tools: dict[str, Any] = {}

    def register_tool(self, tool: Any) -> None:
        self.tools[tool.name] = tool


@pytest.fixture(scope="module")
def manager() -> Iterator[McpManager]:
    server = McpServerConfig(
        "fake", command=sys.executable, args=("-m", "tests.fakes.mcp_server"), env={"PYTHONPATH": str(ROOT)}
    )
    running = McpManager([server], environ={})
    running.start()
    deadline = time.monotonic() + 30
    while running.statuses()[0].state is not ServerState.READY:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    yield running
    running.stop()


def call(
    manager: McpManager,
    name: str,
    arguments: dict[str, Any],
    *,
    mode: PermissionMode = PermissionMode.ASK,
    plan: bool = False,
    answers: list[Answer] | None = None,
    asked: list[tuple[str, str, dict[str, Any]]] | None = None,
    extension: McpToolsExtension | None = None,
) -> Any:
    async def ask(session: str, server: str, tool: str, args: dict[str, Any]) -> Answer:
        if asked is not None:
            asked.append((server, tool, args))
        assert answers, "asked when it should not have"
        return answers.pop(0)

    ext = extension or McpToolsExtension(
        manager, mode_of=lambda _: mode, plan_active=lambda _: plan, ask=ask if answers is not None else None
    )
    context = Context()

    async def run() -> Any:
        await ext.on_tool(context)  # type: ignore[arg-type]
        tool = context.tools[name]
        tool_call = ToolCall(id="c1", name=name, arguments=arguments)
        return await ext.on_tool_call(context, tool_call, lambda: tool.handler(**arguments))  # type: ignore[arg-type]

    return asyncio.run(run())


def test_ask_mode_asks_with_server_tool_and_arguments(manager: McpManager) -> None:
    asked: list[tuple[str, str, dict[str, Any]]] = []
    result = call(manager, "mcp__fake__write_note", {"text": "hi"}, answers=[Answer.ONCE], asked=asked)
    assert result == "wrote 2 characters"
    assert asked == [("fake", "write_note", {"text": "hi"})]


def test_a_refusal_fails_the_call(manager: McpManager) -> None:
    with pytest.raises(McpRefused, match="declined"):
        call(manager, "mcp__fake__write_note", {"text": "hi"}, answers=[Answer.REFUSE])


def test_allow_for_the_session_stops_asking(manager: McpManager) -> None:
    answers = [Answer.SESSION]
    extension = McpToolsExtension(
        manager, mode_of=lambda _: PermissionMode.ASK, plan_active=lambda _: False, ask=_asker(answers)
    )
    call(manager, "mcp__fake__write_note", {"text": "a"}, extension=extension)
    assert (
        call(manager, "mcp__fake__write_note", {"text": "abc"}, extension=extension) == "wrote 3 characters"
    )
    assert answers == []


def _asker(answers: list[Answer]) -> Any:
    async def ask(session: str, server: str, tool: str, args: dict[str, Any]) -> Answer:
        return answers.pop(0)

    return ask


def test_plan_mode_runs_read_only_tools_and_refuses_the_rest(manager: McpManager) -> None:
    with pytest.raises(McpRefused, match="Plan Mode"):
        call(manager, "mcp__fake__write_note", {"text": "x"}, mode=PermissionMode.AUTO, plan=True)
    assert (
        call(manager, "mcp__fake__lookup", {"word": "w"}, mode=PermissionMode.AUTO, plan=True) == "w: a word"
    )


def test_auto_mode_runs_and_no_asker_refuses(manager: McpManager) -> None:
    assert (
        call(manager, "mcp__fake__write_note", {"text": "x"}, mode=PermissionMode.AUTO)
        == "wrote 1 characters"
    )
    with pytest.raises(McpRefused, match="no one can answer"):
        call(manager, "mcp__fake__write_note", {"text": "x"})


def test_a_tool_of_a_server_gone_since_the_last_request_is_not_asked_about() -> None:
    server = McpServerConfig(
        "gone", command=sys.executable, args=("-m", "tests.fakes.mcp_server"), env={"PYTHONPATH": str(ROOT)}
    )
    running = McpManager([server], environ={})
    running.start()
    try:
        deadline = time.monotonic() + 30
        while running.statuses()[0].state is not ServerState.READY:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        asked: list[str] = []

        async def ask(session: str, server: str, tool: str, args: dict[str, Any]) -> Answer:
            asked.append(tool)
            return Answer.ONCE

        extension = McpToolsExtension(
            running, mode_of=lambda _: PermissionMode.ASK, plan_active=lambda _: False, ask=ask
        )

        async def run() -> Any:
            await extension.on_tool(Context())  # type: ignore[arg-type]
            running.disable("gone")
            later = Context()
            await extension.on_tool(later)  # type: ignore[arg-type]
            assert later.tools == {}
            tool_call = ToolCall(id="c1", name="mcp__gone__write_note", arguments={"text": "x"})

            async def unknown() -> str:
                return "unknown tool"

            return await extension.on_tool_call(later, tool_call, unknown)  # type: ignore[arg-type]

        assert asyncio.run(run()) == "unknown tool"
        assert asked == []
    finally:
        running.stop()


async def test_a_read_only_tool_runs_in_plan_mode_through_the_host(manager: McpManager) -> None:
    """zett-agent's Plan Mode replaces the request's tools; the read-only MCP ones are offered again
    (before: "did not follow the protocol")."""
    from tests.fakes.host import Collector, make_host
    from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step

    model = ScriptedModel(
        tool_step("c1", "mcp__fake__lookup", {"word": "plan"}),
        tool_step("c2", "mcp__fake__write_note", {"text": "x"}),
        text_step("ok"),
    )
    host = await make_host(model, mcp_manager=manager)
    host.set_mode(PermissionMode.PLAN)
    await asyncio.wait_for(host.run_turn("go", Collector()), 30)
    await host.aclose()
    offered = {tool.name for tool in model.requests[0].tools}
    assert "mcp__fake__lookup" in offered and "mcp__fake__write_note" not in offered
    assert last_tool_result(model.requests[1]) == "plan: a word"
    assert "protocol" not in last_tool_result(model.requests[1])
