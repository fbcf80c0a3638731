"""Each configured MCP server, started once per zett process and kept running.

All connections live on one event loop in a daemon thread of their own (``McpManager``). The MCP
SDK enters its transports in anyio cancel scopes that must be left by the task that entered them,
so each server has one task owning its whole ``async with`` (``_Server.run``); calls come from
any thread or loop through ``call_tool``. That keeps a stdio server's process (and its state)
across turns, whichever loop a turn runs on, and lets ``start`` return at once: nothing waits for
a server before the first frame or the first turn.

A server whose process or connection ends is started again after 1, 2, 4... seconds (at most
``MAX_BACKOFF``); ``stop`` ends them all. How a server is reached (stdio with its stderr in
zett's log, HTTP, SSE) is ``transport``.

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
import shlex
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zett_tui.config.mcp_servers import McpServerConfig, MissingVariable
from zett_tui.runtime.mcp import oauth_tokens
from zett_tui.runtime.mcp.deadlines import Deadlines
from zett_tui.runtime.mcp.oauth import (
    NEEDS_SIGN_IN,
    SIGN_IN_TIMEOUT,
    OnUrl,
    SignIn,
    log_sign_in_url,
    sign_in_failure,
    wants_oauth,
)
from zett_tui.runtime.mcp.transport import open_transport

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import CallToolResult, Tool

log = logging.getLogger("zett_tui.runtime.mcp")

MAX_BACKOFF = 30.0
_FIRST_BACKOFF = 1.0
_STOP_TIMEOUT = 5.0
_CLOSE_TIMEOUT = 2.0


class ServerState(StrEnum):
    STARTING = "starting"
    READY = "ready"
    SIGNING_IN = "waiting for sign-in"
    FAILED = "failed"
    DISABLED = "disabled"
    SIGNED_OUT = "signed out"


class McpUnavailable(RuntimeError):
    """The server is not connected (starting, failed, disabled or gone); the message says which."""


@dataclass(frozen=True)
class ServerStatus:
    """What ``/mcp`` and the status line show for one server."""

    name: str
    state: ServerState
    tools: tuple[Tool, ...] = ()
    """The tools it offers after ``enabled_tools`` / ``disabled_tools``."""
    reason: str = ""
    """Why it failed, one line."""
    launch_line: str = ""
    sign_in: str = ""
    """``signed in`` or ``needs sign-in`` for a server that uses OAuth; empty for the others."""
    sign_in_url: str = ""
    """The authorization URL while zett waits for the browser."""


@dataclass
class _Server:
    config: McpServerConfig
    environ: Mapping[str, str]
    changed: Callable[[], None]
    on_sign_in_url: OnUrl
    sign_in_timeout: float = SIGN_IN_TIMEOUT
    state: ServerState = ServerState.STARTING
    tools: tuple[Tool, ...] = ()
    reason: str = ""
    session: ClientSession | None = None
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    restart_now: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    deadlines: Deadlines = field(default_factory=Deadlines)
    sign_in: SignIn | None = None

    def status(self) -> ServerStatus:
        sign_in = self.sign_in
        state = self.state
        if sign_in is not None and sign_in.waiting_url and state is ServerState.STARTING:
            state = ServerState.SIGNING_IN
        return ServerStatus(
            self.config.name,
            state,
            self.tools,
            self.reason,
            self.config.launch_line(),
            sign_in=sign_in.state if sign_in is not None else "",
            sign_in_url=sign_in.waiting_url if sign_in is not None else "",
        )

    def _set(self, state: ServerState, reason: str = "") -> None:
        self.state, self.reason = state, reason
        if state is not ServerState.READY:
            self.session, self.tools = None, ()
        self.changed()

    async def run(self) -> None:
        """Connect, serve until the connection ends, and start again after a growing pause."""
        backoff = _FIRST_BACKOFF
        failure = ""  # why the last start failed: still said while it is started again
        while not self.stopping.is_set():
            started = time.monotonic()
            self._set(ServerState.STARTING, failure)
            try:
                await self._connect_and_serve()
                reason = "the server closed the connection"
            except MissingVariable as error:
                self._set(ServerState.FAILED, str(error))
                return  # nothing changes until zett starts again with the variable set
            except asyncio.CancelledError:
                raise
            except BaseException as error:  # an ExceptionGroup from anyio, OSError, McpError...
                failed_sign_in = sign_in_failure(error)
                if failed_sign_in is not None and not self.stopping.is_set():
                    failed_sign_in = self.config.mask(failed_sign_in, self.environ)
                    # asking again by itself would put a new URL in front of the user in a loop
                    log.warning("MCP server %s: %s", self.config.name, failed_sign_in)
                    if self.sign_in is not None:
                        self.sign_in.state = NEEDS_SIGN_IN
                    self._set(ServerState.FAILED, failed_sign_in)
                    return
                reason = self.config.mask(_one_line(error), self.environ)
            if self.stopping.is_set():
                return
            if time.monotonic() - started > 2 * MAX_BACKOFF:
                backoff = _FIRST_BACKOFF  # it ran a good while: a fresh failure, not a crash loop
            log.warning(
                "MCP server %s stopped (%s); starting it again in %.0f s", self.config.name, reason, backoff
            )
            failure = reason
            self._set(ServerState.FAILED, f"{reason}; retrying in {backoff:.0f} s")
            self.restart_now.clear()
            waiters = {
                asyncio.ensure_future(self.stopping.wait()),
                asyncio.ensure_future(self.restart_now.wait()),
            }
            _, pending = await asyncio.wait(waiters, timeout=backoff, return_when=asyncio.FIRST_COMPLETED)
            for waiter in pending:
                waiter.cancel()
            backoff = min(backoff * 2, MAX_BACKOFF)

    async def _connect_and_serve(self) -> None:
        from mcp import ClientSession

        config = self.config
        root = config.project_root
        if root is not None and not await asyncio.to_thread(_still_trusted, root):
            # A project's server runs outside the sandbox: each (re)start runs only what the user
            # trusted, the script its command names included (a command may have rewritten it).
            raise RuntimeError(
                "the project's files changed since you trusted them (its server script among them); "
                "/extensions trust asks again"
            )
        if root is None and config.command:
            refused = await asyncio.to_thread(_unpinned_files, config)
            if refused:
                # The user's own server runs a file where sandboxed commands write: only as allowed.
                raise RuntimeError(
                    f"{refused[0]} lies where sandboxed commands write and is not as you allowed it; "
                    "review it, then /extensions allow"
                )
        auth = await self._oauth()
        async with open_transport(config, self.environ, auth) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await self.deadlines.run(session.initialize(), config.startup_timeout)
                tools = await self.deadlines.run(_all_tools(session), config.startup_timeout)
                self.tools = tuple(tool for tool in tools if config.offers(tool.name))
                self.session = session
                self._set(ServerState.READY)
                log.info("MCP server %s ready with %d tools", config.name, len(self.tools))
                closed = asyncio.ensure_future(_wait_closed(session, self.deadlines))
                stop = asyncio.ensure_future(self.stopping.wait())
                restart = asyncio.ensure_future(self.restart_now.wait())
                await asyncio.wait({closed, stop, restart}, return_when=asyncio.FIRST_COMPLETED)
                for waiter in (closed, stop, restart):
                    waiter.cancel()
                if restart.done() and not restart.cancelled():
                    self.restart_now.clear()
                    raise _Restart("restarted from /mcp")

    async def _oauth(self) -> Any:
        """The OAuth provider for a remote server (None for a command, or one given its own
        ``Authorization`` header)."""
        config = self.config
        if config.url is None or not wants_oauth(config.resolved_headers(self.environ)):
            return None
        if self.sign_in is None or self.sign_in.url != config.resolved_url(self.environ):
            self.sign_in = SignIn(
                config.name,
                config.resolved_url(self.environ),
                self.on_sign_in_url,
                self.deadlines,
                self.changed,
                self.sign_in_timeout,
            )
        await self.sign_in.prepare()
        return self.sign_in.provider


class _Restart(Exception):
    pass


async def _wait_closed(session: ClientSession, deadlines: Deadlines) -> None:
    """Returns when the server stops answering: a ping every few seconds (its clock paused while
    the user signs in again)."""
    while True:
        await asyncio.sleep(5.0)
        await deadlines.run(session.send_ping(), 10.0)


async def _all_tools(session: ClientSession) -> list[Tool]:
    from mcp.types import PaginatedRequestParams

    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(100):
        params = PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise RuntimeError("the server returned more than 100 pages of tools")


def user_server_files(config: McpServerConfig) -> list[Path]:
    """The files a user's server's command and arguments name that lie where sandboxed commands
    write (``config.pinned_files``), named from the folder it starts in."""
    from zett_tui.config.pinned_files import writable_files_named

    folder = config.runs_in or Path.cwd()
    return writable_files_named(shlex.join((config.command or "", *config.args)), folder)


def _unpinned_files(config: McpServerConfig) -> list[Path]:
    from zett_tui.config.pinned_files import unpinned

    return unpinned(user_server_files(config))


def _still_trusted(root: Path) -> bool:
    from zett_tui.config.trust import still_trusted

    return still_trusted(root)


def _one_line(error: BaseException) -> str:
    """The innermost message of an (anyio) exception group, on one line."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, TimeoutError):
        return "no answer within the startup timeout"
    if isinstance(error, FileNotFoundError):
        return f"cannot start it: {error.strerror or error}: {error.filename or ''}".rstrip(": ")
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:300]


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
        self._servers: dict[str, _Server] = {}
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
            log.warning("MCP servers did not all stop cleanly: %s", _one_line(error))
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
        server = _Server(
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

    async def _stop_server(self, server: _Server) -> None:
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

    async def _stop_and_forget(self, server: _Server) -> None:
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
            why = server.config.mask(_one_line(error), server.environ)
            raise McpUnavailable(f"MCP server {name!r} failed during the call: {why}") from None
