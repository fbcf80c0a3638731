"""One writer per session across processes.

The lock is an ``fcntl.flock`` on ``<base>.lock`` beside the session file. The kernel drops it
when the holding process exits or is killed, so a crash never leaves a session locked. The
holder writes its pid, host name and start time into the file so others can say who has it.
The file is opened close-on-exec, so shell tools started by zett never inherit the lock.

On release the holder removes the file while it still holds the lock; an acquirer checks that
the file it locked is still the one at the path (else it retries), so two processes can never
both believe they hold it.

A folder that cannot hold the lock (full, read-only, missing and uncreatable, a dead mount) raises
:class:`LockUnavailable`, never a bare ``OSError``, and leaves no file behind: a lock file
whose holder could not be written is removed again. The session then runs without a lock
(``runtime.storage_retry`` takes it later), since nothing can be written beside it either.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from zett_tui.core.paths import PRIVATE_FILE_MODE, ensure_private_dir, tighten
from zett_tui.sessions.live_turn import adopt_live_turn, journaled_bases
from zett_tui.sessions.naming import InvalidSessionId, decode_base_name, lock_path, session_path
from zett_tui.sessions.reader import repair_torn_tail

log = logging.getLogger(__name__)

_RETRIES = 20
_RETRY_PAUSE = 0.01


@dataclass(frozen=True, slots=True)
class LockHolder:
    pid: int | None
    hostname: str | None
    since: str | None

    def describe(self) -> str:
        if self.pid is None:
            return "another zett process"
        same_host = self.hostname in {None, socket.gethostname()}
        if self.pid == os.getpid() and same_host:
            return "this zett process"
        where = "" if same_host else f" on {self.hostname}"
        return f"zett process {self.pid}{where}"


class LockUnavailable(OSError):
    """The lock file could not be created, locked or written (a disk fault, not another zett)."""

    def __init__(self, lock_file: Path, error: OSError) -> None:
        super().__init__(error.errno, error.strerror or str(error), str(lock_file))
        self.lock_file = lock_file
        self.error = error


class SessionBusy(RuntimeError):
    """Another live process (or another lock in this one) is writing the session."""

    def __init__(self, lock_file: Path, holder: LockHolder) -> None:
        self.lock_file = lock_file
        self.holder = holder
        self.pid = holder.pid
        super().__init__(
            f"this session is open in {holder.describe()}; close it there first "
            "(or open it read-only to look at it)"
        )


def _read_holder(fd: int) -> LockHolder:
    try:
        raw = os.pread(fd, 4096, 0)
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    pid = data.get("pid")
    hostname = data.get("hostname")
    since = data.get("since")
    return LockHolder(
        pid if type(pid) is int else None,
        hostname if isinstance(hostname, str) else None,
        since if isinstance(since, str) else None,
    )


def lock_holder(lock_file: Path) -> LockHolder | None:
    """Who holds ``lock_file`` now, or None when nobody does (the file is never created)."""
    try:
        fd = os.open(lock_file, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(fd)
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class SessionLock:
    """An exclusive, non-blocking, cross-process lock on one session.

    Use as a context manager, or call :meth:`acquire` and :meth:`release`. :meth:`acquire`
    raises :class:`SessionBusy` (with the holder's pid) when someone else has the session.
    """

    def __init__(self, lock_file: Path) -> None:
        self.path = lock_file
        self._fd: int | None = None

    @classmethod
    def for_session(cls, directory: Path, session_id: str) -> SessionLock:
        return cls(lock_path(session_path(directory, session_id)))

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> SessionLock:
        """Take the lock, or raise :class:`SessionBusy` (someone has it) or :class:`LockUnavailable`."""
        if self._fd is not None:
            return self
        try:
            return self._acquire()
        except OSError as error:
            raise LockUnavailable(self.path, error) from error

    def _acquire(self) -> SessionLock:
        ensure_private_dir(self.path.parent)
        holder = LockHolder(None, None, None)
        for _attempt in range(_RETRIES):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE_MODE)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(fd)
                os.close(fd)
                if holder.pid is not None:
                    raise SessionBusy(self.path, holder) from None
                # Someone is between locking and writing their pid, or is only probing.
                time.sleep(_RETRY_PAUSE)
                continue
            except BaseException:
                os.close(fd)
                raise
            if not self._is_current_file(fd):
                os.close(fd)
                continue
            try:
                self._write_holder(fd)
            except BaseException:
                self._remove_locked(fd)  # a lock nobody can say the holder of is not left behind
                raise
            self._fd = fd
            return self
        raise SessionBusy(self.path, holder)

    def _is_current_file(self, fd: int) -> bool:
        """Whether ``fd`` is still the file at our path (a releasing holder may have unlinked it)."""
        try:
            on_disk = os.stat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (on_disk.st_dev, on_disk.st_ino) == (mine.st_dev, mine.st_ino)

    @staticmethod
    def _write_holder(fd: int) -> None:
        info = {"pid": os.getpid(), "hostname": socket.gethostname(), "since": datetime.now(UTC).isoformat()}
        os.fchmod(fd, PRIVATE_FILE_MODE)
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(info) + "\n").encode("utf-8"), 0)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            self._remove_locked(fd)

    def _remove_locked(self, fd: int) -> None:
        """Unlink our file while ``fd`` still holds its lock, then close ``fd``."""
        try:
            if self._is_current_file(fd):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.path)
        except OSError as error:  # a read-only or vanished folder: the kernel still drops the lock
            log.warning("lock file %s not removed: %s", self.path, error)
        finally:
            os.close(fd)

    close = release

    def __enter__(self) -> SessionLock:
        return self.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def __del__(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)


def claim_session(directory: Path, session_id: str) -> SessionLock:
    """Take the writer lock of a session and make its existing file safe to append to.

    Call before the agent writes the session: it raises :class:`SessionBusy` when another zett
    has it, and :class:`LockUnavailable` when the folder cannot hold a lock. Otherwise the file
    (if it exists) is made 0600 and a torn last line is ended with a newline, so the next turn is
    not glued to it; when that fails, the lock is kept all the same (the recorder ends a torn line
    itself). A missing file is not created, so a session that never gets a turn leaves nothing.

    A turn a stopped zett left unfinished (``sessions.live_turn``) is added to the file first.
    """
    lock = SessionLock.for_session(directory, session_id).acquire()
    path = session_path(directory, session_id)
    try:
        if path.is_file():
            tighten(path, PRIVATE_FILE_MODE)
            repair_torn_tail(path)
        adopt_live_turn(path)
    except OSError as error:  # the recorder ends a torn line itself before it appends
        log.warning("session file %s not prepared: %s", path, error)
    except BaseException:
        lock.release()
        raise
    return lock


def adopt_orphaned_turns(directory: Path) -> None:
    """Add to their sessions the unfinished turns of zett processes that are gone. A session
    another zett holds is left to it. Never raises ``OSError``."""
    for base in journaled_bases(directory):
        try:
            session_id = decode_base_name(base)
        except InvalidSessionId:
            continue
        if lock_holder(lock_path(session_path(directory, session_id))) is not None:
            continue  # a live zett is running this turn
        try:
            with claim_session(directory, session_id):
                pass
        except (SessionBusy, OSError) as error:
            log.info("unfinished turn of %s not adopted now: %s", session_id, error)
