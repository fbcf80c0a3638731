"""The chat's side of the MCP servers: start the app's manager with the agent, keep the status line told.

The manager reports changes from its own thread; they reach the app's loop with
``call_soon_threadsafe`` and update whichever chat is open then. A remote server that needs an
OAuth sign-in gets a line in the transcript with its address and a dialog to open it in the
browser (``webbrowser``, off the loop) or copy it; the sign-in waits in the background meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from zett_tui.runtime.mcp.lifetime import ProcessMcp, status_line

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zett_tui.config.mcp_servers import McpServerConfig
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.ui.chat.view import ChatView


def start_mcp(chat: ChatView, servers: Sequence[McpServerConfig]) -> McpManager | None:
    """The app's manager, started now with ``servers`` if it was not (it returns at once); None:
    no servers, or an app without one (tests that mount a bare chat)."""
    app = chat.app
    holder = getattr(app, "mcp", None)
    if not isinstance(holder, ProcessMcp):
        return None
    loop = asyncio.get_running_loop()

    def show() -> None:
        manager = holder.manager
        current = getattr(app, "chat", chat)
        if manager is not None and current.is_attached:
            current.show_mcp(status_line(manager.statuses()))

    def changed() -> None:
        with contextlib.suppress(RuntimeError):  # the app's loop is closed: zett is quitting
            loop.call_soon_threadsafe(show)

    def sign_in_url(server: str, url: str, again: bool) -> None:
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(ask_to_sign_in, getattr(app, "chat", chat), server, url, again)

    manager = holder.start(servers, changed, sign_in_url)
    show()
    return manager


def ask_to_sign_in(chat: ChatView, server: str, url: str, again: bool) -> None:
    """The transcript line and the dialog for one sign-in address."""
    from zett_tui.runtime.mcp.oauth import SIGN_IN_TIMEOUT
    from zett_tui.ui.modals import mcp_sign_in

    if not chat.is_attached:
        return
    what = "its sign-in has expired; sign in again" if again else "it needs you to sign in"
    chat.say(f"MCP server {server}: {what} at {url}", "warning")

    def chosen(picked: object) -> None:
        value = getattr(picked, "value", mcp_sign_in.LATER)
        if value == mcp_sign_in.OPEN:
            open_in_browser(chat, server, url)
        elif value == mcp_sign_in.COPY:
            from zett_tui.ui.copying import copy_in_background

            copy_in_background(chat.app, url, f"The sign-in address of {server}")

    dialog = mcp_sign_in.sign_in_dialog(server, url, again=again, minutes=SIGN_IN_TIMEOUT / 60)
    chat.app.push_screen(dialog, chosen)


def open_in_browser(chat: ChatView, server: str, url: str) -> None:
    """``webbrowser.open`` in a thread (it may start a program); says so when there is no browser."""
    import webbrowser

    def opened(future: asyncio.Future[bool]) -> None:
        failed = future.cancelled() or future.exception() is not None or not future.result()
        if failed and chat.is_attached:
            chat.say(
                f"No browser could be opened here; open the address of {server} yourself (/mcp shows it).",
                "warning",
            )

    future = asyncio.get_running_loop().run_in_executor(None, webbrowser.open, url)
    future.add_done_callback(opened)
