"""What the real-sandbox tests share (test_sandbox_shell, test_explore_shell, test_later_*).

The project, the fake home and zett's folders live under /var/tmp, not /tmp: the sandbox gives every
command a private /tmp, so anything under the host's /tmp would be invisible for that reason alone
and a test of the credential hiding or of the read-only file system would prove nothing.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector
from tests.fakes.scripted_model import ScriptedModel
from zett_tui.config.schema import SandboxSettings
from zett_tui.core import paths
from zett_tui.core.redact import redactor_from_environment
from zett_tui.entry.headless import run_headless
from zett_tui.entry.launch import LaunchSettings
from zett_tui.runtime.events import DecisionRequested
from zett_tui.runtime.shell.sandbox import ShellSandbox, Where


@dataclass
class Place:
    base: Path
    home: Path
    project: Path
    victim: Path  # a file in a folder beside the project
    home_victim: Path  # a file in the fake home

    @property
    def beside(self) -> Path:
        """The folder beside the project (outside it, where a sandboxed command cannot write)."""
        return self.base / "beside"


@pytest.fixture
def place(monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    base = Path(tempfile.mkdtemp(prefix="zett-sandbox-test-", dir="/var/tmp"))
    home, project = base / "home", base / "project"
    for folder in (home, project, base / "beside"):
        folder.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.chdir(project)
    victim = base / "beside" / "victim.txt"
    victim.write_text("original\n")
    home_victim = home / "victim.txt"
    home_victim.write_text("original\n")
    try:
        yield Place(base, home, project, victim, home_victim)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def shell_for(place: Place, **settings: object) -> ShellSandbox:
    shell = ShellSandbox(
        place.project,
        SandboxSettings(**settings),  # type: ignore[arg-type]
        output_dir=paths.tool_output_dir(),
        redact=redactor_from_environment(os.environ),
    )
    shell.start()
    assert shell.available, shell.unavailable_reason
    return shell


async def run_in(shell: ShellSandbox, command: str, timeout: int = 30, where: Where = Where.SANDBOX):
    return await shell.run(command, timeout, where=where)


def listener() -> tuple[socket.socket, list[bytes]]:
    """A TCP server on 127.0.0.1 that records what each connection sends (``<connected>`` if nothing)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    received: list[bytes] = []

    def serve() -> None:
        while server.fileno() != -1:
            try:
                connection, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            with connection:
                connection.settimeout(2)
                try:
                    received.append(connection.recv(100) or b"<connected>")
                except OSError:
                    received.append(b"<connected>")

    threading.Thread(target=serve, daemon=True).start()
    return server, received


def connect_command(port: int) -> str:
    """A command that connects to ``port`` on 127.0.0.1 and sends ``hello``."""
    return (
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', "
        f"{port}), timeout=3); s.sendall(b'hello')\""
    )


async def answer_next(sink: Collector, host: Any, kind: str, payload: dict) -> DecisionRequested:
    decision = await asyncio.wait_for(sink.decisions.get(), 15)
    assert decision.kind == kind, decision
    host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], **payload})
    return decision


async def headless(model: ScriptedModel, **options: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    launch = LaunchSettings(model_label="scripted", model_factory=lambda: model, cwd=Path.cwd())
    code = await run_headless(launch, "go", out=out, err=err, handle_signals=False, **options)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()
