"""A history connection closed while SQLAlchemy force-stops it closes, and the loop can end."""

from __future__ import annotations

import asyncio

import aiosqlite

from zett_tui.runtime.sqlite_stop import stop_once


async def test_a_close_that_meets_a_forced_stop_ends() -> None:
    stop_once()
    connection = await aiosqlite.connect(":memory:")
    closing = asyncio.ensure_future(connection.close())
    await asyncio.sleep(0)  # close() has asked the connection's thread to close and waits
    stopped = connection.stop()  # what SQLAlchemy's force close does when the graceful close was cancelled
    await asyncio.wait_for(asyncio.shield(closing), 10)  # without stop_once: waits forever
    assert stopped is not None
    await asyncio.wait_for(stopped, 10)  # the thread ended, answering before the loop closes
    connection._thread.join(10)
    assert not connection._thread.is_alive()


async def test_a_stop_of_a_running_connection_still_ends_its_thread() -> None:
    stop_once()
    stop_once()  # twice: wrapped once
    assert aiosqlite.Connection.stop.__wrapped__.__name__ == "stop"  # type: ignore[attr-defined]
    connection = await aiosqlite.connect(":memory:")
    assert connection._running is True  # the flag stop_once reads (aiosqlite 0.22)
    stopped = connection.stop()
    assert stopped is not None
    await asyncio.wait_for(stopped, 10)
    connection._thread.join(10)
    assert not connection._thread.is_alive() and connection._running is False
    assert connection.stop() is None
