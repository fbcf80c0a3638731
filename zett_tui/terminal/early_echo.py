"""Keys typed while the app imports show in the box drawn before it, as they are typed. No Textual import.

``first_frame`` draws the prompt box as soon as the command line says the app will open; the app's
own first frame comes 0.3-0.6 s later. Keys typed in between stayed in the terminal (or in
``typeahead``) until that frame: in ``benchmarks/bench_app.py --only startup`` they were most of
the "echo during warm-up" figure (worst 570 ms on a quiet machine, against 54 ms for a bare Textual
app). Here a thread reads them as they come, keeps them in ``typeahead`` (so the app still gets them
first, in order) and redraws the box's line with everything typed so far.

The thread first reads the answer to the background colour question if one was asked (its reply
comes on the same terminal: read by anyone else it would be lost), then the keys. ``stop`` ends it,
and must be called before the app's terminal driver reads: the driver gets what comes after.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from zett_tui.terminal import typeahead

if TYPE_CHECKING:
    from zett_tui.terminal.background import BackgroundQuery

log = logging.getLogger(__name__)


class EarlyEcho:
    """The thread that reads typed keys from terminal ``fd`` and shows them with ``show(typed)``."""

    def __init__(self, fd: int, show: Callable[[str], None], query: BackgroundQuery | None = None) -> None:
        self._fd = fd
        self._show = show
        self._query = query
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._run, name="zett-early-echo", daemon=True)

    @classmethod
    def start(cls, fd: int, show: Callable[[str], None], query: BackgroundQuery | None = None) -> EarlyEcho:
        echo = cls(fd, show, query)
        echo._thread.start()
        return echo

    def stop(self) -> None:
        """Stop reading (it waits for the background answer if it is being read); safe to repeat."""
        if self._wake_write < 0:
            return
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        if self._thread.ident is not None:
            self._thread.join()
        os.close(self._wake_write)
        os.close(self._wake_read)
        self._wake_write = self._wake_read = -1

    def _run(self) -> None:
        if self._query is not None:
            try:
                self._query.answer()  # keeps the keys typed meanwhile in ``typeahead``
            except Exception:  # a terminal that fails here: no background, as if it never answered
                log.debug("reading the background answer failed", exc_info=True)
            self._show(typeahead.peek())
        while True:
            try:
                ready, _, _ = select.select([self._fd, self._wake_read], [], [])
                if self._wake_read in ready:
                    return
                data = os.read(self._fd, 4096)
            except (OSError, ValueError):
                return
            if not data:
                return
            typeahead.keep(data)
            self._show(typeahead.peek())
