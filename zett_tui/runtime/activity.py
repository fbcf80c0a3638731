"""What a session is doing, as the status line says it: the session core sets it
(``runtime.session``), the chat binds it to its status line. Imports nothing, so the chat's first
frame can show it.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Activity", "describe_activity"]


class Activity(StrEnum):
    """What the session is doing; the value is how the status line says it."""

    STARTING = "starting…"
    IDLE = "idle"
    THINKING = "thinking"
    #: The model's answer is arriving.
    WRITING = "writing"
    #: Tools run (``tools`` names them), or the turn goes on after an answer.
    WORKING = "working"
    WAITING = "waiting for you"
    COMPACTING = "compacting"
    NOT_READY = "not ready"
    #: Another process writes this session: nothing is sent from here.
    READ_ONLY = "read-only"


def describe_activity(activity: Activity, tools: str = "") -> str:
    """The status line's words: ``running bash, grep`` while named tools run."""
    return f"running {tools}" if activity is Activity.WORKING and tools else activity.value
