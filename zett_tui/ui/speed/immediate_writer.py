"""Textual's terminal writer thread, which another thread can also write through at once.

Textual writes to the terminal from a thread of its own: ``Driver.write`` queues the text and the
writer thread writes it, flushing when the queue is empty. A key zett draws from the driver's input
thread (``ui/speed/predicted_echo``) went the same way, so its echo waited for the writer thread to
wake and take the GIL, which the event loop held meanwhile for the same key (0.2-8 ms of a quiet
prompt's 6 ms echo, traced at stop 43).

:class:`ImmediateWriter` keeps Textual's thread and queue, and marks each text done once written
(``Queue.task_done``), so the queue's ``unfinished_tasks`` counts what is queued or being written.
``write_now`` writes a short sequence from the calling thread there and then, but only when
nothing waits to be written and the writer thread is not in the middle of a write: between two
frames, never inside one, never before a frame queued earlier (which would then draw over it). Else
it says so and the caller queues it as before.

Extends ``textual.drivers._writer_thread.WriterThread`` (its ``_queue``, ``_file``, ``write`` and
``run``); ``textual_compat.write_at_once_from_threads`` has the driver make this one instead.
"""

from __future__ import annotations

import threading
from typing import IO

from textual.drivers._writer_thread import WriterThread


class ImmediateWriter(WriterThread):
    """Textual's writer thread, plus ``write_now`` for a thread that must not wait."""

    def __init__(self, file: IO[str]) -> None:
        super().__init__(file)
        #: Held while the file is written: by this thread, or by ``write_now``'s caller. The loop's
        #: ``write`` (Textual's: a put on the queue) never takes it, so never waits for the terminal.
        self._writing = threading.Lock()

    def _nothing_waits(self) -> bool:
        with self._queue.mutex:
            return not self._queue.unfinished_tasks

    def write_now(self, text: str) -> bool:
        """Write ``text`` from this thread if nothing is queued or being written; False (nothing
        written) if something is: queue it then. (If the terminal has stopped reading, the
        write waits for it, as the writer thread's would.)

        A terminal that is gone (the write fails) is also False: the caller is the driver's input
        thread, which an exception would end with a traceback on screen; the writer thread meets
        the same failure where Textual expects it."""
        if not self._writing.acquire(blocking=False):
            return False
        try:
            if not self._nothing_waits():
                return False
            self._file.write(text)
            self._file.flush()
            return True
        except (OSError, ValueError):  # ValueError: the file is closed
            return False
        finally:
            self._writing.release()

    def run(self) -> None:
        get = self._queue.get
        while True:
            text = get()
            if text is None:
                break
            with self._writing:
                self._file.write(text)
                self._queue.task_done()
                if self._nothing_waits():
                    self._file.flush()
        with self._writing:
            self._file.flush()
