"""What a hung test was waiting for, written shortly before pytest-timeout fails it.

pytest-timeout's own dump holds the threads' stacks; an asyncio test's coroutine is on none of them
(the main thread sits in the event loop's ``select``). This report adds every unfinished task's
stack and the processes below this pytest process and any stopped one (state ``T``) anywhere,
so a test hung on a child process, a stopped one or a task shows which. It goes to stderr, which
pytest keeps as the failed test's captured output.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Seconds before the timeout at which the report is written.
REPORT_AHEAD_SECONDS = 20.0
#: What a process or task that went away while it was being read raises.
_GONE = (OSError, ValueError, IndexError, RuntimeError)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    timeout = float(item.config.getini("timeout") or 0)
    if timeout <= REPORT_AHEAD_SECONDS:
        yield
        return
    timer = threading.Timer(timeout - REPORT_AHEAD_SECONDS, _report, args=(item.nodeid,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _report(nodeid: str) -> None:
    out = io.StringIO()
    out.write(f"\n==== hang report: {nodeid} is still running ====\n")
    out.write(_tasks())
    out.write(_processes())
    sys.stderr.write(out.getvalue())
    sys.stderr.flush()


def _tasks() -> str:
    """Every unfinished asyncio task's stack (read from this thread: a diagnosis, not exact)."""
    lines = ["-- unfinished asyncio tasks --\n"]
    for task in [each for each in gc.get_objects() if isinstance(each, asyncio.Task)]:
        if task.done():
            continue
        lines.append(f"{task.get_name()}: {task.get_coro()!r}\n")
        with contextlib.suppress(*_GONE):
            stream = io.StringIO()
            task.print_stack(file=stream)
            lines.append(stream.getvalue())
    return "".join(lines)


def _processes() -> str:
    """The processes below this one, and every stopped process on the machine (Linux /proc)."""
    rows: dict[int, tuple[int, int, str, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(*_GONE):
            stat = (entry / "stat").read_text(errors="replace")
            fields = stat.rpartition(")")[2].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            rows[int(entry.name)] = (int(fields[1]), int(fields[2]), fields[0], command[:200])
    below = {os.getpid()}
    grew = True
    while grew:
        found = {pid for pid, (parent, *_rest) in rows.items() if parent in below} - below
        below |= found
        grew = bool(found)
    shown = sorted(pid for pid, row in rows.items() if pid in below or row[2] in ("T", "t"))
    lines = ["-- processes: pid ppid pgid state command --\n"]
    lines += [f"{pid} {rows[pid][0]} {rows[pid][1]} {rows[pid][2]} {rows[pid][3]}\n" for pid in shown]
    return "".join(lines)
