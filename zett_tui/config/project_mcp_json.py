"""A trusted project's ``.mcp.json`` (Claude Code's format): its servers, and one line per problem.

The servers come from the bytes the trust question hashed (``ProjectFiles.content``), never from
a second read: what loads is what the user trusted. A ``.mcp.json`` the question left out (a link
outside the project, not a regular file, over the size limit) loads nothing, and so does one that
is not UTF-8 or not JSON; each is one line naming the file and the problem. A bad server entry
is skipped alone.

Precedence: a name that ``[mcp_servers.NAME]`` in the user's config or in ``.zett/config.toml``
already defines keeps zett's own definition, whole; the ``.mcp.json`` entry of that name is not
used, and a line says so. zett's config is where a user tailors zett; ``.mcp.json`` is shared
with other tools.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Protocol

from zett_tui.config.mcp_servers import McpServerConfig, read_mcp_json
from zett_tui.config.project_folder import MCP_JSON_NAME


class HashedProject(Protocol):
    """What the trust question read of a project folder (``trust.ProjectFiles``)."""

    @property
    def root(self) -> Path: ...

    @property
    def left_out(self) -> tuple[tuple[str, str], ...]:
        """(path relative to ``root``, why) for each entry that was not read."""
        ...

    def content(self, relative: str) -> bytes | None:
        """The file at ``relative`` as it was hashed; None when it was not read."""
        ...


def mcp_json_servers(
    project: HashedProject, *, taken: Collection[str] = ()
) -> tuple[list[McpServerConfig], list[str]]:
    """The servers of the project's ``.mcp.json`` whose names ``taken`` (zett's own config) does
    not have, and one line per problem or name left to zett's config. No file: nothing at all."""
    path = project.root / MCP_JSON_NAME
    why = dict(project.left_out).get(MCP_JSON_NAME)
    if why is not None:
        return [], [f"{path}: {why}; no servers loaded from it"]
    raw = project.content(MCP_JSON_NAME)
    if raw is None:
        return [], []
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return [], [f"{path}: is not valid UTF-8; no servers loaded from it"]
    servers, problems = read_mcp_json(text, path)
    kept: list[McpServerConfig] = []
    for server in servers:
        if server.name in taken:
            problems.append(
                f"{path}: mcpServers.{server.name}: not used: zett's own [mcp_servers.{server.name}] "
                "has that name and wins"
            )
        else:
            kept.append(server)
    return kept, problems
