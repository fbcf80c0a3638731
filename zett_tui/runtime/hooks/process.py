"""Running one hook command: ``/bin/sh -c COMMAND`` with the event as JSON on stdin.

A hook is the user's own configuration, so it runs as their shell would (outside the agent's
sandbox, with their environment), but bounded: it gets its own process group, which is killed
(SIGKILL, the whole group: a ``sleep`` it started goes too) when the timeout passes or the turn is
cancelled; at most ``MAX_OUTPUT_BYTES`` of stdout and of stderr are kept (the rest is read and
dropped, so a chatty hook never blocks on a full pipe); stdin is written once and closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

MAX_OUTPUT_BYTES = 64 * 1024
_CHUNK = 16 * 1024


@dataclass(frozen=True)
class CommandResult:
    """How one run ended. ``exit_code`` is None when it did not end by itself (timeout)."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    truncated: bool = False


async def run_command(
    command: str, stdin: bytes, *, cwd: Path, env: Mapping[str, str], timeout: float
) -> CommandResult:
    """Run ``command`` and wait for it (at most ``timeout`` seconds). Raises ``OSError`` when it
    cannot start (no ``/bin/sh``, the folder is gone); cancelling the caller kills the group."""
    process = await asyncio.create_subprocess_shell(
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,  # its own process group, killed as a whole
    )
    assert process.stdout is not None and process.stderr is not None
    out, err = _Bounded(), _Bounded()
    readers = [
        asyncio.ensure_future(out.drain(process.stdout)),
        asyncio.ensure_future(err.drain(process.stderr)),
    ]
    try:
        async with asyncio.timeout(timeout):
            await _feed(process, stdin)
            await process.wait()
            await asyncio.gather(*readers)  # a child it left running may hold the pipes: bounded too
    except TimeoutError:
        _kill_group(process)
        await _reap(process, readers)
        return CommandResult(None, out.text(), err.text(), timed_out=True, truncated=out.cut or err.cut)
    except BaseException:
        _kill_group(process)
        await asyncio.shield(_reap(process, readers))
        raise
    _kill_group(process)  # whatever it left behind in its group does not outlive it
    return CommandResult(process.returncode, out.text(), err.text(), truncated=out.cut or err.cut)


async def _feed(process: asyncio.subprocess.Process, data: bytes) -> None:
    assert process.stdin is not None
    try:
        process.stdin.write(data)
        await process.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # a hook that does not read its input is fine
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            process.stdin.close()


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(process.pid, signal.SIGKILL)


async def _reap(process: asyncio.subprocess.Process, readers: Sequence[asyncio.Future[None]]) -> None:
    for reader in readers:
        reader.cancel()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(process.wait(), 5)
    for reader in readers:
        with contextlib.suppress(BaseException):
            await reader


class _Bounded:
    """Keeps the first ``MAX_OUTPUT_BYTES`` of a stream and reads past the rest."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._kept = 0
        self.cut = False

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(_CHUNK):
            room = MAX_OUTPUT_BYTES - self._kept
            if room > 0:
                self._parts.append(chunk[:room])
                self._kept += min(room, len(chunk))
            if len(chunk) > room:
                self.cut = True

    def text(self) -> str:
        return b"".join(self._parts).decode("utf-8", errors="replace")
