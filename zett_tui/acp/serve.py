"""``zett acp``'s main loop: the protocol streams, the agent, and its end."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any, cast

from zett_tui.acp.folders import FolderProcesses, child_command
from zett_tui.acp.server import AcpOptions, ZettAcpAgent
from zett_tui.acp.transport import LINE_LIMIT, protocol_streams, screen_lines
from zett_tui.core.redacted_log import setup_redacted_log

if TYPE_CHECKING:
    from acp.interfaces import Agent

__all__ = ["serve"]


async def serve(options: AcpOptions, protocol_fd: int, first: bytes = b"", initialize: bytes = b"") -> int:
    """Speak ACP on stdin/stdout until the client closes its end; then close every session.
    ``first``: a line read and not answered; ``initialize``: the ``initialize`` request
    ``fast_start`` answered."""
    from acp.agent.connection import AgentSideConnection

    setup_redacted_log()
    raw, writer = await protocol_streams(protocol_fd, first)
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    folders = FolderProcesses(
        writer.write,
        command=child_command(options.model, options.reasoning_effort),
        env=dict(options.env),
        initialize=_params(initialize),
    )
    screening = asyncio.create_task(screen_lines(raw, reader, writer, folders.divert))
    agent = ZettAcpAgent(options)
    conn = AgentSideConnection(
        cast("Agent", agent), writer, reader, listening=False, use_unstable_protocol=True
    )
    try:
        await conn.listen()
    finally:
        screening.cancel()
        await asyncio.gather(agent.aclose(), folders.aclose(), return_exceptions=True)
        with contextlib.suppress(Exception):
            await conn.close()
    return 0


def _params(line: bytes) -> dict[str, Any] | None:
    if not line:
        return None
    params = json.loads(line).get("params")
    return params if isinstance(params, dict) else None
