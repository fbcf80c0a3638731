"""The session core's file writes from the event loop: awaited, never stopping the loop, and as
safe as the blocking ones (a line whole or absent, 0600, in order, kept in memory while the disk
fails).

A slow disk is a write that sleeps in the thread that does it; the loop's heartbeat (a task that
ticks every few milliseconds) must keep ticking meanwhile. A loop stopped by the write ticks once
at most, so the counts asserted here are far from what a loaded machine could miss.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import stat
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from zett_tui.core import line_append, paths
from zett_tui.core.line_append import append_whole_async
from zett_tui.core.thread_lock import held_off_loop
from zett_tui.runtime import storage_retry
from zett_tui.runtime.recorder import RECOVERED, TurnRecorder
from zett_tui.runtime.session_files import SessionFiles
from zett_tui.sessions.lock import SessionBusy, SessionLock

#: How long the simulated slow disk takes per write.
SLOW = 0.3
#: Heartbeats a free loop gives during one slow write (it would give about 60).
ALIVE = 10


class Heartbeat:
    def __init__(self) -> None:
        self.ticks = 0

    async def run(self) -> None:
        while True:
            await asyncio.sleep(0.005)
            self.ticks += 1


@asynccontextmanager
async def heartbeat() -> AsyncIterator[Heartbeat]:
    beat = Heartbeat()
    task = asyncio.create_task(beat.run())
    await asyncio.sleep(0)
    try:
        yield beat
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def slow_disk(monkeypatch: pytest.MonkeyPatch, *, fail_with: int | None = None) -> list[str]:
    """Each write sleeps ``SLOW`` in its thread (then puts half the data down and fails with
    ``fail_with``, if given). Returns the names of the threads that wrote."""
    writers: list[str] = []
    write_all = line_append.write_all

    def slow_write(fd: int, data: bytes) -> None:
        writers.append(threading.current_thread().name)
        time.sleep(SLOW)
        if fail_with is not None:
            os.write(fd, data[: len(data) // 2])
            raise OSError(fail_with, os.strerror(fail_with))
        write_all(fd, data)

    monkeypatch.setattr(line_append, "write_all", slow_write)
    return writers


# -- line_append ----------------------------------------------------------------------------------


async def test_a_slow_append_does_not_stop_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "sessions" / "s.jsonl"
    writers = slow_disk(monkeypatch)
    async with heartbeat() as beat:
        await append_whole_async(path, b'{"n":1}\n')
    assert beat.ticks >= ALIVE
    assert writers and writers[0] != threading.current_thread().name
    assert path.read_bytes() == b'{"n":1}\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


async def test_a_failed_append_is_cut_back_and_an_empty_file_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = tmp_path / "kept.jsonl"
    kept.write_bytes(b'{"n":1}\n')
    new = tmp_path / "new.jsonl"
    slow_disk(monkeypatch, fail_with=errno.ENOSPC)
    with pytest.raises(OSError) as raised:
        await append_whole_async(kept, b'{"n":2}\n')
    assert raised.value.errno == errno.ENOSPC
    assert kept.read_bytes() == b'{"n":1}\n'
    with pytest.raises(OSError):
        await append_whole_async(new, b'{"n":1}\n')
    assert not new.exists()


async def test_a_torn_last_line_is_ended_before_the_next(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"n":1}\n{"n":2')
    await append_whole_async(path, b'{"n":3}\n')
    assert path.read_bytes() == b'{"n":1}\n{"n":2\n{"n":3}\n'


async def test_a_file_that_cannot_be_opened_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(_path: Path) -> int:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(paths, "open_private_append", refused)  # the same opening as append_whole's
    with pytest.raises(PermissionError):
        await append_whole_async(tmp_path / "sessions" / "s.jsonl", b"{}\n")
    assert not (tmp_path / "sessions").exists()


async def test_a_cancelled_append_still_leaves_the_line_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"n":1}\n')
    slow_disk(monkeypatch)
    appending = asyncio.create_task(append_whole_async(path, b'{"n":2}\n'))
    await asyncio.sleep(SLOW / 3)
    appending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await appending
    await asyncio.sleep(SLOW)  # the shielded append runs on to its end
    for _ in range(100):
        if path.read_bytes().endswith(b"\n") and path.stat().st_size > 8:
            break
        await asyncio.sleep(0.05)
    assert path.read_bytes() == b'{"n":1}\n{"n":2}\n'


# -- the lock shared with threads ---------------------------------------------------------------


async def test_a_lock_a_thread_holds_is_waited_for_off_the_loop() -> None:
    lock = threading.Lock()
    lock.acquire()
    threading.Timer(SLOW, lock.release).start()
    async with heartbeat() as beat, held_off_loop(lock):
        assert lock.locked()
    assert beat.ticks >= ALIVE
    assert not lock.locked()


async def test_a_caller_cancelled_while_waiting_does_not_keep_the_lock() -> None:
    lock = threading.Lock()
    lock.acquire()

    async def hold() -> None:
        async with held_off_loop(lock):
            raise AssertionError("a cancelled waiter must not run its block")

    waiting = asyncio.create_task(hold())
    await asyncio.sleep(0.05)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    lock.release()
    for _ in range(100):  # the wait in the executor gets the lock, then gives it back
        await asyncio.sleep(0.02)
        if lock.acquire(blocking=False):
            break
    else:
        raise AssertionError("the lock was kept by a cancelled waiter")
    lock.release()


# -- the recorder ---------------------------------------------------------------------------------


def recorder_in(tmp_path: Path) -> tuple[TurnRecorder, list[tuple[str, str]]]:
    said: list[tuple[str, str]] = []
    recorder = TurnRecorder(
        tmp_path / "sessions", lambda text: text, lambda text, level: said.append((level, text))
    )
    return recorder, said


def lines_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_a_mark_the_recorder_writes_from_the_loop_does_not_stop_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, _said = recorder_in(tmp_path)
    slow_disk(monkeypatch)
    async with heartbeat() as beat:
        assert await recorder.append_record("s", {"mark": 1})
    assert beat.ticks >= ALIVE
    assert lines_of(recorder.session_path("s")) == [{"mark": 1}]


async def test_lines_from_the_loop_and_from_the_runtime_thread_never_interleave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, _said = recorder_in(tmp_path)
    path = recorder.session_path("s")
    slow_disk(monkeypatch)
    turn_line = json.dumps({"version": 1, "session_id": "s", "messages": [], "turn": "x" * 100_000})
    # zett-agent writes a turn's line from a worker thread while zett writes its marks from the loop
    from_thread = asyncio.create_task(asyncio.to_thread(recorder._append_line, path, turn_line))
    await asyncio.sleep(0.01)
    marks = [recorder.append_record("s", {"mark": number}) for number in range(3)]
    assert all(await asyncio.gather(*marks))
    await from_thread
    records = lines_of(path)  # each line parses: none was cut into by another
    assert len(records) == 4
    assert [record["mark"] for record in records if "mark" in record] == [0, 1, 2]


async def test_marks_wait_in_memory_while_the_disk_fails_and_are_written_when_it_recovers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, said = recorder_in(tmp_path)
    path = recorder.session_path("s")
    assert await recorder.append_record("s", {"mark": 0})
    with monkeypatch.context() as patch:
        slow_disk(patch, fail_with=errno.ENOSPC)
        assert not await recorder.append_record("s", {"mark": 1})
        assert not await recorder.append_record("s", {"mark": 2})
        assert not await recorder.write_waiting()
        assert recorder.unsaved == 2
        assert lines_of(path) == [{"mark": 0}]  # the half lines were cut back
    assert [level for level, _text in said] == ["warning"]  # once per outage
    assert await recorder.write_waiting()
    assert recorder.unsaved == 0
    assert lines_of(path) == [{"mark": 0}, {"mark": 1}, {"mark": 2}]
    assert said[-1] == ("info", RECOVERED)


async def test_a_cancelled_caller_does_not_write_its_mark_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder, _said = recorder_in(tmp_path)
    path = recorder.session_path("s")
    slow_disk(monkeypatch)
    marking = asyncio.create_task(recorder.append_record("s", {"mark": 1}))
    await asyncio.sleep(SLOW / 3)
    marking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await marking
    assert await recorder.write_waiting()  # waits for the shielded write, then finds nothing waiting
    assert lines_of(path) == [{"mark": 1}]


# -- opening a session ------------------------------------------------------------------------------


def slow_claim(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """Taking a session's lock (and adding a killed zett's turn to its file) takes ``SLOW``."""
    claim_session = storage_retry.claim_session
    calls = 0

    def slow(directory: Path, session_id: str) -> SessionLock:
        nonlocal calls
        calls += 1
        time.sleep(SLOW)
        return claim_session(directory, session_id)

    monkeypatch.setattr(storage_retry, "claim_session", slow)
    return lambda: calls


async def test_opening_a_session_does_not_stop_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_claim(monkeypatch)
    files = SessionFiles(tmp_path / "sessions", tmp_path / "history.sqlite3", "s", lambda text, level: None)
    async with heartbeat() as beat:
        await files.claim()
    assert beat.ticks >= ALIVE
    assert files.lock.settled
    files.lock.release()


async def test_a_session_open_cancelled_while_claiming_gives_the_lock_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = slow_claim(monkeypatch)
    files = SessionFiles(tmp_path / "sessions", tmp_path / "history.sqlite3", "s", lambda text, level: None)
    claiming = asyncio.create_task(files.claim())
    await asyncio.sleep(SLOW / 3)
    claiming.cancel()
    with pytest.raises(asyncio.CancelledError):
        await claiming
    assert calls() == 1
    monkeypatch.undo()
    again = SessionFiles(tmp_path / "sessions", tmp_path / "history.sqlite3", "s", lambda text, level: None)
    for _ in range(50):  # the claim in its thread ends, then the lock is given back
        try:
            await again.claim()  # another zett may take the session: the cancelled one holds nothing
            break
        except SessionBusy:
            await asyncio.sleep(0.05)
    assert again.lock.settled and not files.lock.settled
    again.lock.release()
