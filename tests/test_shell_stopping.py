"""Stopping a command's whole tree (runtime/shell/stopping.py), on real bubblewrap sandboxes.

The behaviour through ShellSandbox (timeouts, cancels, a next step that must not run) is tested in
test_sandbox_shell; these tests look at the two structures the stop leans on: the sandbox's pid
namespace, killed through its init, and the bounded listing of what left the group.
"""

from __future__ import annotations

import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from zett_agent.sandbox.binaries import bwrap_path
from zett_agent.sandbox.resources import descendant_pids

from tests.fakes.host import live_processes_mentioning
from zett_tui.runtime.shell import stopping


def _sandboxed(command: str, cwd: Path) -> subprocess.Popen[bytes]:
    """``command`` in a bubblewrap pid namespace of its own, started the way ShellSandbox does."""
    argv = [
        str(bwrap_path()),
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--dev-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--chdir",
        str(cwd),
        "bash",
        "-c",
        command,
    ]
    return subprocess.Popen(argv, start_new_session=True)


def _alive(marker: str, *, exact: bool = False) -> list[int]:
    """Live processes whose command line holds ``marker`` (with ``exact``: is ``sleep <marker>``)."""
    return live_processes_mentioning(f"sleep\0{marker}\0" if exact else marker)


def _wait(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_sandboxed_command_is_ended_through_its_namespace_init_with_no_process_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everything a sandboxed command starts is in bubblewrap's pid namespace, so killing that
    namespace's init and bubblewrap's group ends it all at once: nothing needs freezing."""
    sent: list[tuple[int, signal.Signals]] = []
    real_signal = stopping._signal

    def recorded(pid: int, signum: signal.Signals) -> None:
        sent.append((pid, signum))
        real_signal(pid, signum)

    monkeypatch.setattr(stopping, "_signal", recorded)
    marker = f"{uuid.uuid4().int % 10**6}.{int(time.time())}"
    process = _sandboxed(f"sleep {marker} & setsid sleep {marker} & wait", tmp_path)
    try:
        assert _wait(lambda: len(_alive(marker, exact=True)) == 2)
        members = descendant_pids(process.pid)
        assert set(_alive(marker, exact=True)) <= members
        inits = [member for member in members if stopping._namespace_pids(member)[1:] == [1]]
        assert len(inits) == 1  # bubblewrap's child: pid 1 of the sandbox, the sleeps' ancestor
        parent = Path(f"/proc/{inits[0]}/stat").read_text().rpartition(")")[2].split()[1]
        assert int(parent) == process.pid
        stopping.stop_command_tree(process.pid)
        assert sent == [(inits[0], signal.SIGKILL)]  # the rest went with the group and the namespace
    finally:
        stopping.stop_command_tree(process.pid)
        process.wait(timeout=10)
    assert _wait(lambda: not _alive(marker))


@pytest.mark.parametrize("attempt", range(5))
def test_a_chain_that_left_the_group_inside_the_sandbox_runs_no_next_step(
    tmp_path: Path, attempt: int
) -> None:
    """``setsid`` inside the sandbox leaves both the command's group and bubblewrap's session: only
    the namespace holds it. Killing the namespace's init ends the shell and its child together."""
    marker = f"{uuid.uuid4().int % 10**6}.{attempt}"
    process = _sandboxed(f"setsid bash -c 'sleep {marker}; touch after' & wait", tmp_path)
    assert _wait(lambda: bool(_alive(marker, exact=True)))
    stopping.stop_command_tree(process.pid)
    process.wait(timeout=10)
    assert _wait(lambda: not _alive(marker))
    time.sleep(0.2)
    assert not (tmp_path / "after").exists()


def test_the_listing_is_bounded_when_new_processes_keep_appearing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside a sandbox, a tree whose processes left the group and fork faster than it is listed
    must not keep the stop (and zett's loop) forever: after MAX_LISTINGS, what was found is
    stopped and killed."""
    counter = iter(range(10**6, 2 * 10**6))
    sent: list[tuple[int, signal.Signals]] = []
    monkeypatch.setattr(stopping, "descendant_pids", lambda pid: frozenset({next(counter)}))
    monkeypatch.setattr(stopping, "_namespace_pids", lambda pid: [pid])  # none in a sandbox
    monkeypatch.setattr(stopping, "_group_of", lambda pid: pid)  # each left the command's group
    monkeypatch.setattr(stopping, "_signal", lambda pid, signum: sent.append((pid, signum)))
    monkeypatch.setattr(stopping, "_signal_group", lambda pid, signum: sent.append((-pid, signum)))
    stopping.stop_command_tree(42)
    stopped = {pid for pid, signum in sent if signum == signal.SIGSTOP and pid > 0}
    killed = {pid for pid, signum in sent if signum == signal.SIGKILL and pid > 0}
    assert len(stopped) == stopping.MAX_LISTINGS + 1  # the command itself and one new per listing
    assert killed == stopped
    assert sent[-len(killed) - 1] == (-42, signal.SIGKILL)
