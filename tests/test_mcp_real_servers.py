"""The manager against real MCP servers from PyPI (test dependencies): mcp-server-time, mcp-server-git.

Through the manager and the tool adapter; tests/test_mcp_app.py runs mcp-server-time through the app.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp.manager import McpManager
from zett_tui.runtime.mcp.server_connection import ServerState
from zett_tui.runtime.mcp.tools import build_tools


def ready(manager: McpManager) -> None:
    deadline = time.monotonic() + 60
    while any(status.state is not ServerState.READY for status in manager.statuses()):
        failed = [status.reason for status in manager.statuses() if status.state is ServerState.FAILED]
        assert not failed, failed
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_mcp_server_time() -> None:
    server = McpServerConfig(
        "time", command=sys.executable, args=("-m", "mcp_server_time", "--local-timezone", "UTC")
    )
    manager = McpManager([server], environ={})
    manager.start()
    try:
        ready(manager)
        tools = build_tools(manager)
        tool = tools["mcp__time__get_current_time"].tool
        answer = asyncio.run(tool.handler(timezone="Europe/Berlin"))
        assert isinstance(answer, str) and "Europe/Berlin" in answer
    finally:
        manager.stop()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_mcp_server_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "new.txt").write_text("x", encoding="utf-8")
    server = McpServerConfig(
        "git", command=sys.executable, args=("-m", "mcp_server_git", "--repository", str(tmp_path))
    )
    manager = McpManager([server], environ={})
    manager.start()
    try:
        ready(manager)
        tool = build_tools(manager)["mcp__git__git_status"].tool
        answer = asyncio.run(tool.handler(repo_path=str(tmp_path)))
        assert "new.txt" in str(answer)
    finally:
        manager.stop()
