"""What ``initialize`` answers, as plain JSON: built without the SDK, so ``zett acp`` can answer
it while the SDK's protocol schema is still importing (``fast_start``); the server answers later
``initialize`` requests from the same function."""

from __future__ import annotations

from typing import Any

#: The protocol version zett speaks (the SDK's ``acp.PROTOCOL_VERSION``; a test keeps them equal).
PROTOCOL_VERSION = 1


def initialize_result(requested: int) -> dict[str, Any]:
    """The ``initialize`` result for a client that asked for protocol ``requested``: honest
    capabilities (sessions load, list, resume, fork and close; embedded context and images (a
    model that does not read images refuses them with a clear line); the editor's MCP servers
    over stdio, HTTP and SSE; no audio). Resume, fork and close are ACP's unstable methods."""
    from zett_tui import __version__

    return {
        "protocolVersion": min(requested, PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": True},
            "sessionCapabilities": {"list": {}, "resume": {}, "fork": {}, "close": {}},
        },
        "authMethods": [],
        "agentInfo": {"name": "zett", "title": "zett", "version": __version__},
    }
