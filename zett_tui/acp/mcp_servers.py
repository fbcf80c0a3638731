"""The MCP servers an editor passes in ``session/new`` and ``session/load``, as zett's own
``McpServerConfig``: they join zett's MCP manager for that session, behind zett's approvals
(every tool call asks, as a permission request, unless allowed before)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

from zett_tui.config.mcp_servers import SERVER_NAME, McpServerConfig

log = logging.getLogger(__name__)

#: ``McpServerConfig.source`` of a server the editor passed.
EDITOR = "editor"


def editor_servers(given: Sequence[Any] | None, taken: set[str]) -> list[McpServerConfig]:
    """The servers zett can start; one with an unusable or already-configured name is left out
    (and said in the log): zett's own configuration wins."""
    servers: list[McpServerConfig] = []
    for server in given or ():
        name = getattr(server, "name", "")
        if not isinstance(name, str) or not SERVER_NAME.fullmatch(name) or name in taken:
            log.warning("the editor's MCP server %r was left out: its name is not usable or is taken", name)
            continue
        if isinstance(server, McpServerStdio):
            env = {variable.name: variable.value for variable in server.env}
            servers.append(
                McpServerConfig(
                    name=name,
                    source=EDITOR,
                    command=server.command,
                    args=tuple(server.args),
                    env=MappingProxyType(env),
                    transport="stdio",
                )
            )
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            headers = {header.name: header.value for header in server.headers}
            servers.append(
                McpServerConfig(
                    name=name,
                    source=EDITOR,
                    url=server.url,
                    headers=MappingProxyType(headers),
                    transport="http" if isinstance(server, HttpMcpServer) else "sse",
                )
            )
        else:
            log.warning("the editor's MCP server %r was left out: zett cannot reach that kind", name)
            continue
        taken.add(name)
    return servers
