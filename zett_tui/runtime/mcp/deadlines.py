"""Timeouts that measure the server, not the person signing in.

A remote server's first request can stop for an OAuth sign-in in the browser, which takes as long
as the user takes. ``Deadlines.run`` bounds an awaitable like ``asyncio.wait_for``, but its clock
stands still between ``pause`` and ``resume`` (the sign-in's own wait is bounded separately), so
``startup_timeout`` or the keep-alive ping does not end a connection whose user is still typing a
password.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class Deadlines:
    """The pausable clock of one server's connection (used on its manager's loop only)."""

    def __init__(self) -> None:
        self._paused = 0
        self._changed = asyncio.Event()

    @property
    def paused(self) -> bool:
        return self._paused > 0

    def pause(self) -> None:
        self._paused += 1
        self._tell()

    def resume(self) -> None:
        self._paused = max(0, self._paused - 1)
        self._tell()

    def _tell(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def run(self, awaitable: Awaitable[T], seconds: float) -> T:
        """``awaitable``'s result; ``TimeoutError`` once it has run ``seconds`` unpaused."""
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(awaitable)
        budget = seconds
        try:
            while not task.done():
                changed, counting, started = self._changed, not self.paused, loop.time()
                waiter = asyncio.ensure_future(changed.wait())
                try:
                    await asyncio.wait(
                        {task, waiter},
                        timeout=budget if counting else None,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                finally:
                    waiter.cancel()
                if counting:
                    budget -= loop.time() - started
                if not task.done() and counting and budget <= 0 and not changed.is_set():
                    raise TimeoutError
            return task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
