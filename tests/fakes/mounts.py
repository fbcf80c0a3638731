"""Real broken folders for tests: a tiny full tmpfs, a read-only mount, a dead FUSE mount.

Every helper mounts for real (the tests run as root) and skips the test, saying why, where the
machine does not allow mounting. Each is a context manager that unmounts on the way out, so a
failing test never leaves a mount behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

FILLER = "filler"


def _run(*command: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise OSError(f"{' '.join(command)}: {done.stderr.strip() or done.returncode}")


def _unmount(target: Path) -> None:
    with contextlib.suppress(OSError):
        _run("umount", str(target))
    if os.path.ismount(target):
        _run("umount", "-l", str(target))


@contextlib.contextmanager
def small_tmpfs(target: Path, size: str = "64k") -> Iterator[Path]:
    """A ``size`` tmpfs mounted on ``target`` (created if needed)."""
    target.mkdir(parents=True, exist_ok=True)
    try:
        _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(target))
    except OSError as error:
        pytest.skip(f"mounting a tmpfs is not allowed here ({error})")
    try:
        yield target
    finally:
        _unmount(target)


def fill(folder: Path) -> Path:
    """Write ``folder/filler`` until the file system is full; returns the file to free space."""
    filler = folder / FILLER
    chunk = b"\0" * 4096
    with open(filler, "wb", buffering=0) as stream:
        try:
            while True:
                stream.write(chunk)
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
    return filler


def remount(target: Path, *, read_only: bool) -> None:
    _run("mount", "-o", f"remount,{'ro' if read_only else 'rw'}", str(target))


@contextlib.contextmanager
def read_only_bind(source: Path) -> Iterator[Path]:
    """``source`` bound read-only onto itself: nothing can be created under it."""
    source.mkdir(parents=True, exist_ok=True)
    try:
        _run("mount", "--bind", "-o", "ro", str(source), str(source))
    except OSError as error:
        pytest.skip(f"a read-only bind mount is not allowed here ({error})")
    try:
        # Older kernels ignore "ro" on the first bind; a remount applies it.
        with contextlib.suppress(OSError):
            _run("mount", "-o", "remount,bind,ro", str(source))
        yield source
    finally:
        _unmount(source)


@contextlib.contextmanager
def dead_mount(target: Path) -> Iterator[Path]:
    """A FUSE mount whose server is gone at once: every access fails with ENOTCONN.

    What a dead sshfs or a crashed network file system leaves behind. Unmounting it (the test's
    "the mount came back") leaves the plain, writable folder below.
    """
    target.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open("/dev/fuse", os.O_RDWR)
    except OSError as error:
        pytest.skip(f"no /dev/fuse to make a dead mount with ({error})")
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"fd={fd},rootmode=40000,user_id=0,group_id=0".encode()
    result = libc.mount(b"zett-test-dead", os.fsencode(target), b"fuse", 0, options)
    os.close(fd)  # the server is gone: the kernel answers ENOTCONN from now on
    if result != 0:
        pytest.skip(f"mounting FUSE is not allowed here ({os.strerror(ctypes.get_errno())})")
    try:
        yield target
    finally:
        _unmount(target)
