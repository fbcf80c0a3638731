"""A stdio MCP server for the tests, without the SDK: ``python -m tests.fakes.mcp_server``.

The MCP SDK's import costs a new process ~1.5 s of CPU (its protocol types are hundreds of pydantic
models), and the suite starts this server dozens of times. This one speaks the same protocol
directly: newline-delimited JSON-RPC on stdin/stdout, the answers ``tests/fakes/mcp_sdk_server.py``
(the same tools written with the SDK's ``MCPServer``) gives. ``tests/test_mcp_fake_server.py``
sends both the same requests and checks that they answer alike, so zett's client (the real SDK's)
is tested against what the SDK's server says, not against what this file assumes.

Tools: ``lookup`` (readOnlyHint), ``write_note`` (no hint), ``picture`` (an image result),
``crash`` (the process exits mid-call), ``sleep`` (answers after N seconds), ``pid``.
``FAKE_MCP_SLOW_START`` seconds of sleep before serving makes a slow start; each start appends a
line to ``FAKE_MCP_STARTS`` when set; ``sleep`` creates ``FAKE_MCP_SLEEPING`` (when set) as it
starts sleeping. Every start writes ``fake server starting`` to stderr. Each call is answered in a
thread of its own, as the SDK's server answers requests concurrently.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db40000000049454e44ae426082"
)
#: The versions the SDK's server agrees to in ``initialize``, newest first: the client's own when it
#: is one of them, else the first.
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")

Json = dict[str, Any]
_write_lock = threading.Lock()


def lookup(word: str) -> str:
    return f"{word}: a word"


def write_note(text: str) -> str:
    return f"wrote {len(text)} characters"


def picture() -> Json:
    return {"data": base64.b64encode(PNG).decode(), "mimeType": "image/png", "type": "image"}


def crash() -> str:
    os._exit(3)


def sleep(seconds: float) -> str:
    sleeping = os.environ.get("FAKE_MCP_SLEEPING")
    if sleeping:
        open(sleeping, "w").close()
    time.sleep(seconds)
    return "slept"


def pid() -> str:
    return str(os.getpid())


#: name -> (the function, its description, read-only, its arguments: name -> JSON type; all required)
TOOLS: dict[str, tuple[Callable[..., Any], str, bool, dict[str, str]]] = {
    "lookup": (lookup, "Look a word up.", True, {"word": "string"}),
    "write_note": (write_note, "Write a note.", False, {"text": "string"}),
    "picture": (picture, "A 1x1 PNG.", True, {}),
    "crash": (crash, "Exit the process in the middle of the call.", False, {}),
    "sleep": (sleep, "Answer after a while.", True, {"seconds": "number"}),
    "pid": (pid, "The server's process id.", True, {}),
}


def tool_listing(name: str) -> Json:
    """A tool as the SDK's server lists it: a text result has an output schema, an image none."""
    function, description, read_only, arguments = TOOLS[name]
    input_schema: Json = {
        "properties": {
            arg: {"title": arg.replace("_", " ").title(), "type": kind} for arg, kind in arguments.items()
        },
        "type": "object",
        "title": f"{name}Arguments",
    }
    if arguments:
        input_schema["required"] = list(arguments)
    listed: Json = {"description": description, "inputSchema": input_schema, "name": name}
    if read_only:
        listed["annotations"] = {"readOnlyHint": True}
    if function is not picture:
        listed["outputSchema"] = {
            "properties": {"result": {"title": "Result", "type": "string"}},
            "required": ["result"],
            "type": "object",
            "title": f"{name}Output",
        }
    return listed


def call(name: str, arguments: Json) -> Json:
    """A ``tools/call`` result: the tool's answer, or an error result as the SDK's server gives one."""
    if name not in TOOLS:
        return _error_result(f"Unknown tool: {name}")
    function, _description, _read_only, parameters = TOOLS[name]
    missing = [parameter for parameter in parameters if parameter not in arguments]
    if missing:
        lines = "".join(f"\n{parameter}\n  Field required [type=missing]" for parameter in missing)
        return _error_result(
            f"Error executing tool {name}: {len(missing)} validation error for {name}Arguments{lines}"
        )
    try:
        answer = function(**{parameter: arguments[parameter] for parameter in parameters})
    except Exception as error:  # the tool's failure is the caller's result
        return _error_result(f"Error executing tool {name}: {error}")
    if isinstance(answer, dict):
        return {"content": [answer], "isError": False}
    return {
        "content": [{"text": answer, "type": "text"}],
        "isError": False,
        "structuredContent": {"result": answer},
    }


def _error_result(text: str) -> Json:
    return {"content": [{"text": text, "type": "text"}], "isError": True}


def answer(request: Json) -> Json | None:
    """The response to one request; None for a notification."""
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        return None
    params = request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        result: Json = {
            "capabilities": {
                "prompts": {"listChanged": False},
                "resources": {"listChanged": False, "subscribe": False},
                "tools": {"listChanged": False},
            },
            "protocolVersion": asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0],
            "serverInfo": {"name": "fake", "version": ""},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": [tool_listing(name) for name in TOOLS]}
    elif method == "tools/call":
        result = call(str(params.get("name")), params.get("arguments") or {})
    else:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def _send(message: Json) -> None:
    data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
    with _write_lock:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def _serve_one(request: Json) -> None:
    response = answer(request)
    if response is not None:
        _send(response)


def serve() -> None:
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if not isinstance(request, dict):
            continue
        if request.get("method") == "tools/call":
            threading.Thread(target=_serve_one, args=(request,), daemon=True).start()
        else:
            _serve_one(request)
    os._exit(0)  # stdin closed: the client is gone; a call still sleeping goes with the process


def starting() -> None:
    """What every start does before it serves (this server's and the SDK-written one's)."""
    print("fake server starting", file=sys.stderr, flush=True)
    starts = os.environ.get("FAKE_MCP_STARTS")
    if starts:
        with open(starts, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
    time.sleep(float(os.environ.get("FAKE_MCP_SLOW_START", "0")))


if __name__ == "__main__":
    starting()
    serve()
