"""The chat's side of the MCP servers: start the app's manager with the agent, keep the status line told.

The manager reports changes from its own thread; they reach the app's loop with
``call_soon_threadsafe`` and update whichever chat is open then.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from zett_tui.runtime.mcp.lifetime import ProcessMcp, status_line

if TYPE_CHECKING:
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.ui.chat.screen import ChatScreen


def start_mcp(chat: ChatScreen) -> McpManager | None:
    """The app's manager, started now if it was not (it returns at once); None: no servers, or an
    app without one (tests that mount a bare chat)."""
    app = chat.app
    holder = getattr(app, "mcp", None)
    if not isinstance(holder, ProcessMcp):
        return None
    loop = asyncio.get_running_loop()

    def show() -> None:
        manager = holder.manager
        current = getattr(app, "chat", chat)
        if manager is not None and current.is_attached:
            current.status.mcp = status_line(manager.statuses())

    def changed() -> None:
        with contextlib.suppress(RuntimeError):  # the app's loop is closed: zett is quitting
            loop.call_soon_threadsafe(show)

    manager = holder.start(chat.launch.mcp_servers, changed)
    show()
    return manager
