"""Stopping a turn: first at its next event, then where it waits, again if it ignores that.

The host runs each turn in a task of its own and, when its caller is cancelled, hands that task
to ``stop_turn``. No Textual here.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from zett_tui.runtime.events import ToolFinished, ToolsStarted, UIEvent

log = logging.getLogger(__name__)

#: How long a cancelled turn may take to reach its next event before it is cancelled where it waits.
STOP_AT_EVENT_SECONDS = 0.05
#: A cancelled turn still running after this many more seconds is cancelled again (see ``stop_turn``).
RECANCEL_AFTER_SECONDS = 0.1


@dataclass
class TurnState:
    """What the host's turn loop and its turn task share: a stop request, and the tools now running."""

    stop_requested: bool = False
    tools_running: set[str] = field(default_factory=set)

    def observe(self, event: UIEvent) -> None:
        if isinstance(event, ToolsStarted):
            self.tools_running.update(call.call_id for call in event.calls)
        elif isinstance(event, ToolFinished):
            self.tools_running.discard(event.call_id)


async def stop_turn(turn: asyncio.Future[Any], state: TurnState) -> None:
    """Wait for ``turn`` to stop at its next event; cancel it if none comes; repeat if it ignores that.

    On Python 3.11, ``asyncio.wait_for`` (which zett-agent uses to bound each wait for the model's
    next chunk) drops a cancellation that arrives just as the chunk does (CPython gh-86296, fixed
    in 3.12). The runtime then goes on producing events that nobody reads and waits for ever; a
    second request lands in that wait. It is not repeated while a tool runs: a tool's clean-up
    (stopping its process) may take a while and must not be cut short.
    """
    if (await asyncio.wait({turn}, timeout=STOP_AT_EVENT_SECONDS))[0]:
        return
    turn.cancel()
    while not (await asyncio.wait({turn}, timeout=RECANCEL_AFTER_SECONDS))[0]:
        if not state.tools_running:
            log.warning("the turn ignored a cancellation; cancelling it again")
            turn.cancel()
