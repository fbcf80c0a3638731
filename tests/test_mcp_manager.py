"""The MCP connection manager against a real stdio server (tests/fakes/mcp_server.py)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zett_tui.config.mcp_servers import McpServerConfig
from zett_tui.runtime.mcp.manager import McpManager, McpUnavailable
from zett_tui.runtime.mcp.server_connection import ServerState

ROOT = Path(__file__).resolve().parent.parent


def fake(name: str = "fake", **overrides: object) -> McpServerConfig:
    env = {"PYTHONPATH": str(ROOT), **overrides.pop("env", {})}  # type: ignore[dict-item]
    return McpServerConfig(
        name,
        command=sys.executable,
        args=("-m", "tests.fakes.mcp_server"),
        env=env,
        **overrides,  # type: ignore[arg-type]
    )


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


@pytest.fixture
def managers() -> Iterator[list[McpManager]]:
    started: list[McpManager] = []
    yield started
    for manager in started:
        manager.stop()


def running(managers: list[McpManager], *servers: McpServerConfig) -> McpManager:
    manager = McpManager(servers, environ={})
    managers.append(manager)
    manager.start()
    return manager


def state(manager: McpManager, name: str = "fake") -> ServerState:
    return next(status.state for status in manager.statuses() if status.name == name)


def test_start_returns_at_once_and_the_tools_come_when_ready(managers: list[McpManager]) -> None:
    before = time.perf_counter()
    manager = running(managers, fake(env={"FAKE_MCP_SLOW_START": "1.5"}))
    assert time.perf_counter() - before < 0.5
    assert state(manager) is ServerState.STARTING and manager.ready_tools() == []
    wait_for(lambda: state(manager) is ServerState.READY)
    names = {tool.name for _, tool in manager.ready_tools()}
    assert {"lookup", "write_note", "picture", "crash", "sleep", "pid"} <= names


def test_one_process_serves_every_call_from_any_loop(managers: list[McpManager], tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    manager = running(managers, fake(env={"FAKE_MCP_STARTS": str(starts)}))
    wait_for(lambda: state(manager) is ServerState.READY)
    first = asyncio.run(manager.call_tool("fake", "pid", {}))
    second = asyncio.run(manager.call_tool("fake", "pid", {}))
    assert first.content[0].text == second.content[0].text  # type: ignore[union-attr]
    assert len(starts.read_text().splitlines()) == 1


def test_enabled_and_disabled_tools_filter_what_is_offered(managers: list[McpManager]) -> None:
    manager = running(managers, fake(enabled_tools=("lookup", "pid"), disabled_tools=("pid",)))
    wait_for(lambda: state(manager) is ServerState.READY)
    assert [tool.name for _, tool in manager.ready_tools()] == ["lookup"]


def test_stderr_goes_to_the_log_not_the_terminal(
    managers: list[McpManager], caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO, logger="zett_tui.runtime.mcp")
    manager = running(managers, fake())
    wait_for(lambda: state(manager) is ServerState.READY)
    wait_for(lambda: "MCP server fake: fake server starting" in caplog.text)
    assert "fake server starting" not in capfd.readouterr().err


def test_a_crash_mid_call_is_one_clear_error_and_the_server_comes_back(
    managers: list[McpManager], tmp_path: Path
) -> None:
    starts = tmp_path / "starts"
    manager = running(managers, fake(env={"FAKE_MCP_STARTS": str(starts)}))
    wait_for(lambda: state(manager) is ServerState.READY)
    with pytest.raises(McpUnavailable, match="'fake'"):
        asyncio.run(manager.call_tool("fake", "crash", {}))
    wait_for(lambda: len(starts.read_text().splitlines()) == 2)
    wait_for(lambda: state(manager) is ServerState.READY)
    assert asyncio.run(manager.call_tool("fake", "lookup", {"word": "x"})).content[0].text == "x: a word"  # type: ignore[union-attr]


def test_tool_timeout_is_enforced(managers: list[McpManager]) -> None:
    manager = running(managers, fake(tool_timeout=0.5))
    wait_for(lambda: state(manager) is ServerState.READY)
    with pytest.raises(TimeoutError, match=r"within 0\.5 s"):
        asyncio.run(manager.call_tool("fake", "sleep", {"seconds": 5}))


def test_a_missing_program_fails_with_the_reason_and_others_still_start(managers: list[McpManager]) -> None:
    manager = running(managers, McpServerConfig("nope", command="/nonexistent/server"), fake())
    wait_for(lambda: state(manager) is ServerState.READY)
    failed: list[str] = []

    def failed_now() -> bool:
        # one snapshot: between failures the server is STARTING again, still saying why it failed
        status = next(status for status in manager.statuses() if status.name == "nope")
        if status.state is ServerState.FAILED:
            failed.append(status.reason)
        return bool(failed)

    wait_for(failed_now)
    assert "No such file or directory" in failed[0] and "retrying" in failed[0]
    with pytest.raises(McpUnavailable, match="'nope' is"):
        asyncio.run(manager.call_tool("nope", "x", {}))


def test_a_server_started_again_after_a_failure_still_says_why_it_failed(managers: list[McpManager]) -> None:
    """While a failed server is being started again, /mcp said "starting…" and the failure was
    gone from the listing until the next one (a listing taken then showed no failure at all)."""
    from zett_tui.runtime.mcp.server_connection import ServerStatus
    from zett_tui.ui.chat.commands.mcp import describe_state

    seen: list[str] = []

    def changed() -> None:  # on the manager's loop, as each state is set
        server = manager._servers.get("nope")
        if server is not None and server.state is ServerState.STARTING and server.reason:
            seen.append(server.reason)

    manager = McpManager(
        [McpServerConfig("nope", command="/nonexistent/server")], environ={}, on_change=changed
    )
    managers.append(manager)
    manager.start()
    wait_for(lambda: bool(seen))
    assert seen[0].startswith("cannot start it") and "retrying" not in seen[0]
    listed = describe_state(ServerStatus("nope", ServerState.STARTING, (), seen[0], "/nonexistent/server"))
    assert listed == f"failed: {seen[0]}; starting again…"


def test_a_missing_variable_fails_without_starting_anything(managers: list[McpManager]) -> None:
    manager = running(managers, fake(env={"TOKEN": "${NOT_SET_ANYWHERE}"}))
    wait_for(lambda: state(manager) is ServerState.FAILED)
    assert "${NOT_SET_ANYWHERE} is not set" in manager.statuses()[0].reason


def test_disable_and_restart(managers: list[McpManager], tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    manager = running(managers, fake(env={"FAKE_MCP_STARTS": str(starts)}))
    wait_for(lambda: state(manager) is ServerState.READY)
    manager.disable("fake")
    assert state(manager) is ServerState.DISABLED and manager.ready_tools() == []
    manager.restart("fake")
    wait_for(lambda: state(manager) is ServerState.READY)
    assert len(starts.read_text().splitlines()) == 2


def test_stop_ends_the_server_process(managers: list[McpManager]) -> None:
    manager = running(managers, fake())
    wait_for(lambda: state(manager) is ServerState.READY)
    pid = int(asyncio.run(manager.call_tool("fake", "pid", {})).content[0].text)  # type: ignore[union-attr]
    manager.stop()
    wait_for(lambda: not _alive(pid), timeout=10)


def test_stop_with_a_call_in_flight_is_prompt_and_ends_the_server(
    managers: list[McpManager], tmp_path: Path
) -> None:
    """Quitting while a tool runs: the SDK's 2 s wait for a server that cannot notice its stdin
    closing (it is busy in the call) is not waited out; the server is gone all the same."""
    import threading

    sleeping = tmp_path / "sleeping"
    manager = running(managers, fake(env={"FAKE_MCP_SLEEPING": str(sleeping)}))
    wait_for(lambda: state(manager) is ServerState.READY)
    pid = int(asyncio.run(manager.call_tool("fake", "pid", {})).content[0].text)  # type: ignore[union-attr]
    ended: list[BaseException] = []

    def call() -> None:
        try:
            asyncio.run(manager.call_tool("fake", "sleep", {"seconds": 30}))
        except BaseException as error:
            ended.append(error)

    caller = threading.Thread(target=call)
    caller.start()
    wait_for(sleeping.exists)
    before = time.perf_counter()
    manager.stop()
    took = time.perf_counter() - before
    caller.join(timeout=10)
    assert took < 2.0, took  # the SDK's own grace alone was 2.0 s, however fast the machine
    assert isinstance(ended[0], McpUnavailable) and not caller.is_alive()
    wait_for(lambda: not _alive(pid), timeout=5)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie that nobody reaped yet counts as gone
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


def test_a_killed_zett_leaves_no_server_behind(tmp_path: Path) -> None:
    """kill -9 of the process holding the manager: the server sees its stdin close and exits."""
    import signal
    import subprocess

    script = tmp_path / "holder.py"
    script.write_text(
        "import asyncio, sys, time\n"
        "from tests.test_mcp_manager import fake, wait_for, state\n"
        "from zett_tui.runtime.mcp.manager import McpManager\n"
        "from zett_tui.runtime.mcp.server_connection import ServerState\n"
        "manager = McpManager([fake()], environ={})\n"
        "manager.start()\n"
        "wait_for(lambda: state(manager) is ServerState.READY)\n"
        "print(asyncio.run(manager.call_tool('fake', 'pid', {})).content[0].text, flush=True)\n"
        "time.sleep(60)\n",
        encoding="utf-8",
    )
    holder = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout is not None
        pid = int(holder.stdout.readline())
        assert _alive(pid)
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        wait_for(lambda: not _alive(pid), timeout=15)
    finally:
        holder.kill()
        holder.wait()


def test_an_error_quoting_an_expanded_secret_shows_the_variable_instead(managers: list[McpManager]) -> None:
    server = McpServerConfig("far", url="http://127.0.0.1:9/mcp?key=${FAR_KEY}", startup_timeout=5)
    manager = McpManager([server], environ={"FAR_KEY": "hunter2-secret"})
    managers.append(manager)
    manager.start()
    wait_for(lambda: state(manager, "far") is ServerState.FAILED)
    reason = manager.statuses()[0].reason
    assert "hunter2-secret" not in reason
    assert server.mask(
        "GET http://127.0.0.1:9/mcp?key=hunter2-secret failed", {"FAR_KEY": "hunter2-secret"}
    ) == ("GET http://127.0.0.1:9/mcp?key=${FAR_KEY} failed")


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_stopped_managers_leave_no_descriptor_or_thread_behind() -> None:
    """Each manager's loop (its selector and self-pipe) and the worker threads its servers' start
    checks ran on are released by ``stop`` itself, not whenever the collector gets to them."""
    import gc
    import threading

    def cycle() -> None:
        manager = McpManager([fake()], environ={})
        manager.start()
        try:
            wait_for(lambda: state(manager) is ServerState.READY)
        finally:
            manager.stop()

    cycle()  # the first one imports the SDK and fills lazily made caches
    gc.collect()
    fds_before, threads_before = _open_fds(), set(threading.enumerate())
    gc.disable()  # what stop leaves open must not be closed by a collection meanwhile
    try:
        for _ in range(3):
            cycle()
        deadline = time.monotonic() + 5  # a joined thread leaves the list a moment after it ends
        while set(threading.enumerate()) - threads_before and time.monotonic() < deadline:
            time.sleep(0.05)
        threads_left = [thread.name for thread in set(threading.enumerate()) - threads_before]
        fds_left = {fd: _target(fd) for fd in _open_fds() - fds_before}
    finally:
        gc.enable()
    assert threads_left == []
    assert fds_left == {}


def _target(fd: str) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "?"
