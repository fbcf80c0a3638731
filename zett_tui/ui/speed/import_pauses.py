"""The warm-up's import thread steps aside, module by module, while a typed key waits.

After the first frame zett imports the rest of itself in a thread (``deferred_imports``), about 1.5 s
of module bodies that hold the GIL. The event loop and Textual's input thread get it back only at
each switch interval, after every select and every write; a key needs several of those on its way to
the prompt. Keys typed while zett started reached the prompt about 12 ms apart, and the prompt showed
them (frames wait for typed keys, ``keys_first``) 400-700 ms after they were typed
(``benchmarks/bench_app.py --only startup``, "echo during warm-up").

So the import thread checks, before each module it has not imported yet, whether a key is on its
way to the prompt, and sleeps (without the GIL) until it is handled, for ``MAX_PAUSE`` at most
(a key may be taken by something else, or the loop may need a module this thread is importing).

The check sits in an audit hook on the ``import`` event, which CPython raises before it looks a
module up and before it takes any import lock; a meta-path finder is asked under the global import
lock, so sleeping there would stall every import the loop makes. Audit hooks cannot be removed: the
hook installed once stays a cheap no-op outside the import thread.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator

#: The longest the import thread waits for one key to reach the prompt, in seconds.
MAX_PAUSE = 0.05
#: How often a pausing import thread looks again, in seconds.
POLL = 0.001

#: The thread that pauses, and what tells it a key waits (None: nothing pauses).
_pausing: tuple[int, Callable[[], bool]] | None = None
_installed = False
_install_lock = threading.Lock()


@contextlib.contextmanager
def imports_step_aside(key_waiting: Callable[[], bool]) -> Iterator[None]:
    """In this thread, while inside: each new module waits first while ``key_waiting()`` is true
    (called from this thread, so it must only read)."""
    global _pausing
    _install()
    _pausing = (threading.get_ident(), key_waiting)
    try:
        yield
    finally:
        _pausing = None


def _install() -> None:
    global _installed
    with _install_lock:
        if not _installed:
            sys.addaudithook(_on_audit_event)
            _installed = True


def _on_audit_event(event: str, _args: tuple[object, ...]) -> None:
    """Called for every audited event in every thread: returns at once unless it is the pausing
    thread about to import a module."""
    pausing = _pausing
    if pausing is None or event != "import" or threading.get_ident() != pausing[0]:
        return
    key_waiting = pausing[1]
    deadline = time.monotonic() + MAX_PAUSE
    while key_waiting() and time.monotonic() < deadline:
        time.sleep(POLL)
