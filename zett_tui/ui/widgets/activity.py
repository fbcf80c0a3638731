"""The busy indicator: a spinner while work goes on, never a frozen one.

With animations on, the owning widget is refreshed 8 times a second only while busy (no timer at
all while idle). With animations off (``App.animation_level == "none"``, set from the
``ui.animations`` setting or ``TEXTUAL_ANIMATIONS``) no timer is started and the indicator is a
still "●": a spinner that stops turning reads as a hung app.
"""

from __future__ import annotations

import time

from textual.geometry import Region
from textual.timer import Timer
from textual.widget import Widget

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FRAMES_PER_SECOND = 8
BUSY_STILL = "●"
IDLE = "○"


class ActivitySpinner:
    """Owned by one widget, whose ``render`` asks for ``glyph()``; ``set_busy`` starts and stops it."""

    def __init__(
        self,
        widget: Widget,
        *,
        frames: str = SPINNER_FRAMES,
        fps: float = FRAMES_PER_SECOND,
        cell: Region | None = None,
    ) -> None:
        """``cell``: where in ``widget`` (its content) the glyph is drawn, when nothing else there
        changes with time: each turn repaints only that cell (the status line's 120 columns were
        written 8 times a second for one character); None: the whole widget."""
        self.widget = widget
        self.frames = frames
        self.fps = min(fps, FRAMES_PER_SECOND)
        self.busy = False
        self.cell = cell
        self._timer: Timer | None = None

    @property
    def animated(self) -> bool:
        return self.widget.app.animation_level != "none"

    @property
    def running(self) -> bool:
        """A timer is refreshing the widget."""
        return self._timer is not None

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        if busy and self._timer is None and self.animated:
            self._timer = self.widget.set_interval(1 / self.fps, self._turn, name="activity-spinner")
        elif not busy and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _turn(self) -> None:
        if self.cell is None:
            self.widget.refresh()
        else:
            self.widget.refresh(self.cell)

    def glyph(self) -> str:
        """The character to show now: a spinner frame, the still busy dot, or the idle circle."""
        if not self.busy:
            return IDLE
        if self._timer is None:
            return BUSY_STILL
        return self.frames[int(time.monotonic() * self.fps) % len(self.frames)]
