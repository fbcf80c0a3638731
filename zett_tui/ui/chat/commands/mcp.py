"""``/mcp [restart NAME | disable NAME | logout NAME]``: each MCP server's state and tools; restart, stop or sign out of one.

A server is starting, waiting for an OAuth sign-in (with the address to open), ready with its
tools, failed (with the reason, ``${VAR}`` values shown by name), disabled (by ``enabled = false``
or ``/mcp disable``, for this run: ``/mcp restart`` starts it again) or signed out. A server that
uses OAuth also says "signed in" or "needs sign-in". Its tools are listed by the name the model
calls them. ``/mcp logout NAME`` forgets the server's stored tokens and disconnects it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zett_tui.core import paths
from zett_tui.runtime.mcp.server_connection import ServerState, ServerStatus
from zett_tui.runtime.mcp.tools import model_name
from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from zett_tui.runtime.mcp.manager import McpManager
    from zett_tui.ui.chat.command_context import CommandContext

_DESCRIPTION_WIDTH = 70


@slash_command(
    "mcp",
    "List the MCP servers and their tools; restart NAME, disable NAME (for this run) or logout NAME",
    arguments="[restart NAME | disable NAME | logout NAME]",
)
def mcp_command(ctx: CommandContext, arguments: str) -> None:
    words = arguments.split()
    if ctx.host is None:
        ctx.say("zett is still starting; the MCP servers are shown once the model is ready.", "info")
        return
    manager: McpManager | None = ctx.host.options.mcp_manager
    if manager is None or not manager.configs:
        ctx.say(
            f"No MCP servers are configured. Add a [mcp_servers.NAME] table to {paths.config_file()} "
            "(the README's “MCP servers” shows how).",
            "info",
        )
        return
    if not words:
        ctx.say(describe_servers(manager.statuses()), "info")
        return
    action, names = words[0].lower(), words[1:]
    if action not in ("restart", "disable", "logout") or len(names) != 1:
        ctx.say("/mcp takes no argument, 'restart NAME', 'disable NAME' or 'logout NAME'.", "warning")
        return
    name = names[0]
    if name not in manager.configs:
        known = ", ".join(manager.configs) or "none"
        ctx.say(f"There is no MCP server {name!r} (configured: {known}).", "warning")
        return
    if action == "logout":
        try:
            forgotten = manager.logout(name)
        except OSError as error:
            ctx.say(f"Could not forget the sign-in of MCP server {name}: {error.strerror or error}.", "error")
            return
        if forgotten:
            ctx.say(
                f"Signed out of MCP server {name}: its tokens are forgotten and it is disconnected.", "info"
            )
        else:
            ctx.say(f"MCP server {name} had no stored sign-in; it is disconnected.", "info")
    elif action == "restart":
        manager.restart(name)
        ctx.say(f"Starting MCP server {name} again; its tools come back once it is ready.", "info")
    else:
        manager.disable(name)
        ctx.say(f"MCP server {name} stopped for this run; /mcp restart {name} starts it again.", "info")


def describe_servers(statuses: list[ServerStatus]) -> str:
    lines = ["MCP servers:"]
    for status in statuses:
        signed = (
            f" ({status.sign_in})" if status.sign_in and status.state is not ServerState.SIGNED_OUT else ""
        )
        lines.append(f"  {status.name}: {describe_state(status)}{signed}")
        lines.append(f"      {status.launch_line}")
        if status.sign_in_url:
            lines.append(f"      sign in at {status.sign_in_url}")
        for tool in status.tools:
            read_only = tool.annotations is not None and tool.annotations.read_only_hint
            about = (tool.description or "").strip().splitlines()
            summary = about[0][:_DESCRIPTION_WIDTH] if about else ""
            mark = " (read-only)" if read_only else ""
            lines.append(
                f"      {model_name(status.name, tool.name)}{mark}" + (f"  {summary}" if summary else "")
            )
    return "\n".join(lines)


def describe_state(status: ServerStatus) -> str:
    """``ready with 3 tools``, ``failed: why``, ``disabled (...)`` or ``starting…`` (``failed: why;
    starting again…`` while a server that failed is being started again: its failure stays said)."""
    if status.state is ServerState.READY:
        count = len(status.tools)
        return f"ready with {count} tool{'s' if count != 1 else ''}"
    if status.state is ServerState.FAILED:
        return f"failed: {status.reason}"
    if status.state is ServerState.DISABLED:
        return f"disabled (/mcp restart {status.name} starts it)"
    if status.state is ServerState.SIGNED_OUT:
        return f"signed out (/mcp restart {status.name} signs in again)"
    if status.state is ServerState.SIGNING_IN:
        return "waiting for you to sign in in the browser"
    if status.state is ServerState.STARTING and status.reason:
        return f"failed: {status.reason}; starting again…"
    return "starting…"
