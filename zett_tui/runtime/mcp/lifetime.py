"""When the MCP servers start and stop, for the app and for ``zett -p``; and what the status line says.

The app starts its manager once per process, after the first frame (``start`` returns at once), and
stops it when zett quits; ``atexit`` stops it too, so a way out that skips the quit (an internal
error, ``sys.exit`` from a test) leaves no server process behind. ``zett -p`` has a single turn, so
it waits until each server is ready or has failed (at most its ``startup_timeout``) before that
turn: a tool that is not ready then would never be offered at all.
"""

from __future__ import annotations

import asyncio
import atexit
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a server starts: the app imports this module before its first frame
    from zett_tui.config.mcp_servers import McpServerConfig
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.runtime.mcp.oauth import OnUrl
    from zett_tui.runtime.mcp.server_connection import ServerStatus

_POLL_SECONDS = 0.05


def start_for_process(
    servers: Sequence[McpServerConfig],
    on_change: Callable[[], None] | None = None,
    on_sign_in_url: OnUrl | None = None,
) -> McpManager | None:
    """A started manager for ``servers`` (None when there are none), stopped at exit at the latest.
    ``on_sign_in_url`` shows a remote server's authorization URL (called from the manager's thread)."""
    if not servers:
        return None
    from zett_tui.runtime.mcp.manager import McpManager

    manager = McpManager(servers, on_change=on_change, on_sign_in_url=on_sign_in_url)
    manager.start()
    atexit.register(manager.stop)
    return manager


def stop_for_process(manager: McpManager) -> None:
    manager.stop()
    atexit.unregister(manager.stop)


async def settled(manager: McpManager, timeout: float) -> None:
    """Returns once no enabled server is still starting, or after ``timeout`` seconds not counting
    the time a server waits for the user to sign in (that wait has its own bound)."""
    from zett_tui.runtime.mcp.server_connection import ServerState

    deadline = time.monotonic() + timeout
    while True:
        states = {status.state for status in manager.statuses()}
        if ServerState.SIGNING_IN in states:
            deadline += _POLL_SECONDS
        elif ServerState.STARTING not in states or time.monotonic() >= deadline:
            return
        await asyncio.sleep(_POLL_SECONDS)


async def started_for_one_turn(
    servers: Sequence[McpServerConfig], warn: Callable[[str], None]
) -> McpManager | None:
    """``zett -p``: the servers started and settled; each one not ready is one warning line. A server
    that needs a sign-in has its authorization URL printed through ``warn`` (stderr), and the run
    waits for the browser (at most the sign-in timeout)."""

    def show_url(server: str, url: str, again: bool) -> None:
        expired = "'s sign-in has expired; sign in again" if again else " needs you to sign in"
        warn(f"MCP server {server}{expired}: open {url}")

    manager = start_for_process(servers, on_sign_in_url=show_url)
    if manager is None:
        return None
    from zett_tui.runtime.mcp.server_connection import ServerState

    await settled(manager, max(server.startup_timeout for server in servers) + 1.0)
    for status in manager.statuses():
        if status.state is ServerState.FAILED:
            warn(f"MCP server {status.name} failed to start: {status.reason}")
        elif status.state is ServerState.STARTING:
            warn(f"MCP server {status.name} is still starting; its tools are not offered in this run")
    return manager


def status_line(statuses: Sequence[ServerStatus]) -> str:
    """The status line's word on the servers: empty when every enabled one is ready."""
    from zett_tui.runtime.mcp.server_connection import ServerState

    starting = sum(status.state is ServerState.STARTING for status in statuses)
    signing_in = sum(status.state is ServerState.SIGNING_IN for status in statuses)
    failed = sum(status.state is ServerState.FAILED for status in statuses)
    parts = [f"{starting} starting"] if starting else []
    if signing_in:
        parts.append(f"{signing_in} waiting for sign-in (/mcp)")
    if failed:
        parts.append(f"{failed} failed (/mcp)")
    return f"MCP: {', '.join(parts)}" if parts else ""


class ProcessMcp:
    """The app's one manager: started by the first chat that builds an agent, stopped at quit.

    A later chat (a new or resumed session) gets the same manager: each server starts once per
    process, whichever session is open. The manager exists even with no servers configured, so
    a project trusted mid-session (``add``) can start its servers into the running agent.
    """

    def __init__(self) -> None:
        self.manager: McpManager | None = None
        self._started = False

    def start(
        self,
        servers: Sequence[McpServerConfig],
        on_change: Callable[[], None] | None = None,
        on_sign_in_url: OnUrl | None = None,
    ) -> McpManager | None:
        if not self._started:
            self._started = True
            from zett_tui.runtime.mcp.manager import McpManager

            # Always a manager, empty when nothing is configured: trusting a project mid-session
            # adds its servers to it (``add``).
            manager = McpManager(servers, on_change=on_change, on_sign_in_url=on_sign_in_url)
            manager.start()
            atexit.register(manager.stop)
            self.manager = manager
        return self.manager

    def add(self, servers: Sequence[McpServerConfig]) -> list[str]:
        """Start those of ``servers`` the process does not run yet; their names. Before ``start``
        nothing: the first agent starts what its settings name."""
        return self.manager.add(servers) if self.manager is not None else []

    def stop_servers_from(self, sources: Sequence[str]) -> list[str]:
        """Stop, for the rest of this run, each running server whose ``source`` is in ``sources``."""
        manager = self.manager
        if manager is None:
            return []
        names = [name for name, config in manager.configs.items() if config.source in sources]
        stopped = [
            status.name
            for status in manager.statuses()
            if status.name in names and status.state != "disabled"
        ]
        for name in stopped:
            manager.disable(name)
        return stopped

    def stop(self) -> None:
        manager, self.manager = self.manager, None
        if manager is not None:
            stop_for_process(manager)
