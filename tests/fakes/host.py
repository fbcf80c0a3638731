"""One place to build a runtime host around a scripted model, and to make sure it is closed.

Tests that drive ``AgentHost`` directly need the same three things: a host started on a
``ScriptedModel``, a sink that records the UI events of a turn, and the certainty that the host's
history store (an aiosqlite connection) is closed before the test's event loop goes away. A host
left open there surfaces later as "Event loop is closed" from aiosqlite's thread, in some other
test. The ``hosts`` fixture (registered in tests/conftest.py) closes every host it built.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.scripted_model import ScriptedModel
from zett_tui.runtime.events import DecisionRequested, TextChunk, UIEvent
from zett_tui.runtime.host import AgentHost, HostOptions


class Collector:
    """The event sink of a turn: keeps every event, and queues the decisions asked of the user."""

    def __init__(self) -> None:
        self.events: list[UIEvent] = []
        self.decisions: asyncio.Queue[DecisionRequested] = asyncio.Queue()

    def __call__(self, event: UIEvent) -> None:
        self.events.append(event)
        if isinstance(event, DecisionRequested):
            self.decisions.put_nowait(event)

    def of(self, kind: type) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]

    @property
    def text(self) -> str:
        return "".join(event.text for event in self.of(TextChunk))


def host_options(tmp_path: Path, model: ScriptedModel, **kwargs: Any) -> HostOptions:
    """Options of a host on ``model`` whose sessions, history and tool output live in ``tmp_path``."""
    return HostOptions(
        model_factory=lambda: model,
        model_label="scripted",
        sessions_dir=tmp_path / "sessions",
        history_db=tmp_path / "history.sqlite3",
        tool_output_dir=tmp_path / "tool-output",
        **kwargs,
    )


async def make_host(model: ScriptedModel, **kwargs: Any) -> AgentHost:
    """A started host on ``model``; the caller closes it (or uses the ``hosts`` fixture)."""
    host = AgentHost(HostOptions(model_factory=lambda: model, model_label="scripted", **kwargs))
    await host.start()
    return host


class HostFactory:
    """Builds started hosts like ``make_host`` and remembers them, to close them all at teardown."""

    def __init__(self) -> None:
        self.built: list[AgentHost] = []

    async def __call__(self, model: ScriptedModel, **kwargs: Any) -> AgentHost:
        host = AgentHost(HostOptions(model_factory=lambda: model, model_label="scripted", **kwargs))
        self.built.append(host)
        await host.start()
        return host

    async def aclose(self) -> None:
        """Close every host built here; ``AgentHost.aclose`` is safe to call more than once."""
        for host in reversed(self.built):
            await host.aclose()


async def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the event loop run until ``condition()`` holds; fail clearly after ``timeout``.

    The host-level twin of ``tests.ui_helpers.wait_for``: tests wait on state, never on a guess.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


def live_processes_mentioning(token: str) -> list[int]:
    """Pids of running (not zombie) processes whose command line contains ``token`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if token.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def kill_when_it_prints(script: str, marker: str, *, cwd: Path, args: tuple[str, ...] = ()) -> None:
    """Run ``script`` (Python, with this repository importable) and ``kill -9`` it as soon as it
    prints the line ``marker``: a zett killed at a moment the script chose."""
    root = Path(__file__).resolve().parent.parent.parent
    process = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(root)},
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 30
    while process.stdout.readline().strip() != marker:
        assert time.monotonic() < deadline and process.poll() is None, f"the script never printed {marker}"
    # The whole group, as a closed terminal would: a child the script had just forked (a git
    # start, before its exec) still shares the session's lock for a moment, and a check right
    # after the kill then found the session "in use" (seen under load).
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    process.stdout.close()
    while time.monotonic() < deadline + 5:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.01)
