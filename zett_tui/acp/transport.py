"""The bytes of ``zett acp``'s protocol: standard input screened line by line, and the protocol's
own copy of standard output.

Nothing but protocol goes to standard output (``fast_start`` moved file descriptor 1 to stderr
and passes the protocol's copy here). Each line from the client is screened before the SDK reads
it: a line that is not a JSON object gets its JSON-RPC error here (the SDK would log and skip it,
and the client would wait for an answer forever); a line the ``divert`` hook takes (a message for
another folder's process, ``acp.folders``) goes there instead of to the SDK.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from typing import Any, cast

__all__ = ["LINE_LIMIT", "Divert", "FileTransport", "protocol_streams", "screen_lines", "write_error"]

#: A message longer than this is refused (an editor's embedded file can be large).
LINE_LIMIT = 50 * 1024 * 1024

Divert = Callable[[dict[str, Any], bytes], bool]
"""(the parsed message, its line) -> True when the message was taken elsewhere (not the SDK's)."""


async def screen_lines(
    raw: asyncio.StreamReader,
    sdk: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    divert: Divert | None = None,
) -> None:
    """Pass each JSON object line on to the SDK (or ``divert``); answer any other line with the
    JSON-RPC error itself."""
    try:
        while True:
            try:
                line = await raw.readline()
            except (ValueError, asyncio.LimitOverrunError):
                write_error(writer, -32600, "Invalid Request", "the message is longer than zett reads")
                continue
            if not line:
                break
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                write_error(writer, -32700, "Parse error", "the line is not JSON")
                continue
            if not isinstance(message, dict):
                write_error(writer, -32600, "Invalid Request", "a message is one JSON object")
                continue
            line = line if line.endswith(b"\n") else line + b"\n"
            if divert is not None and divert(message, line):
                continue
            sdk.feed_data(line)
    finally:
        sdk.feed_eof()


def write_error(
    writer: asyncio.StreamWriter, code: int, message: str, details: str, request_id: Any = None
) -> None:
    error = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message, "data": {"details": details}},
    }
    writer.write((json.dumps(error) + "\n").encode())


async def protocol_streams(
    protocol_fd: int, first: bytes
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Standard input (after ``first``, the line ``fast_start`` read and did not answer) and the
    protocol's own copy of standard output (``protocol_fd``). Pipes are read and written by the
    event loop; anything the loop cannot wait on (a regular file, ``/dev/null``) from a thread."""
    from acp.stdio import _start_stdin_feeder, _WritePipeProtocol

    protocol_out = os.fdopen(protocol_fd, "wb", buffering=0)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    if first:
        reader.feed_data(first)
    if _pollable(sys.stdin.fileno()):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:
        _start_stdin_feeder(loop, reader)
    write_protocol = _WritePipeProtocol()
    transport: asyncio.BaseTransport
    try:
        transport, _ = await loop.connect_write_pipe(lambda: write_protocol, protocol_out)
    except ValueError:
        transport = FileTransport(protocol_out)
    writer = asyncio.StreamWriter(cast(asyncio.WriteTransport, transport), write_protocol, None, loop)
    return reader, writer


def _pollable(fd: int) -> bool:
    """Whether the event loop can wait on ``fd`` as a pipe. asyncio takes any character device,
    but epoll refuses some (``/dev/null``), and only when the loop gets to it: the error is then
    logged, and the stream never ends (``zett acp < /dev/null`` waited for ever)."""
    import selectors
    import stat

    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
        return False
    with selectors.DefaultSelector() as probe:
        try:
            probe.register(fd, selectors.EVENT_READ)
        except (OSError, ValueError):
            return False
    return True


class FileTransport(asyncio.WriteTransport):
    """Writes straight to a file (standard output redirected to one)."""

    def __init__(self, out: Any) -> None:
        super().__init__()
        self._out = out
        self._closing = False

    def write(self, data: Any) -> None:
        if not self._closing:
            self._out.write(data)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True

    def can_write_eof(self) -> bool:
        return False
