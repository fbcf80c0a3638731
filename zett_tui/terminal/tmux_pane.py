"""Whether the tmux pane zett runs in is on a screen in front of someone, asked of tmux itself.

tmux hands focus events to the app only with ``set -g focus-events on``. Without them zett cannot
tell a pane in a hidden window from the one the user is typing in, so it asks:
``tmux display -p -t $TMUX_PANE '#{pane_active}#{window_active}#{session_attached}'``. No Textual
here; :func:`pane_in_view` waits for tmux (at most :data:`TIMEOUT_SECONDS`), so call it off the
UI thread.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Callable, Mapping

from zett_tui.core.outside_programs import find_program

log = logging.getLogger(__name__)

__all__ = ["FORMAT", "TIMEOUT_SECONDS", "pane_in_view", "parse_answer"]

TIMEOUT_SECONDS = 1.0
FORMAT = "#{pane_active}#{window_active}#{session_attached}"

Runner = Callable[[list[str]], str | None]
"""Runs a command; its stdout, or None when it failed or took too long."""


def _run(command: list[str]) -> str | None:
    try:
        completed = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as error:
        log.info("could not ask tmux about the pane: %s", error)
        return None
    return completed.stdout if completed.returncode == 0 else None


def parse_answer(answer: str) -> bool | None:
    """``"111"`` (active pane of the active window of a session with one client) is in view; a
    ``0`` in the first two places, or no client attached, is not; anything else: None (unknown)."""
    answer = answer.strip()
    if len(answer) < 3 or answer[0] not in "01" or answer[1] not in "01" or not answer[2:].isdigit():
        return None
    return answer[0] == "1" and answer[1] == "1" and int(answer[2:]) > 0


def pane_in_view(
    env: Mapping[str, str],
    *,
    which: Callable[[str], str | None] = find_program,
    runner: Runner = _run,
) -> bool | None:
    """True when zett's pane is the active one of the active window of an attached session,
    False when it is not, None when that cannot be known (not in tmux, no tmux, no answer)."""
    pane = env.get("TMUX_PANE", "")
    tmux = which("tmux") if env.get("TMUX") and pane else None
    if tmux is None:
        return None
    answer = runner([tmux, "display-message", "-p", "-t", pane, FORMAT])
    return None if answer is None else parse_answer(answer)
