"""Draw a typed key's change to the prompt at once, not at the screen's next frame.

Textual draws a change in steps, each a turn of the event loop: the prompt handles the key and
marks itself for a repaint; once its message queue is empty it tells the screen (a message); the
screen, once idle, wakes its update timer; the timer's next tick (on a 120 Hz grid,
``echo_latency``) sends the screen a message; that message draws the frame. While an answer
streams, every one of those turns waits behind the runtime's and the transcript's work in the
loop's queue, so a key's echo waited for several of them (``benchmarks/bench_peers.py --echo-only``:
a median of 15 ms against 6 ms for a terminal UI that draws at once).

So once the prompt has handled a key (or a paste) it draws its own region there and then, as the
timer would have: the same compositor, the same partial update, the terminal driver's writer
thread. Only a plain repaint of the prompt is drawn so (``textual_compat.paint_now``): a change that
needs a layout (the box grows a line), a scroll or a style refresh is left to the next frame, as
is everything else on the screen, whose frames keep their own pace. A burst of keys (a fast
typist, keys queued behind a long step) draws at most once every ``MIN_GAP`` seconds; the keys in
between are drawn by the next frame, as before.
"""

from __future__ import annotations

import time

from textual.widget import Widget

from zett_tui.ui.textual_compat import paint_now

#: Seconds between two immediate echoes at least (the frame timer draws what comes between).
MIN_GAP = 0.004


class KeyEcho:
    """Draws one widget's change right after a key, at most once every ``MIN_GAP`` seconds."""

    def __init__(self, widget: Widget) -> None:
        self.widget = widget
        self._last = float("-inf")
        #: Immediate echoes drawn (for tests and benchmarks).
        self.drawn = 0

    def after_input(self) -> bool:
        """Call once the widget has handled a key or a paste: draws it now when it can."""
        now = time.perf_counter()
        if now - self._last < MIN_GAP:
            return False
        if not paint_now(self.widget):
            return False
        self._last = now
        self.drawn += 1
        return True
