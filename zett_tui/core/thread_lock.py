"""A ``threading.Lock`` taken from the event loop without stopping it.

The recorder and the turn journal share their locks with code that runs in worker threads
(zett-agent writes a turn's line from one). Acquiring such a lock on the loop would stop the loop
for as long as a thread holds it (a slow disk: seconds), so :func:`held_off_loop` waits for it in
the loop's executor, through ``aiofiles``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator

import aiofiles.os


@contextlib.asynccontextmanager
async def held_off_loop(lock: threading.Lock) -> AsyncIterator[None]:
    """Hold ``lock`` for the block, waiting for it off the loop.

    A caller cancelled while it waits does not leave the lock taken: the wait goes on, and the
    lock is released as soon as it is had.
    """
    acquiring = asyncio.ensure_future(aiofiles.os.wrap(lock.acquire)())
    try:
        await asyncio.shield(acquiring)
    except asyncio.CancelledError:
        acquiring.add_done_callback(lambda _: lock.release())
        raise
    try:
        yield
    finally:
        lock.release()
