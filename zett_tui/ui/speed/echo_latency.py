"""Keep a typed key's echo quick while an answer streams in.

Two waits stood between a key and its echo while the runtime kept the event loop busy
(``benchmarks/bench_app.py``, 58 KB answer, a key every 50 ms):

- **Textual's redraw grid.** A screen with changes is redrawn at most ``MAX_FPS`` times a second,
  on a fixed grid. The transcript redraws about 15 times a second while streaming; a key typed just
  after one of those frames waited for the next grid point: 17 ms at Textual's default 60, more when
  that frame's work ran late. On a 120 Hz grid the wait is at most 8 ms (headless echo median
  22 -> 3 ms, p95 30 -> 14 ms; the same number of frames and CPU). Frames are still drawn only when
  something changed. Textual reads the rate once (``TEXTUAL_FPS``); a rate the user set is kept.
- **The GIL.** Textual reads keys and writes frames in threads; while the event loop streams an
  answer it holds the GIL, and CPython hands it over only every 5 ms by default, several times per
  key: the input thread takes it back after ``select`` and again after ``os.read``, each time
  waiting a whole interval for the busy loop to let go. 1 ms cut the time from a key reaching zett
  to it being read by half in the pseudo-terminal benchmark; 0.2 ms (stop 46, ``bench_peers``'
  flood echo, three runs each way in turn): p95 14-19 ms against 28-36 ms, medians 2.1-4.5 against
  3.5-4.8 ms, the 58 KB answer's time within the runs' spread (2.07-2.68 s against 2.38-2.49 s).
"""

from __future__ import annotations

import os
import sys

#: Redraws per second at most.
FRAMES_PER_SECOND = 120
#: Seconds a thread may hold the GIL while another waits for it.
SWITCH_INTERVAL = 0.0002


def keep_echo_quick() -> None:
    """Set the redraw grid of screens made from now on, and the GIL switch interval."""
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
    if os.environ.get("TEXTUAL_FPS"):
        return
    from zett_tui.ui.textual_compat import redraw_period, set_redraw_period

    if redraw_period() > 1 / FRAMES_PER_SECOND:
        set_redraw_period(1 / FRAMES_PER_SECOND)
