"""How zett reaches one MCP server: the SDK's transport for its config, ``${VAR}`` filled in here,
in memory.

A stdio server gets the SDK's short list of zett's environment (so provider keys stay with zett),
its ``PATH`` without the folders a sandboxed command may write (``core.outside_programs``: a bare
``npx`` is never ``<project>/.venv/bin/npx``), plus its own ``env``, and its stderr goes line by line to zett's log, never the terminal. A remote
one is streamable HTTP (or the older SSE), with the OAuth provider when it signs in.

Stopping a stdio server (quitting zett, ``/mcp restart``, disabling or distrusting it), the SDK
closes its stdin, waits for it to exit, and only then sends SIGTERM to its process group (SIGKILL
two seconds later). The SDK waits 2 s (``PROCESS_TERMINATION_TIMEOUT``): an idle server exits at
once when its stdin closes, but one busy in a tool call does not notice before the call ends, so
quitting while a call ran took those whole 2 s. zett waits ``EXIT_GRACE`` instead: every stop is
one the user asked for, and SIGTERM is still a signal a server can end cleanly on.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from typing import IO, Any

from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.core.outside_programs import find_program, safe_path

log = logging.getLogger("zett_tui.runtime.mcp")

#: Seconds a stdio server has to exit after its stdin closes before it gets SIGTERM.
EXIT_GRACE = 0.2


def open_transport(config: McpServerConfig, environ: Mapping[str, str], auth: Any = None) -> Any:
    """The SDK's transport context for ``config``, with ``${VAR}`` filled in here, in memory."""
    if config.url is None:
        from mcp import StdioServerParameters
        from mcp.client import stdio
        from mcp.client.stdio import stdio_client

        # The SDK reads this when it stops a server; it has no parameter for it (module docstring).
        stdio.PROCESS_TERMINATION_TIMEOUT = EXIT_GRACE

        command = config.command or ""
        if command and os.sep not in command:  # a bare name: never one a sandboxed command planted
            command = find_program(command) or command
        inherited = _inherited()
        inherited["PATH"] = safe_path(inherited.get("PATH"))
        parameters = StdioServerParameters(
            command=command,
            args=list(config.args),
            env={**inherited, **config.resolved_env(environ)},
            cwd=config.runs_in,
        )
        return _LoggedStdio(stdio_client, parameters, config.name)
    url, headers = config.resolved_url(environ), config.resolved_headers(environ)
    if config.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(url, headers=headers, auth=auth)
    return _http(url, headers, auth)


def _inherited() -> dict[str, str]:
    """What a stdio server gets from zett's environment: the SDK's short list (HOME, PATH, USER...),
    so provider keys stay with zett; ``env`` adds the rest."""
    from mcp.client.stdio import get_default_environment

    return get_default_environment()


class _LoggedStdio:
    """``stdio_client`` with the server's stderr on a pipe whose lines go to zett's log."""

    def __init__(self, client: Any, parameters: Any, name: str) -> None:
        self._client, self._parameters, self._name = client, parameters, name
        self._inner: Any = None
        self._errlog: IO[str] | None = None

    async def __aenter__(self) -> Any:
        read_end, write_end = os.pipe()
        self._errlog = os.fdopen(write_end, "w")
        threading.Thread(target=_log_lines, args=(read_end, self._name), daemon=True).start()
        self._inner = self._client(self._parameters, errlog=self._errlog)
        try:
            return await self._inner.__aenter__()
        except BaseException:
            self._errlog.close()
            raise

    async def __aexit__(self, *exc: object) -> Any:
        try:
            return await self._inner.__aexit__(*exc)
        finally:
            if self._errlog is not None:
                self._errlog.close()


def _log_lines(fd: int, name: str) -> None:
    with os.fdopen(fd, "r", errors="replace") as lines:
        for line in lines:
            log.info("MCP server %s: %s", name, line.rstrip())


def _http(url: str, headers: Mapping[str, str], auth: Any) -> Any:
    from contextlib import asynccontextmanager

    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    @asynccontextmanager
    async def connect() -> Any:
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with (
            httpx2.AsyncClient(
                headers=dict(headers), timeout=timeout, follow_redirects=True, auth=auth
            ) as client,
            streamable_http_client(url, http_client=client) as streams,
        ):
            yield streams

    return connect()
