"""One MCP server's connection: started, served, and started again after a growing pause.

``ServerConnection.run`` is the one task that owns the server's whole ``async with`` (the MCP SDK
enters its transports in anyio cancel scopes that must be left by the task that entered them); it
runs on ``McpManager``'s loop. A server whose process or connection ends is started again after
1, 2, 4... seconds (at most ``MAX_BACKOFF``), a failed OAuth sign-in is not retried by itself, and
a project's server (or a user's server whose script lies where sandboxed commands write) starts
only as the user trusted it.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zett_tui.config.mcp_servers import McpServerConfig, MissingVariable
from zett_tui.runtime.mcp.deadlines import Deadlines
from zett_tui.runtime.mcp.oauth import (
    NEEDS_SIGN_IN,
    SIGN_IN_TIMEOUT,
    OnUrl,
    SignIn,
    sign_in_failure,
    wants_oauth,
)
from zett_tui.runtime.mcp.transport import open_transport

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import Tool

log = logging.getLogger("zett_tui.runtime.mcp")

MAX_BACKOFF = 30.0
_FIRST_BACKOFF = 1.0


class ServerState(StrEnum):
    """A server's state; ``DISABLED`` and ``SIGNED_OUT`` are the manager's, for a server it holds
    no connection for."""

    STARTING = "starting"
    READY = "ready"
    SIGNING_IN = "waiting for sign-in"
    FAILED = "failed"
    DISABLED = "disabled"
    SIGNED_OUT = "signed out"


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
class ServerConnection:
    """One server's connection, run by ``run`` on the manager's loop; ``session`` is set while ready."""

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
                reason = self.config.mask(error_line(error), self.environ)
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


def error_line(error: BaseException) -> str:
    """The innermost message of an (anyio) exception group, on one line."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, TimeoutError):
        return "no answer within the startup timeout"
    if isinstance(error, FileNotFoundError):
        return f"cannot start it: {error.strerror or error}: {error.filename or ''}".rstrip(": ")
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:300]
