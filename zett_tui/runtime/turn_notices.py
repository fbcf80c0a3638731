"""What zett tells the user outside the model's answer, queued until it can be said.

Extensions that failed, the disk that stopped (or started again) taking the session, a history
rebuilt from the transcript: these arrive between the runtime's events, some from the recorder's
writing thread. During a turn they are passed on with the turn's next event; between turns (the
retry timer saved the session) they go to the listener the UI set with :meth:`listen`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator

from zett_tui.runtime.events import Notice, UIEvent

log = logging.getLogger(__name__)


class TurnNotices:
    """A mailbox of notices: filled from any thread, emptied on the event loop."""

    def __init__(self) -> None:
        self._waiting: list[Notice] = []
        self._listener: Callable[[Notice], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._turns = 0

    def add(self, notice: Notice) -> None:
        """Queue ``notice`` (a list append: safe from the recorder's thread)."""
        self._waiting.append(notice)
        if self._listener is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is there to hear it
                self._loop.call_soon_threadsafe(self._between_turns)

    @property
    def waiting(self) -> tuple[Notice, ...]:
        """What waits to be said (left waiting)."""
        return tuple(self._waiting)

    def take(self) -> list[Notice]:
        """What waits, now, and not again."""
        waiting, self._waiting = self._waiting, []
        return waiting

    def pass_to(self, sink: Callable[[UIEvent], None]) -> None:
        for notice in self.take():
            sink(notice)

    def listen(self, listener: Callable[[Notice], None]) -> None:
        """Pass ``listener`` (on this event loop) the notices that arrive while no turn runs."""
        self._loop = asyncio.get_running_loop()
        self._listener = listener
        self._between_turns()

    @contextlib.contextmanager
    def during_turn(self) -> Iterator[None]:
        """While a turn runs, its sink says the notices; after it, what came late goes to the listener."""
        self._turns += 1
        try:
            yield
        finally:
            self._turns -= 1
            self._between_turns()

    def _between_turns(self) -> None:
        listener = self._listener
        if listener is None or self._turns:
            return
        for notice in self.take():
            try:
                listener(notice)
            except Exception:  # a listener's fault must not stop the retry timer
                log.warning("a between-turns notice listener failed", exc_info=True)
