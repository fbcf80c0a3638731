"""Keep zett to two glibc heaps instead of one for each thread (``mallopt(M_ARENA_MAX, 2)``).

glibc gives a thread its own heap (an "arena") the first time it allocates, up to eight per core,
and keeps it for the thread's life and then for the next thread. zett's worker threads (the
``asyncio.to_thread`` pool, where each history operation runs too) build and drop data
that grows with the session there; the holes left between the few blocks that outlive a turn are
smaller than a page, so ``malloc_trim`` cannot return them, and each thread's heap grew with
them (``bench_growth``: the threads' heaps 4.9 -> 8.8 MB resident from turn 100 to 300, most of
it free). With the limit set, a thread that starts later allocates from a heap that already
exists, and the holes one turn leaves are filled by the next.

Two, not one: with one heap the memory was the same (``bench_growth``, both at once: anonymous
memory 96.1 MB at turn 300 either way) but page scrolls at turn 300 were slower (median / p95
24.0 / 35.8 ms against 18.5 / 30.8): every thread's allocations went through the main heap's lock
and its free lists, the event loop's among them.

The limit applies only to threads that have not allocated yet, so it is set before the threads
that work per turn start: the chat sets it after the first frame, before the prompt history's
thread and the agent's warm-up (``ctypes`` costs a few milliseconds to import, which the first
frame does not wait for);
``zett -p`` and ``zett acp`` before they open the history. Threads already running then (the
terminal driver's input and writer threads) keep the heaps they have.

A user who sets ``MALLOC_ARENA_MAX`` has chosen the number of heaps for this process (glibc read
it when the process started): zett leaves that choice alone. Off glibc (musl, macOS) there is no
such setting, and nothing happens.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from zett_tui.core.glibc import glibc_function

#: ``M_ARENA_MAX`` in glibc's ``malloc.h``.
M_ARENA_MAX = -8
#: How many heaps the whole process has, the main thread's included (see the module's docstring).
HEAPS = 2
#: The variable through which a user sets the number of heaps themselves.
USER_SETTING = "MALLOC_ARENA_MAX"

_done = False


def _mallopt() -> Callable[[int, int], int] | None:
    """glibc's ``mallopt``; None elsewhere."""
    return glibc_function("mallopt", ("c_int", "c_int"), "c_int")


def limit_heaps(env: Mapping[str, str] | None = None) -> bool:
    """Limit the process to ``HEAPS`` glibc heaps, once; True when the limit was set by this call.
    Threads already running keep the heap they have; the ones that start later take one of these.

    False when it was already done, when the user set ``MALLOC_ARENA_MAX``, off glibc, or when
    glibc refused.
    """
    global _done
    if _done:
        return False
    _done = True
    if USER_SETTING in (os.environ if env is None else env):
        return False
    mallopt = _mallopt()
    if mallopt is None:
        return False
    return mallopt(M_ARENA_MAX, HEAPS) == 1
