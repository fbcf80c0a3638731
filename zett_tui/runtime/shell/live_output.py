"""The last lines of a running command's output, a few times a second, for its tool row.

A command writes its streams to files (``ShellSandbox.run``); while it runs, ``watch_output``
looks at the end of those files every ``POLL_SECONDS`` and reports the last ``LIVE_LINES`` lines
when something was written. Each look reads at most ``TAIL_BYTES``, so a command printing ten
thousand lines a second costs the same as one printing ten: the work is bounded by the clock, not
by the output. No Textual here.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

log = logging.getLogger(__name__)

LIVE_LINES = 4
POLL_SECONDS = 0.25
TAIL_BYTES = 4096
MAX_LINE_CHARS = 300

Report = Callable[[list[str]], Awaitable[None]]


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def tail_lines(path: Path, count: int = LIVE_LINES, tail_bytes: int = TAIL_BYTES) -> list[str]:
    """The last ``count`` non-empty lines of ``path`` (from its last ``tail_bytes`` only), each
    cut to ``MAX_LINE_CHARS``; a progress bar redrawn with carriage returns shows as drawn last."""
    try:
        with open(path, "rb") as stream:
            size = stream.seek(0, os.SEEK_END)
            start = max(0, size - tail_bytes)
            stream.seek(start)
            data = stream.read(tail_bytes)
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").split("\n")
    if start > 0:
        lines = lines[1:]  # the first line is cut: it began before what was read
    shown = [line.rsplit("\r", 1)[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r") for line in lines]
    kept = [line[:MAX_LINE_CHARS] for line in shown if line.strip()]
    return kept[-count:]


async def watch_output(stdout: Path, stderr: Path, report: Report, *, interval: float = POLL_SECONDS) -> None:
    """Until cancelled: report the last lines of the stream written to most recently."""
    seen = (0, 0)
    while True:
        await asyncio.sleep(interval)
        now = (_size(stdout), _size(stderr))
        if now == seen:
            continue
        only_stderr = now[0] == seen[0]
        seen = now
        try:
            await report(tail_lines(stderr if only_stderr else stdout))
        except Exception:  # a live view only: the command goes on without it
            log.debug("live output not reported", exc_info=True)
            return


async def wait_watching(
    process: asyncio.subprocess.Process, stdout: Path, stderr: Path, report: Report | None
) -> None:
    """``process.wait()``, reporting its output live meanwhile when ``report`` is given."""
    if report is None:
        await process.wait()
        return
    watcher = asyncio.ensure_future(watch_output(stdout, stderr, report))
    try:
        await process.wait()
    finally:
        watcher.cancel()  # it fails on nothing (``report``'s errors end it quietly)
