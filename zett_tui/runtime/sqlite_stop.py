"""A history connection that is stopped twice must not wait forever for its second stop.

zett-agent keeps the history in SQLite through SQLAlchemy's aiosqlite dialect. When an operation
on a connection is cancelled (a turn or the app ending mid-write), SQLAlchemy closes that
connection gracefully in a shielded task and, if that wait is cancelled too, force-closes it with
``aiosqlite.Connection.stop()``. aiosqlite's ``close()`` ends with a ``stop()`` of its own, and
(0.22.1) ``stop()`` queues one more request to the connection's thread even when an earlier stop
already ended that thread: nothing ever answers it, the closing task waits forever, and the event
loop's teardown with it (``asyncio.run`` cancels and then waits for every task). A test run hung
there for its whole timeout (``test_cli_choosing_sessions``, ``AsyncAdapt_aiosqlite_connection.
_terminate_graceful_close``); a user's zett would hang on quit the same way.

:func:`stop_once` makes a second ``stop()`` do nothing: the first one already queued the request
that closes the connection and ends the thread. ``tests/test_sqlite_stop.py`` runs the race and
checks the aiosqlite names this relies on.
"""

from __future__ import annotations

import functools
from typing import Any


def stop_once() -> None:
    """Make ``aiosqlite.Connection.stop`` do nothing once the connection has been stopped.
    Idempotent; a connection without aiosqlite's ``_running`` flag is stopped as before."""
    try:
        from aiosqlite.core import Connection
    except ImportError:  # no aiosqlite: nothing to guard
        return
    stop = getattr(Connection, "stop", None)
    if stop is None or getattr(stop, "_zett_stop_once", False):
        return

    @functools.wraps(stop)
    def stop_if_running(self: Any) -> Any:
        if getattr(self, "_running", True) is False:
            return None  # stopped already: its request ends the thread, nothing waits for this
        return stop(self)

    stop_if_running._zett_stop_once = True  # type: ignore[attr-defined]
    Connection.stop = stop_if_running  # type: ignore[method-assign]
