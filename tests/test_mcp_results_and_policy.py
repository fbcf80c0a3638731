"""MCP results as the model sees them, and the permission decision for an MCP tool call.

The MCP SDK's types are imported in the tests that use them: importing the SDK takes about a
second of CPU, which every test process collecting this file paid."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest
from zett_agent.messages import ImageContent as AgentImage

from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp.manager import McpManager
from zett_tui.runtime.mcp.policy import Decision, decide, tool_key
from zett_tui.runtime.mcp.results import McpToolError, bound, to_model_result
from zett_tui.runtime.mcp.server_connection import ServerState
from zett_tui.runtime.modes import PermissionMode

ROOT = Path(__file__).resolve().parent.parent


def test_an_image_from_a_real_server_reaches_the_model_as_an_image() -> None:
    server = McpServerConfig(
        "fake", command=sys.executable, args=("-m", "tests.fakes.mcp_server"), env={"PYTHONPATH": str(ROOT)}
    )
    manager = McpManager([server], environ={})
    manager.start()
    try:
        deadline = time.monotonic() + 30
        while manager.statuses()[0].state is not ServerState.READY:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        result = to_model_result(
            asyncio.run(manager.call_tool("fake", "picture", {})), server="fake", tool="picture"
        )
    finally:
        manager.stop()
    assert isinstance(result, list) and isinstance(result[0], AgentImage)
    assert result[0].source.data.startswith(b"\x89PNG")  # type: ignore[union-attr]
    assert result[0].source.media_type == "image/png"  # type: ignore[union-attr]


def test_text_and_resource_links() -> None:
    from mcp.types import CallToolResult, ResourceLink, TextContent

    result = CallToolResult(
        content=[
            TextContent(type="text", text="found it"),
            ResourceLink(
                type="resource_link", uri="file:///x/readme.md", name="readme", mime_type="text/markdown"
            ),
        ]
    )
    assert to_model_result(result, server="s", tool="t") == (
        "found it\nresource: file:///x/readme.md (readme, text/markdown)"
    )


def test_a_server_error_is_a_failed_call_with_its_text() -> None:
    from mcp.types import CallToolResult, TextContent

    result = CallToolResult(content=[TextContent(type="text", text="no such row")], is_error=True)
    with pytest.raises(McpToolError, match="no such row"):
        to_model_result(result, server="s", tool="t")


def test_a_broken_image_is_one_line_not_a_crash() -> None:
    from mcp.types import CallToolResult, ImageContent

    result = CallToolResult(content=[ImageContent(type="image", data="not base64!!", mime_type="image/png")])
    text = to_model_result(result, server="s", tool="t")
    assert isinstance(text, str) and "could not be read" in text


def test_large_text_is_bounded_keeping_both_ends() -> None:
    text = "start " + "x" * 200_000 + " end"
    kept = bound(text, 1000)
    assert len(kept.encode()) < 1100 and kept.startswith("start") and kept.endswith(" end")
    assert "bytes of the result left out" in kept


@pytest.mark.parametrize(
    ("mode", "plan", "read_only", "allowed", "can_ask", "expected"),
    [
        (PermissionMode.ASK, False, False, False, True, Decision.ASK),
        (PermissionMode.ASK, False, True, False, True, Decision.ASK),  # a hint never skips a question
        (PermissionMode.ASK, False, False, True, True, Decision.RUN),
        (PermissionMode.ACCEPT_EDITS, False, False, False, True, Decision.ASK),
        (PermissionMode.AUTO, False, False, False, True, Decision.RUN),
        (PermissionMode.PLAN, True, False, True, True, Decision.REFUSE),  # even when allowed
        (PermissionMode.PLAN, True, True, False, True, Decision.RUN),
        (PermissionMode.PLAN, True, True, False, False, Decision.RUN),
        (PermissionMode.PLAN, True, True, True, True, Decision.RUN),
        (PermissionMode.AUTO, True, False, False, True, Decision.REFUSE),  # plan on in auto mode
        (PermissionMode.ASK, False, False, False, False, Decision.REFUSE),  # zett -p
        (PermissionMode.ASK, False, False, True, False, Decision.RUN),
    ],
)
def test_decision(
    mode: PermissionMode, plan: bool, read_only: bool, allowed: bool, can_ask: bool, expected: Decision
) -> None:
    key = tool_key("git", "git_status")
    assert key == "mcp__git__git_status"
    allowed_set = {key} if allowed else set()
    assert (
        decide(mode, plan_active=plan, read_only=read_only, key=key, allowed=allowed_set, can_ask=can_ask)
        is expected
    )
