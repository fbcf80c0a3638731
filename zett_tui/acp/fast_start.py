"""``zett acp``'s start: answer ``initialize`` at once, then import the SDK.

Importing the SDK's protocol schema (hundreds of pydantic models) takes most of a second; an
editor waits for ``initialize`` before it shows the agent. So the first line is read here, and
when it is ``initialize`` it is answered from ``capabilities`` (plain JSON) before the SDK is
imported and takes over the rest of the stream. Anything else on the first line goes to the SDK
as it is. (Importing in a thread meanwhile slowed the answer: the import holds the GIL.)
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from zett_tui.acp.capabilities import initialize_result
from zett_tui.core.heap_arenas import limit_heaps

#: The first line is read up to this size; a longer one goes to the SDK unread.
FIRST_LINE_LIMIT = 1024 * 1024


def run(model: str | None, reasoning_effort: str | None, env: Any) -> int:
    import asyncio

    protocol_fd = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print or child goes to stderr
    first = _read_line(sys.stdin.fileno())
    answer = _initialize_answer(first)
    initialize = b""
    if answer is not None:
        os.write(protocol_fd, answer)
        initialize, first = first, b""
    limit_heaps()  # before the SDK's and the history's threads; after the answer, not before it
    from zett_tui.acp.sdk_import import import_acp_schema

    import_acp_schema()  # before anything imports the SDK its own way
    from zett_tui.acp.serve import serve
    from zett_tui.acp.server import AcpOptions

    options = AcpOptions(env, model, reasoning_effort, client_capabilities=_capabilities(initialize))
    return asyncio.run(serve(options, protocol_fd, first, initialize=initialize))


def _read_line(fd: int) -> bytes:
    """One line from ``fd``, byte by byte: nothing past it is taken from the stream."""
    line = bytearray()
    while len(line) < FIRST_LINE_LIMIT:
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
        if byte == b"\n":
            break
    return bytes(line)


def _initialize_answer(line: bytes) -> bytes | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize" or "id" not in message:
        return None
    params = message.get("params")
    version = params.get("protocolVersion") if isinstance(params, dict) else None
    if not isinstance(version, int) or isinstance(version, bool):
        return None  # the SDK answers a malformed one with its error
    response = {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(version)}
    return (json.dumps(response, separators=(",", ":")) + "\n").encode()


def _capabilities(line: bytes) -> Any:
    """The client capabilities of the ``initialize`` answered early (None: none, or malformed)."""
    if not line:
        return None
    from acp.schema import ClientCapabilities
    from pydantic import ValidationError

    params = json.loads(line).get("params") or {}
    try:
        return ClientCapabilities.model_validate(params.get("clientCapabilities") or {})
    except ValidationError:
        return None
