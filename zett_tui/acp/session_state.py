"""One editor session of ``zett acp``: its core, its folder and what the agent keeps beside them.

Used by the agent (``acp.server``, which opens and closes sessions) and by the questions put to
the editor (``acp.asking``, which the agent calls): the questions need not import the agent back.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zett_tui.acp.updates import ToolRows
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.runtime.modes import PermissionMode
    from zett_tui.runtime.session import SessionCore
    from zett_tui.workspace.extension_folders import WorkspaceFiles

__all__ = ["AcpSession"]


@dataclass
class AcpSession:
    """An open session: the core that runs it, its folder, its tool call rows and what it started."""

    core: SessionCore
    cwd: Path
    rows: ToolRows
    mcp: McpManager | None = None
    #: The Markdown commands and skills (``/NAME args`` in a prompt).
    files: WorkspaceFiles | None = None
    #: What a Markdown command's ``model`` is chosen from (``LaunchSettings.model_catalog``).
    catalog: object = None
    outbox: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    sender: asyncio.Task[None] | None = None
    #: Modes to switch to once an answered call has finished (an approved plan), by call id.
    mode_after: dict[str, PermissionMode] = field(default_factory=dict)
    #: The mode the editor was last told of (``session/new``, then ``current_mode_update``).
    mode_shown: PermissionMode | None = None
