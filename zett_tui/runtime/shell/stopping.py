"""Stopping a shell command and everything it started, so that none of its steps runs afterwards.

Killing processes one by one in any order lets a shell whose running child died first go on to the
command's next step (``sleep 30; touch done`` made ``done`` after a cancel). So the kill leans on
the two places where the kernel itself kills many processes at once and lets none of them start
another meanwhile:

1. **A pid namespace.** A sandboxed command runs in bubblewrap's own pid namespace
   (``--unshare-pid``). When that namespace's first process (its init) dies, the kernel kills
   every process in it together, and no new process can start in it. Only the init is signalled:
   killing a process inside it ourselves, before the kernel does, is what let a shell run on.
   That covers what left the command's group inside the sandbox (``--new-session``, ``setsid``).
2. **The command's process group** (each command starts a session of its own): one ``killpg``
   signals every member while holding the lock that ``fork`` needs, and a fork that was under way
   fails. That covers a command outside the sandbox and bubblewrap's own monitor process.

Only a process that left the group outside any sandbox (``setsid`` in a command the user let run
outside it) is in neither. It is found through its parent, and only while that parent lives, so
then the group and the tree are frozen first (SIGSTOP: a stopped process runs no next step and
starts no other), listed again until no new process is found, and only then killed. The listing
is bounded, so a command that forks faster than it can be listed still ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from zett_agent.sandbox.resources import descendant_pids

__all__ = ["stop_command_tree", "stop_group"]

#: Times the tree left after the two kills is listed again for new processes before killing it.
MAX_LISTINGS = 20


def stop_group(pid: int) -> None:
    """Kill a finished command's process group: a background child must not outlive it."""
    _signal_group(pid, signal.SIGKILL)


def stop_command_tree(pid: int) -> None:
    """Kill the command started as ``pid`` (a session leader) and every process below it."""
    members = descendant_pids(pid)
    namespaced = {member: levels for member in members if len(levels := _namespace_pids(member)) > 1}
    for member, levels in namespaced.items():
        if levels[-1] == 1:
            _signal(member, signal.SIGKILL)
    left_the_group = [
        member for member in members - namespaced.keys() if _group_of(member) not in (pid, None)
    ]
    if not left_the_group:
        _signal_group(pid, signal.SIGKILL)
        return
    _signal_group(pid, signal.SIGSTOP)
    frozen: set[int] = set()
    for _ in range(MAX_LISTINGS):
        found = {member for member in {pid} | descendant_pids(pid) if len(_namespace_pids(member)) <= 1}
        found -= frozen
        if not found:
            break
        for member in found:
            _signal(member, signal.SIGSTOP)
        frozen |= found
    _signal_group(pid, signal.SIGKILL)
    for member in frozen:
        _signal(member, signal.SIGKILL)


def _namespace_pids(pid: int) -> list[int]:
    """``pid``'s number in each pid namespace it is in, outermost first; empty when it is gone.

    From ``/proc/<pid>/status`` (``NSpid: 4299 1``): more than one number means the process is in a
    namespace below this one, and a last number of 1 that it is that namespace's init."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text(errors="replace").splitlines():
            if line.startswith("NSpid:"):
                return [int(number) for number in line.split()[1:]]
    return []


def _group_of(pid: int) -> int | None:
    """``pid``'s process group, or None when it is gone."""
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _signal_group(pid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


def _signal(pid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)
