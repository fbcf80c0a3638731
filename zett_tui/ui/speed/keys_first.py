"""While a typed key is on its way to the prompt, the screen's next frame waits for it.

A key reaches the prompt in four turns of the event loop (the driver's thread hands it over, the
app's queue takes it, the app forwards it, the prompt handles it and draws it at once:
``key_echo``); it is counted from the driver's thread, before the first of them. While an answer streams, the screen's update timer fires up to 120 times a second,
and a frame of the transcript that fired in one of those turns held the key for its whole length:
in ``benchmarks/bench_stream_hops.py`` the frames were the largest share of what keys waited
behind (12 of ~30 ms a key, loaded machine), ahead of the prompt's own handling.

So from the moment the app takes a key for the prompt (a character or Backspace: Esc, Ctrl+C, Enter
and the like go to bindings or act at once) until the prompt has handled it, the chat
screen's update timer skips its ticks (``ChatScreen._on_timer_update``); the timer keeps running,
and the first tick after the key draws what waited, the key's change too if it could not be drawn
at once. The transcript's updates (rendering what streamed in, ``Transcript.hold_updates``) wait
the same way. Nothing is dropped, only moved back by a few milliseconds. A key that never reaches
the prompt (a binding took it) holds them back for ``MAX_HOLD`` seconds at most.
"""

from __future__ import annotations

import itertools
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget

#: The longest a key holds the screen's frames back, in seconds.
MAX_HOLD = 0.02
#: The longest a key counts as pending for other threads, in seconds: a frame drawn meanwhile (the
#: first is ~50 ms) can keep the loop from the key for longer than ``MAX_HOLD``.
MAX_PENDING = 0.1


class KeysInFlight:
    """Whether a key taken for the prompt has not been handled by it yet.

    ``arrived`` is called in the terminal driver's input thread, the rest on the event loop: the
    arrivals are numbered by an ``itertools.count`` (whose ``next`` is atomic), and only the loop
    writes how many were handled.
    """

    def __init__(self) -> None:
        self._numbers = itertools.count(1)
        self._arrived = 0
        self._handled = 0
        self._since = 0.0
        #: Frames put off for a key (for tests and benchmarks).
        self.frames_held = 0
        #: The prompt (set once it is mounted): keys count only while it has the focus.
        self.prompt: Widget | None = None

    def arrived(self) -> None:
        """A key arrived (from any thread): counted when the prompt has the focus. A key for the
        find bar or a dialog must not hold the chat's frames back, nor wait for the prompt. Before
        the prompt is mounted every key is for it (the app holds them until it has the focus)."""
        prompt = self.prompt
        if prompt is not None and not prompt.has_focus:
            return
        self._since = time.perf_counter()
        self._arrived = next(self._numbers)

    def handled(self) -> None:
        """The prompt handled a key (or a paste)."""
        self._handled = min(self._handled + 1, self._arrived)

    def waiting(self) -> bool:
        """True while a key taken for the prompt has not reached it (for ``MAX_HOLD`` at most)."""
        arrived = self._arrived
        if self._handled >= arrived:
            return False
        if time.perf_counter() - self._since > MAX_HOLD:
            self._handled = arrived  # taken by something else (a binding): nothing waits for it longer
            return False
        return True

    def pending(self) -> bool:
        """Like ``waiting``, but only reads, and for ``MAX_PENDING``: for other threads (the
        warm-up's imports step aside meanwhile, ``import_pauses``)."""
        return self._handled < self._arrived and time.perf_counter() - self._since <= MAX_PENDING

    def hold_frame(self) -> bool:
        """True when the screen's frame due now should wait for a key (and counts it)."""
        if not self.waiting():
            return False
        self.frames_held += 1
        return True
