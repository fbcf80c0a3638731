"""One writer per session, across processes."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.mounts import dead_mount, fill, read_only_bind, remount, small_tmpfs
from zett_tui.runtime.storage_retry import LockSlot
from zett_tui.sessions.lock import LockUnavailable, SessionBusy, SessionLock, claim_session, lock_holder
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


# -- a folder that cannot hold a lock (issue 12) -----------------------------------------------------


def test_a_full_folder_raises_lock_unavailable_and_leaves_no_lock_file(tmp_path: Path) -> None:
    """Before: a 0-byte ``.lock`` stayed behind and a bare OSError ended the start."""
    with small_tmpfs(tmp_path / "mnt") as mount:
        sessions = mount / "sessions"
        sessions.mkdir()
        fill(mount)
        with pytest.raises(LockUnavailable) as caught:
            claim_session(sessions, "s1")
        assert caught.value.errno == errno.ENOSPC
        assert list(sessions.iterdir()) == []


def test_a_read_only_or_dead_folder_raises_lock_unavailable(tmp_path: Path) -> None:
    with read_only_bind(tmp_path / "ro") as folder, pytest.raises(LockUnavailable) as caught:
        SessionLock.for_session(folder / "sessions", "s1").acquire()
    assert caught.value.errno == errno.EROFS
    with dead_mount(tmp_path / "dead") as folder, pytest.raises(LockUnavailable) as caught:
        SessionLock.for_session(folder / "sessions", "s1").acquire()
    assert caught.value.errno == errno.ENOTCONN


def test_a_lock_slot_runs_unlocked_and_takes_the_lock_once_the_folder_works(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "mnt") as mount:
        remount(mount, read_only=True)
        slot = LockSlot(mount / "sessions", "s1")
        problem = slot.claim()
        assert isinstance(problem, LockUnavailable) and problem.errno == errno.EROFS
        assert not slot.settled and not slot.retry()
        remount(mount, read_only=False)
        assert slot.retry() and slot.lock is not None
        found = lock_holder(slot.lock.path)
        assert found is not None and found.pid == os.getpid()
        slot.release()
        assert list((mount / "sessions").iterdir()) == []


def test_a_holder_that_cannot_be_written_is_not_left_as_an_empty_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(SessionLock, "_write_holder", staticmethod(full))
    with pytest.raises(LockUnavailable):
        SessionLock.for_session(tmp_path / "sessions", "s1").acquire()
    assert list((tmp_path / "sessions").iterdir()) == []
