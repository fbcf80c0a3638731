"""MCP tools adapted for the model, called through the manager's one connection."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp.manager import McpManager
from zett_tui.runtime.mcp.server_connection import ServerState
from zett_tui.runtime.mcp.tools import build_tools, model_name

ROOT = Path(__file__).resolve().parent.parent


def test_tools_are_named_for_their_server_and_call_through() -> None:
    """Against the SDK's own server (the other tests start the lean fake that answers as it does)."""
    server = McpServerConfig(
        "fake",
        command=sys.executable,
        args=("-m", "tests.fakes.mcp_sdk_server"),
        env={"PYTHONPATH": str(ROOT)},
    )
    manager = McpManager([server], environ={})
    assert build_tools(manager) == {}  # nothing before the server is ready
    manager.start()
    try:
        deadline = time.monotonic() + 30
        while manager.statuses()[0].state is not ServerState.READY:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        tools = build_tools(manager)
        assert tools["mcp__fake__lookup"].read_only and not tools["mcp__fake__write_note"].read_only
        lookup = tools["mcp__fake__lookup"].tool
        assert "title" not in str(lookup.parameters) and "word" in lookup.parameters["properties"]
        assert asyncio.run(lookup.handler(word="zett")) == "zett: a word"
    finally:
        manager.stop()


def test_a_long_name_is_cut_to_what_providers_accept() -> None:
    name = model_name("server", "t" * 100)
    assert len(name) == 64 and name.startswith("mcp__server__ttt")
    assert model_name("a", "b.c") == "mcp__a__b_c"
