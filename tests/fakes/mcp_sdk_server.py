"""A stdio MCP server written with the SDK's MCPServer (FastMCP before mcp 2): ``python -m tests.fakes.mcp_sdk_server``.

The suite's servers are ``tests/fakes/mcp_server.py``, which answers as this one does without importing
the SDK; ``tests/test_mcp_fake_server.py`` checks that, and a test or two start this one itself.
The tools are that module's functions, registered here with the SDK (``picture`` returns the SDK's
``Image``).

Tools: ``lookup`` (readOnlyHint), ``write_note`` (no hint), ``picture`` (an image result),
``crash`` (the process exits mid-call), ``sleep`` (answers after N seconds), ``pid``.
``FAKE_MCP_SLOW_START`` seconds of sleep before serving makes a slow start; each start appends a
line to ``FAKE_MCP_STARTS`` when set; ``sleep`` creates ``FAKE_MCP_SLEEPING`` (when set) as it
starts sleeping. Every start writes ``fake server starting`` to stderr.
"""

from __future__ import annotations

from mcp.server.mcpserver import Image, MCPServer
from mcp.types import ToolAnnotations

from tests.fakes import mcp_server as lean

server = MCPServer("fake")


def picture() -> Image:
    return Image(data=lean.PNG, format="png")


for name, (function, description, read_only, _arguments) in lean.TOOLS.items():
    server.tool(
        name=name,
        description=description,
        annotations=ToolAnnotations(readOnlyHint=True) if read_only else None,
    )(picture if name == "picture" else function)


if __name__ == "__main__":
    lean.starting()
    server.run("stdio")
