"""Standard input, output and error as zett starts, when one of them is closed.

A program can be started with a standard descriptor closed (``zett -p hi >&-``, a service manager,
a parent process that closed its own). Python then sets ``sys.stdout`` (or the others) to None, and
worse, the next file zett opens takes the free number: the log file or the history database opened
as descriptor 1 would receive whatever is printed. :func:`fill_closed_descriptors` puts the null
device on each closed one of 0, 1 and 2 before anything opens a file, and says which were closed.

With no standard output or error, zett has nowhere to put its answer, the app or its messages, so
the CLI stops with a line on the other one. A closed standard input reads as empty.
"""

from __future__ import annotations

import contextlib
import os
import sys

STANDARD_NAMES = {0: "input", 1: "output", 2: "error"}


def fill_closed_descriptors() -> frozenset[int]:
    """Open the null device on each closed standard descriptor, and give ``sys`` a stream for it;
    the descriptors that were closed."""
    closed = set()
    for fd in STANDARD_NAMES:
        try:
            os.fstat(fd)
        except OSError:
            closed.add(fd)
    for fd in sorted(closed):
        try:
            opened = os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one, in order
        except OSError:
            continue
        if opened != fd:
            os.dup2(opened, fd)
            os.close(opened)
        _give_sys_a_stream(fd)
    return frozenset(closed)


def _give_sys_a_stream(fd: int) -> None:
    stream = open(fd, "r" if fd == 0 else "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    name = ("stdin", "stdout", "stderr")[fd]
    with contextlib.suppress(AttributeError):
        if getattr(sys, name) is None:
            setattr(sys, name, stream)
        if getattr(sys, f"__{name}__") is None:
            setattr(sys, f"__{name}__", stream)
