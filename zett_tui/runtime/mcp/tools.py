"""MCP tools as zett-agent ``AgentTool`` s named ``mcp__SERVER__TOOL``.

Built from what the manager holds (no connection is opened to build them), so a request with 200
MCP tools costs only this adaptation. The handler calls through ``McpManager.call_tool`` (the
server's one long-lived connection) and turns the answer into what the model sees
(``results.to_model_result``). A tool's ``readOnlyHint`` is kept in ``READ_ONLY`` for the Plan Mode
decision (``policy.decide``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zett_agent.tools.base import AgentTool

from zett_tui.runtime.mcp.policy import tool_key
from zett_tui.runtime.mcp.results import to_model_result

if TYPE_CHECKING:
    from mcp.types import Tool

    from zett_tui.config.mcp_servers import McpServerConfig
    from zett_tui.runtime.mcp.manager import McpManager

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64
_NOISE = frozenset({"$schema", "title"})


def model_name(server: str, tool: str) -> str:
    """``mcp__SERVER__TOOL`` within the characters and length providers accept."""
    name = _UNSAFE.sub("_", tool_key(server, tool))
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[: _MAX_NAME - 9]}_{digest}"


@dataclass(frozen=True)
class McpTool:
    """One MCP tool as the model is offered it, and where it goes."""

    tool: AgentTool
    server: str
    remote_name: str
    """The tool's own name on its server."""
    read_only: bool
    """The server annotates it ``readOnlyHint`` (a claim: it only decides Plan Mode)."""


def build_tools(manager: McpManager) -> dict[str, McpTool]:
    """Every ready server's tools by model name."""
    tools: dict[str, McpTool] = {}
    for config, tool in manager.ready_tools():
        name = model_name(config.name, tool.name)
        if name not in tools:
            tools[name] = McpTool(
                _adapt(manager, config, tool, name), config.name, tool.name, _read_only(tool)
            )
    return tools


def _read_only(tool: Tool) -> bool:
    annotations = tool.annotations
    return bool(annotations is not None and annotations.read_only_hint)


def _adapt(manager: McpManager, config: McpServerConfig, tool: Tool, name: str) -> AgentTool:
    server, remote = config.name, tool.name

    async def invoke(**arguments: Any) -> Any:
        result = await manager.call_tool(server, remote, arguments)
        return to_model_result(result, server=server, tool=remote)

    return AgentTool(
        name=name,
        description=tool.description or f"The {remote} tool of the {server} MCP server.",
        parameters=_compact(tool.input_schema),
        handler=invoke,
        guidelines=(),
    )


def _compact(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema without ``$schema`` and ``title`` keywords (property names are kept)."""

    def clean(node: Any, *, names: bool = False) -> Any:
        if isinstance(node, list):
            return [clean(item) for item in node]
        if not isinstance(node, Mapping):
            return node
        return {
            key: clean(value, names=key in ("properties", "$defs", "definitions", "patternProperties"))
            for key, value in node.items()
            if names or key not in _NOISE
        }

    return dict(clean(dict(schema)))
