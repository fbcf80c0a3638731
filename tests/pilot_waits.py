"""How Pilot tests wait for the app to settle after a key or a ``pilot.pause()``.

Textual's Pilot waits twice after every key it presses, and once in every ``pilot.pause()``, in
``textual._wait.wait_for_idle``: it sleeps in 20 ms windows until one window used under 1 ms of
the process's CPU. So every key a test types costs at least 40 ms in which nothing runs, and a
suite of Pilot tests spends more of its time in those windows than working (measured: 44 s of
107 s in four UI test files).

``wait_for_idle`` here waits for the same thing, measured more closely: windows of 2 ms, and a
window counts as idle only when the event loop also has nothing ready to run. The loop check is
what makes short windows safe: a key's messages pass from the app to the screen to the focused
widget as a cascade of ready callbacks, so the wait cannot end in the middle of one, however the
machine schedules the process. A timer due within 20 ms (the screen's refresh) is waited for.
Work in other threads (a worker's ``asyncio.to_thread``, the history database's thread) still
counts through the process's CPU, as in Textual's own.
"""

from __future__ import annotations

import asyncio
from time import monotonic, process_time

#: How long one window of the wait lasts (Textual's own: 20 ms).
WINDOW = 0.002
#: A window in which the process used less CPU than this, with nothing ready in the event loop,
#: is idle. An idle app's own loop (a timer, a select) uses well under a tenth of a millisecond.
BUSY_CPU = 0.0004
#: A timer due within this long is work about to start: the screen's own refresh runs on a timer
#: of 1/60 s after a change, so a window is not idle while one is pending (Textual's 20 ms windows
#: covered it by their length).
SOON = 0.02


async def wait_for_idle(min_sleep: float = WINDOW, max_sleep: float = 1) -> None:
    """Wait until the app has finished what it was doing: the same contract as Textual's."""
    loop = asyncio.get_running_loop()
    ready = loop._ready  # type: ignore[attr-defined]  # CPython's queue of callbacks to run now
    start = monotonic()
    while True:
        cpu = process_time()
        await asyncio.sleep(WINDOW)
        cpu_elapsed = process_time() - cpu
        elapsed = monotonic() - start
        if elapsed >= max_sleep:
            return
        if elapsed <= min_sleep or cpu_elapsed >= BUSY_CPU or ready:
            continue
        soon = _next_timer(loop)
        if soon is None or soon > loop.time() + SOON:
            return
        await asyncio.sleep(max(0.0, soon - loop.time()))


def _next_timer(loop: asyncio.AbstractEventLoop) -> float | None:
    """When the event loop's next live timer is due (its own clock), or None without one."""
    scheduled = loop._scheduled  # type: ignore[attr-defined]  # CPython's heap of timers
    due = [handle.when() for handle in scheduled if not handle.cancelled()]
    return min(due, default=None)
