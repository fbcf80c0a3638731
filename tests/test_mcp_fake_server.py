"""The suite's MCP server (``tests/fakes/mcp_server.py``, no SDK) answers what the SDK's own server
(``tests/fakes/mcp_sdk_server.py``, the same tools) answers: the same requests go to both, and the
responses must match, but for the process id and the wording of a validation error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def initialize(version: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "mcp", "version": "0.1.0"},
        },
    }


def calls(version: str) -> list[dict[str, Any]]:
    """What a client sends: the handshake, a ping, the listing, each tool, then mistakes."""
    requests: list[dict[str, Any]] = [
        initialize(version),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]
    for ident, (name, arguments) in enumerate(
        [
            ("lookup", {"word": "zett"}),
            ("write_note", {"text": "hé"}),
            ("picture", {}),
            ("pid", {}),
            ("sleep", {"seconds": 0.01}),
            ("lookup", {}),
            ("no_such_tool", {}),
        ],
        start=4,
    ):
        requests.append(
            {
                "jsonrpc": "2.0",
                "id": ident,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
    requests.append({"jsonrpc": "2.0", "id": 99, "method": "no/such/method"})
    return requests


def served(module: str, requests: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Each response of a server started as ``python -m module``, by id (one request at a time)."""
    process = subprocess.Popen(
        [sys.executable, "-m", module],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    responses: dict[int, dict[str, Any]] = {}
    try:
        for request in requests:
            process.stdin.write((json.dumps(request) + "\n").encode())
            process.stdin.flush()
            if "id" in request:
                response = json.loads(process.stdout.readline())
                responses[response["id"]] = response
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    return responses


def comparable(responses: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The responses without what differs by nature: the process id, a validation error's details."""
    pid = responses[7]["result"]
    assert pid["content"][0]["text"].isdigit()
    pid["content"][0]["text"] = pid["structuredContent"]["result"] = "<pid>"
    invalid = responses[9]["result"]["content"][0]
    first_lines = invalid["text"].splitlines()[:2]
    assert first_lines == ["Error executing tool lookup: 1 validation error for lookupArguments", "word"]
    invalid["text"] = "\n".join(first_lines)
    error = responses[99].get("error")
    if error is not None:
        responses[99]["error"] = {"code": error["code"]}
    return responses


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2024-11-05", "1999-01-01"])
def test_the_fake_server_answers_as_the_sdks_server_does(version: str) -> None:
    requests = calls(version)
    sdk = comparable(served("tests.fakes.mcp_sdk_server", requests))
    fake = comparable(served("tests.fakes.mcp_server", requests))
    assert sorted(fake) == sorted(sdk)
    for ident in sdk:
        assert fake[ident] == sdk[ident], ident
