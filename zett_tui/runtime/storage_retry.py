"""A session that goes on when zett's data folder cannot be written, and is saved once it can.

The data folder may be full, read-only, missing and impossible to create, or on a dead mount.
Each writer (the session lock, the turn transcript, the history database, the prompt history,
the session index) keeps what it could not write in memory and can be asked to try again.
:class:`StorageRetry` is what asks: every few seconds while something waits, and at the end of
every turn, so everything reaches the disk without a restart once writing works again.

The user hears of it twice at most per failing spell: one warning that says where zett could
not write and what is at risk (the writers' own warnings are folded into it), and one note when
everything is saved. No Textual here.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from zett_tui.sessions.lock import LockUnavailable, SessionBusy, SessionLock, claim_session

log = logging.getLogger(__name__)

Notify = Callable[[str, str], None]
"""``notify(text, level)``: a line for the user."""
Step = Callable[[], Awaitable[bool]]
"""One writer's retry: write what waits; True when nothing is left."""

#: How often a waiting write is tried again, in seconds.
RETRY_SECONDS = 3.0
#: A folder that cannot take locks at all (some network file systems): the session goes on unlocked.
_NO_LOCKS = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP})


def cannot_write(folder: Path, error: BaseException) -> str:
    """The one warning: where zett could not write, why, and what is at risk."""
    reason = error.strerror if isinstance(error, OSError) and error.strerror else type(error).__name__
    return (
        f"Cannot write to {folder} ({reason}). This session goes on in memory: its transcript and "
        "history are saved there as soon as writing works again (zett tries every few seconds); "
        "if zett ends before that, they are lost."
    )


def saved_again(folder: Path) -> str:
    return f"Saving works again: this session is saved in {folder}."


class LockSlot:
    """The session's writer lock, or the promise to take it once the folder can hold one."""

    def __init__(self, directory: Path, session_id: str) -> None:
        self.directory = directory
        self.session_id = session_id
        self.lock: SessionLock | None = None
        self._unsupported = False

    @property
    def settled(self) -> bool:
        """Held, or the folder cannot take locks at all: either way writing may go ahead."""
        return self.lock is not None or self._unsupported

    def claim(self) -> LockUnavailable | None:
        """Take the lock now. Returns why it could not be taken (the session then runs unlocked).

        Raises:
            SessionBusy: another zett has the session.
        """
        try:
            self.lock = claim_session(self.directory, self.session_id)
        except LockUnavailable as error:
            if error.errno in _NO_LOCKS:
                log.warning("the sessions folder cannot take locks; this session runs unlocked: %s", error)
                self._unsupported = True
                return None
            log.warning("session lock not taken: %s", error)
            return error
        return None

    def retry(self) -> bool:
        """Try to take the lock again (blocking, a few system calls); True once writing may go ahead.

        Raises:
            SessionBusy: another zett took the session meanwhile; nothing of this one is written.
        """
        if self.settled:
            return True
        return self.claim() is None

    def release(self) -> None:
        lock, self.lock = self.lock, None
        if lock is not None:
            lock.release()


class StorageRetry:
    """Folds the writers' warnings into one and tries their waiting writes again.

    Args:
        folder: Named in the warning: where zett could not write.
        notify: Gets the one warning and the one note that all is saved.
        interval: Seconds between two tries while something waits (default ``RETRY_SECONDS``).
    """

    def __init__(self, folder: Path, notify: Notify, *, interval: float | None = None) -> None:
        self.folder = folder
        self._notify = notify
        self.interval = RETRY_SECONDS if interval is None else interval
        self._lock: LockSlot | None = None
        self._steps: list[tuple[str, Step, bool]] = []
        self._failing = False
        self._busy_said = False
        self._task: asyncio.Task[None] | None = None
        self._round = asyncio.Lock()

    @property
    def failing(self) -> bool:
        """True from the first failed write until everything waiting is written."""
        return self._failing

    def guard_with(self, lock: LockSlot) -> None:
        """Write nothing of the session before ``lock`` is held (another zett may have it by then)."""
        self._lock = lock

    def add(self, name: str, step: Step, *, after_the_rest: bool = False) -> None:
        """Try ``step`` in each round, after the lock and the steps added before it.

        With ``after_the_rest`` it is tried only in a round where every step before it succeeded.
        """
        self._steps.append((name, step, after_the_rest))

    def report(self, error: BaseException) -> None:
        """A write failed with ``error``: the one warning, unless it was given already."""
        if not self._failing:
            self._failing = True
            self._notify(cannot_write(self.folder, error), "warning")

    def relay(self, text: str, level: str) -> None:
        """A writer's own ``notify``: its first warning is the one warning; the rest is logged."""
        if level == "warning" and not self._failing:
            self._failing = True
            self._notify(text, level)
            return
        log.info("storage notice folded into the warning given: %s", text)

    def start(self) -> None:
        """Try again every ``interval`` seconds while something waits (on the running loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._every_interval())

    async def _every_interval(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            if not self._failing:
                continue
            try:
                await self.retry_now()
            except Exception:  # the timer must outlive any one round
                log.warning("retrying the waiting writes failed", exc_info=True)

    async def retry_now(self) -> bool:
        """One round: the lock, then every step in order. True when nothing waits any more."""
        if not self._failing:
            return True
        async with self._round:
            if not self._failing:
                return True
            if not await self._lock_settled():
                return False
            done = True
            for name, step, after_the_rest in self._steps:
                if after_the_rest and not done:
                    continue
                try:
                    written = await step()
                except Exception:
                    log.warning("retrying the %s failed", name, exc_info=True)
                    written = False
                done = done and written
            if done:
                self._failing = False
                log.info("everything waiting was saved")
                self._notify(saved_again(self.folder), "info")
            return done

    async def _lock_settled(self) -> bool:
        if self._lock is None:
            return True
        try:
            return await asyncio.to_thread(self._lock.retry)
        except SessionBusy as busy:
            if not self._busy_said:
                self._busy_said = True
                self._notify(
                    f"This session was opened in {busy.holder.describe()} while zett could not write; "
                    "this one's turns stay in memory only. Close the other one to save them.",
                    "warning",
                )
            return False

    async def aclose(self) -> bool:
        """Stop the timer and try once more; True when nothing is left unsaved."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return await self.retry_now()


class Flushable(Protocol):
    """The turn recorder as the retry sees it: True when nothing waits."""

    async def write_waiting(self) -> bool: ...


class HistoryFlush(Protocol):
    """The history store as the retry sees it."""

    async def flush(self) -> bool: ...


def retry_session_writes(
    retry: StorageRetry, sessions: Path, *, recorder: Flushable, history: HistoryFlush
) -> None:
    """Register every writer of a session with ``retry``, in the order they must reach the disk.

    The transcript first (the session exists once it is there), then the history, the prompt
    history, and last the session index, so it lists the transcript just written.
    """
    from zett_tui.sessions.index import save_index
    from zett_tui.workspace.prompt_log import flush_prompts

    retry.add("session transcript", recorder.write_waiting)
    retry.add("history", history.flush)
    retry.add("prompt history", lambda: asyncio.to_thread(flush_prompts))
    retry.add("session index", lambda: asyncio.to_thread(save_index, sessions), after_the_rest=True)
