"""One writer per session, across processes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from zett_tui.sessions.lock import SessionBusy, SessionLock, claim_session, lock_holder
from zett_tui.sessions.naming import lock_path, session_path

HOLDER = """
import sys
from pathlib import Path
from zett_tui.sessions.lock import SessionLock
lock = SessionLock.for_session(Path(sys.argv[1]), sys.argv[2]).acquire()
print("held", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
"""


def start_holder(directory: Path, session_id: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(directory), session_id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "held"
    return process


def test_another_process_holding_the_lock_makes_the_session_busy(tmp_path: Path) -> None:
    holder = start_holder(tmp_path, "s1")
    try:
        with pytest.raises(SessionBusy) as caught:
            SessionLock.for_session(tmp_path, "s1").acquire()
        assert caught.value.pid == holder.pid
        assert f"zett process {holder.pid}" in str(caught.value)
        found = lock_holder(lock_path(session_path(tmp_path, "s1")))
        assert found is not None and found.pid == holder.pid
        with SessionLock.for_session(tmp_path, "other-session") as other:
            assert other.held
    finally:
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "released"
        holder.wait(timeout=10)
        holder.stdin.close()
        holder.stdout.close()
    with SessionLock.for_session(tmp_path, "s1") as lock:
        assert lock.held


def test_a_killed_holder_releases_the_lock(tmp_path: Path) -> None:
    with start_holder(tmp_path, "s1") as holder:  # leaving it closes the pipes
        holder.kill()
        holder.wait(timeout=10)
    lock = SessionLock.for_session(tmp_path, "s1").acquire()
    try:
        content = json.loads(lock.path.read_text())
        assert content["pid"] == os.getpid()
    finally:
        lock.release()


def test_two_locks_in_one_process_also_exclude_each_other(tmp_path: Path) -> None:
    first = SessionLock.for_session(tmp_path, "s1").acquire()
    with pytest.raises(SessionBusy, match="this zett process"):
        SessionLock.for_session(tmp_path, "s1").acquire()
    first.release()
    first.release()
    assert lock_holder(first.path) is None


def test_release_removes_the_lock_file_and_it_is_private_while_held(tmp_path: Path) -> None:
    with SessionLock.for_session(tmp_path, "s1") as lock:
        assert stat.S_IMODE(lock.path.stat().st_mode) == 0o600
        assert lock.acquire() is lock
    assert not lock.path.exists()
    assert lock_holder(lock.path) is None


def test_a_leftover_lock_file_from_a_crash_does_not_block(tmp_path: Path) -> None:
    path = lock_path(session_path(tmp_path, "s1"))
    path.write_text(json.dumps({"pid": 999999, "hostname": "gone"}))
    assert lock_holder(path) is None
    with SessionLock(path) as lock:
        assert lock.held


def test_claim_makes_an_existing_file_private_and_ends_a_torn_line(tmp_path: Path) -> None:
    path = session_path(tmp_path, "s1")
    path.write_bytes(b'{"version":1}\n{"version":1,"to')
    os.chmod(path, 0o644)
    lock = claim_session(tmp_path, "s1")
    try:
        assert path.read_bytes().endswith(b'"to\n')
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        with pytest.raises(SessionBusy):
            claim_session(tmp_path, "s1")
    finally:
        lock.release()
    claim_session(tmp_path, "new").release()
    assert not session_path(tmp_path, "new").exists()
