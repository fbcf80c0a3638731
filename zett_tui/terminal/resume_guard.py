"""SIGCONT resumes the terminal only after zett itself was suspended. No Textual import.

Textual's terminal driver puts the terminal back into application mode on *every* SIGCONT: it
starts a second writer thread and a second input thread beside the first ones. After Ctrl+Z and
``fg`` that is right (the first ones were stopped on SIGTSTP). Any other SIGCONT (``kill -CONT``,
the one the kernel sends with a terminal's hang-up) leaves two threads reading the same terminal:
an arrow key's bytes split between them arrive as Escape and letters, and on a dead terminal both
spin. :func:`resume_only_after_suspend` wraps the driver's two handlers so that a SIGCONT reaches
it only after a SIGTSTP did.
"""

from __future__ import annotations

import signal
from types import FrameType


def resume_only_after_suspend() -> bool:
    """Wrap the SIGTSTP and SIGCONT handlers installed now (call it in the main thread once the
    terminal driver exists); False when there is nothing to wrap."""
    if not (hasattr(signal, "SIGTSTP") and hasattr(signal, "SIGCONT")):
        return False
    on_stop, on_continue = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
    if not callable(on_stop) or not callable(on_continue):
        return False
    suspended = False

    def stopped(number: int, frame: FrameType | None) -> None:
        nonlocal suspended
        suspended = True  # before: the handler stops the process, and SIGCONT wakes it inside
        on_stop(number, frame)

    def continued(number: int, frame: FrameType | None) -> None:
        nonlocal suspended
        if not suspended:
            return
        suspended = False
        on_continue(number, frame)

    signal.signal(signal.SIGTSTP, stopped)
    signal.signal(signal.SIGCONT, continued)
    return True
