"""A stdio MCP server written with the SDK's MCPServer (FastMCP before mcp 2): ``python -m tests.fakes.mcp_sdk_server``.

The suite's servers are ``tests/fakes/mcp_server.py``, which answers as this one does without importing
the SDK; ``tests/test_mcp_fake_server.py`` checks that, and a test or two start this one itself.

Tools: ``lookup`` (readOnlyHint), ``write_note`` (no hint), ``picture`` (an image result),
``crash`` (the process exits mid-call), ``sleep`` (answers after N seconds), ``pid``.
``FAKE_MCP_SLOW_START`` seconds of sleep before serving makes a slow start; each start appends a
line to ``FAKE_MCP_STARTS`` when set; ``sleep`` creates ``FAKE_MCP_SLEEPING`` (when set) as it
starts sleeping. Every start writes ``fake server starting`` to stderr.
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import Image, MCPServer
from mcp.types import ToolAnnotations

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db40000000049454e44ae426082"
)

server = MCPServer("fake")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def lookup(word: str) -> str:
    """Look a word up."""
    return f"{word}: a word"


@server.tool()
def write_note(text: str) -> str:
    """Write a note."""
    return f"wrote {len(text)} characters"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def picture() -> Image:
    """A 1x1 PNG."""
    return Image(data=PNG, format="png")


@server.tool()
def crash() -> str:
    """Exit the process in the middle of the call."""
    os._exit(3)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def sleep(seconds: float) -> str:
    """Answer after a while."""
    sleeping = os.environ.get("FAKE_MCP_SLEEPING")
    if sleeping:
        open(sleeping, "w").close()
    time.sleep(seconds)
    return "slept"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


if __name__ == "__main__":
    print("fake server starting", file=sys.stderr, flush=True)
    starts = os.environ.get("FAKE_MCP_STARTS")
    if starts:
        with open(starts, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
    time.sleep(float(os.environ.get("FAKE_MCP_SLOW_START", "0")))
    server.run("stdio")
