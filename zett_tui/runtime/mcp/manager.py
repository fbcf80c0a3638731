"""Each configured MCP server, started once per zett process and kept running.

All connections live on one event loop in a daemon thread of their own (``McpManager``). Each
server is one ``ServerConnection`` (``server_connection``): a task that owns the server's whole
``async with``, and starts it again when its process or connection ends; calls come from any
thread or loop through ``call_tool``. That keeps a stdio server's process (and its state) across
turns, whichever loop a turn runs on, and lets ``start`` return at once: nothing waits for a
server before the first frame or the first turn. ``stop`` ends them all. How a server is reached
(stdio with its stderr in zett's log, HTTP, SSE) is ``transport``.

A remote server that answers 401 is signed in to with OAuth (``oauth.SignIn``): the server waits
in ``SIGNING_IN`` while the user is in the browser, with its timeouts paused (``Deadlines``); a
sign-in that fails or times out is not retried by itself (``/mcp restart`` asks again), and
``logout`` forgets the stored tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp import oauth_tokens
from zett_tui.runtime.mcp.oauth import NEEDS_SIGN_IN, SIGN_IN_TIMEOUT, OnUrl, log_sign_in_url
from zett_tui.runtime.mcp.server_connection import ServerConnection, ServerState, ServerStatus, error_line

if TYPE_CHECKING:
    from mcp.types import CallToolResult, Tool

log = logging.getLogger("zett_tui.runtime.mcp")

_STOP_TIMEOUT = 5.0
_CLOSE_TIMEOUT = 2.0


class McpUnavailable(RuntimeError):
    """The server is not connected (starting, failed, disabled or gone); the message says which."""


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """The manager's thread: run ``loop`` until ``stop`` stops it, then release what it holds
    (the tasks still there, async generators, the worker threads of ``asyncio.to_thread``, the
    selector and its self-pipe), so a stopped manager leaves no descriptor or thread behind."""
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        try:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.wait(left, timeout=_STOP_TIMEOUT))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        except Exception:  # closing must still happen; what failed is only worth a log line
            log.warning("the MCP loop did not wind down cleanly", exc_info=True)
        finally:
            asyncio.set_event_loop(None)
            loop.close()


class McpManager:
    """Every configured server's connection, on a loop in a thread of its own."""

    def __init__(
        self,
        servers: Sequence[McpServerConfig],
        *,
        environ: Mapping[str, str] | None = None,
        on_change: Callable[[], None] | None = None,
        on_sign_in_url: OnUrl | None = None,
        sign_in_timeout: float = SIGN_IN_TIMEOUT,
    ) -> None:
        self._configs = {server.name: server for server in servers}
        self._on_sign_in_url: OnUrl = on_sign_in_url or log_sign_in_url
        self._sign_in_timeout = sign_in_timeout
        self._signed_out: set[str] = set()
        self._environ = dict(os.environ if environ is None else environ)
        self._on_change = on_change or (lambda: None)
        self._servers: dict[str, ServerConnection] = {}
        self._disabled: set[str] = {server.name for server in servers if not server.enabled}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def configs(self) -> Mapping[str, McpServerConfig]:
        return self._configs

    def start(self) -> None:
        """Start every enabled server in the background; returns at once."""
        with self._lock:
            if self._thread is not None or not self._configs:
                return
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._thread = threading.Thread(target=_serve, args=(loop,), name="zett-mcp", daemon=True)
            self._thread.start()
        for name in self._configs:
            if name not in self._disabled:
                self._submit(self._launch(name))

    def add(self, servers: Sequence[McpServerConfig]) -> list[str]:
        """Start each of ``servers`` whose name this manager does not have yet (a project trusted
        mid-session), and start again one of the same source that was stopped (trusted again, as
        it is now); returns their names. A running server keeps running as it was configured."""
        revived = [
            server
            for server in servers
            if server.name in self._disabled
            and server.enabled
            and server.source == getattr(self._configs.get(server.name), "source", None)
        ]
        for server in revived:
            self._configs[server.name] = server
            self.restart(server.name)
        fresh = [server for server in servers if server.name not in self._configs]
        with self._lock:
            for server in fresh:
                self._configs[server.name] = server
                if not server.enabled:
                    self._disabled.add(server.name)
            running = self._thread is not None
        if not running:
            self.start()
        else:
            for server in fresh:
                if server.enabled:
                    self._submit(self._launch(server.name))
        if fresh or revived:
            self._on_change()
        return [server.name for server in (*revived, *fresh)]

    def statuses(self) -> list[ServerStatus]:
        result: list[ServerStatus] = []
        for name, config in self._configs.items():
            server = self._servers.get(name)
            if name in self._disabled:
                result.append(ServerStatus(name, ServerState.DISABLED, launch_line=config.launch_line()))
            elif name in self._signed_out:
                result.append(
                    ServerStatus(
                        name, ServerState.SIGNED_OUT, launch_line=config.launch_line(), sign_in=NEEDS_SIGN_IN
                    )
                )
            elif server is None:
                result.append(ServerStatus(name, ServerState.STARTING, launch_line=config.launch_line()))
            else:
                result.append(server.status())
        return result

    def ready_tools(self) -> list[tuple[McpServerConfig, Tool]]:
        """Each ready server's tools, in config order: what the model may be offered now."""
        return [
            (server.config, tool)
            for server in list(self._servers.values())
            if server.state is ServerState.READY and server.config.name not in self._disabled
            for tool in server.tools
        ]

    async def call_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call ``tool`` on ``server`` from any loop; ``McpUnavailable`` when it is not connected,
        ``TimeoutError`` after the server's ``tool_timeout``."""
        future = self._submit(self._call(server, tool, arguments))
        if future is None:
            raise McpUnavailable(f"MCP server {server!r} is not running")
        return await asyncio.wrap_future(future)

    def restart(self, name: str) -> None:
        """Start ``name`` again now (also a disabled one, which becomes enabled)."""
        if name not in self._configs:
            raise KeyError(name)
        self._disabled.discard(name)
        self._signed_out.discard(name)
        self._submit(self._restart(name))

    def logout(self, name: str) -> bool:
        """Forget ``name``'s OAuth tokens and registration and disconnect it; whether any were
        stored. ``restart`` connects it again, asking the user to sign in."""
        if name not in self._configs:
            raise KeyError(name)
        # The file is removed here and again once the server has stopped (a refresh may store new
        # tokens meanwhile): whichever removal comes first, there was a sign-in.
        had_sign_in = oauth_tokens.signed_in(name)
        self._signed_out.add(name)
        server = self._servers.pop(name, None)
        if server is not None:
            self._submit(self._stop_and_forget(server))
        self._on_change()
        return oauth_tokens.forget(name) or had_sign_in  # OSError: the data folder refused

    def disable(self, name: str) -> None:
        """Stop ``name`` for the rest of this process; its tools leave the next request."""
        if name not in self._configs:
            raise KeyError(name)
        self._disabled.add(name)
        server = self._servers.pop(name, None)  # gone from statuses and tools at once
        if server is not None:
            self._submit(self._stop_server(server))
        self._on_change()

    def stop(self) -> None:
        """End every server (stdio processes included), then the loop: its thread closes it, with
        its selector and the worker threads it started (``_serve``). Waits at most a few seconds;
        a second call (``atexit`` after the quit) does nothing."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        try:
            future = asyncio.run_coroutine_threadsafe(self._stop_all(), loop)
            future.result(timeout=_STOP_TIMEOUT + 1)
        except Exception as error:  # a stuck server must not keep zett from quitting
            log.warning("MCP servers did not all stop cleanly: %s", error_line(error))
        with contextlib.suppress(RuntimeError):  # closed already: its thread ended on its own
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=_CLOSE_TIMEOUT)

    # --- on the manager's loop ---------------------------------------------------------------

    def _submit(self, coroutine: Any) -> Future[Any] | None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                return asyncio.run_coroutine_threadsafe(coroutine, loop)
            except RuntimeError:  # closed by a ``stop`` on another thread since the check
                pass
        coroutine.close()
        return None

    async def _launch(self, name: str) -> None:
        server = ServerConnection(
            self._configs[name], self._environ, self._on_change, self._on_sign_in_url, self._sign_in_timeout
        )
        self._servers[name] = server
        server.task = asyncio.ensure_future(server.run())

    async def _restart(self, name: str) -> None:
        server = self._servers.get(name)
        if server is None or server.task is None or server.task.done():
            await self._launch(name)
        else:
            server.restart_now.set()

    async def _stop_one(self, name: str) -> None:
        server = self._servers.pop(name, None)
        if server is not None:
            await self._stop_server(server)

    async def _stop_server(self, server: ServerConnection) -> None:
        if server.task is None:
            return
        server.stopping.set()
        if server.state in (ServerState.STARTING, ServerState.SIGNING_IN) or (
            server.sign_in is not None and server.sign_in.waiting_url
        ):
            # Still connecting (or waiting for the browser): it notices a stop only once it is
            # connected, and nothing is open to close gracefully yet. Waited for, a quit while a
            # remote server looked up its sign-in took the whole five seconds below.
            server.task.cancel()
        _, pending = await asyncio.wait({server.task}, timeout=_STOP_TIMEOUT)
        for task in pending:
            task.cancel()
            await asyncio.wait({task}, timeout=_STOP_TIMEOUT)

    async def _stop_and_forget(self, server: ServerConnection) -> None:
        await self._stop_server(server)
        try:
            oauth_tokens.forget(server.config.name)  # a refresh that ended while it stopped stored new ones
        except OSError:
            log.warning("could not remove the sign-in of MCP server %s", server.config.name, exc_info=True)

    async def _stop_all(self) -> None:
        await asyncio.gather(*(self._stop_one(name) for name in list(self._servers)), return_exceptions=True)

    async def _call(self, name: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        server = self._servers.get(name)
        if name in self._disabled:
            raise McpUnavailable(f"MCP server {name!r} is disabled")
        if server is None or server.session is None or server.state is not ServerState.READY:
            why = f" ({server.reason})" if server is not None and server.reason else ""
            state = server.state.value if server is not None else "not started"
            raise McpUnavailable(f"MCP server {name!r} is {state}{why}")
        try:
            return await server.deadlines.run(
                server.session.call_tool(tool, arguments), server.config.tool_timeout
            )
        except TimeoutError:
            raise TimeoutError(
                f"MCP tool {tool!r} on server {name!r} gave no answer within {server.config.tool_timeout:g} s"
            ) from None
        except McpUnavailable:
            raise
        except Exception as error:
            why = server.config.mask(error_line(error), server.environ)
            raise McpUnavailable(f"MCP server {name!r} failed during the call: {why}") from None
