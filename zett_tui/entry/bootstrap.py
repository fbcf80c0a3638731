"""The one bootstrap of a zett session, shared by the chat screen, ``zett -p`` and ``zett acp``:
the workspace's Markdown commands and skills, then the host for the launch settings, started (a
resumed session's history restored). No Textual here.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.runtime.modes import PermissionMode
    from zett_tui.workspace.extension_folders import WorkspaceFiles

log = logging.getLogger(__name__)

__all__ = ["StartFailed", "load_files", "open_session"]


class StartFailed(Exception):
    """The session could not open; the message is why, in one line (the provider's words for a
    key or address problem), for the front end's "could not start the model: ..."."""


async def load_files(launch: LaunchSettings, warn: Callable[[str], None]) -> WorkspaceFiles:
    """The project's and the user's Markdown commands and skills (none when they cannot be read)."""
    from zett_tui.core.heap_arenas import limit_heaps
    from zett_tui.workspace.extension_folders import WorkspaceFiles, load_workspace_files

    limit_heaps()  # ``zett -p``: before its first thread (a no-op when the chat or ACP did it)
    try:
        files = await asyncio.to_thread(load_workspace_files, launch.cwd, dict(os.environ))
    except Exception as error:  # the session runs without them
        log.warning("loading the Markdown commands and skills failed", exc_info=True)
        warn(f"could not load the Markdown commands and skills: {error}")
        return WorkspaceFiles([], [], [])
    for problem in files.problems:
        warn(str(problem))
    return files


async def open_session(
    launch: LaunchSettings,
    files: WorkspaceFiles,
    *,
    mcp: McpManager | None = None,
    permission_mode: PermissionMode | None = None,
) -> AgentHost:
    """The bootstrap: the host for ``launch`` with ``files``' skills and agent types, started (the history of a
    resumed session restored). Raises ``StartFailed`` with the reason in one line."""
    from zett_tui.entry.host_options import options_from_launch
    from zett_tui.providers.errors import describe_error
    from zett_tui.runtime.agent_options import with_agents
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.skills_extension import with_skills

    overrides: dict[str, object] = {"mcp_manager": mcp}
    if permission_mode is not None:
        overrides["permission_mode"] = permission_mode
    options = with_skills(options_from_launch(launch, **overrides), files.skills)
    host = AgentHost(with_agents(options, files.agents))
    try:
        await host.start()
    except Exception as error:
        log.warning("agent start failed", exc_info=True)
        await host.aclose()
        explain = launch.describe_error or describe_error
        raise StartFailed(explain(error)) from error
    except BaseException:  # cancelled while starting: nothing is left open
        await asyncio.shield(host.aclose())
        raise
    return host
