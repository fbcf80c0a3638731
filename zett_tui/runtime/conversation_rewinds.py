"""Which turns a conversation rewind took out of the model's context, for one session.

A rewind deletes nothing: it appends a mark to the session file (``sessions.rewind_marks``), and
each later request leaves the rewound turns out of the history it sends. The marks are read back
when a session is resumed; sessions rewound before marks were written fall back to the checkpoint
record's list.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from zett_tui.sessions.rewind_marks import RewoundTurns, read_rewound

if TYPE_CHECKING:
    from zett_tui.checkpoints.journal import TurnRecord
    from zett_tui.runtime.recorder import TurnRecorder

#: The checkpoint record's rewound turns (None: the session has no checkpoints).
RecordedRewinds = Callable[[], Callable[[], Collection[str]] | None]


class ConversationRewinds:
    """The rewound turns of ``session_id``: loaded, marked, and left out of requests."""

    def __init__(self, session_id: Callable[[], str], recorded: RecordedRewinds) -> None:
        self._session_id = session_id
        self._recorded = recorded
        self.turns = RewoundTurns()

    async def load(self, transcript: Path) -> None:
        """The marks the session file holds (read in a thread: the file can be large)."""
        self.turns = await asyncio.to_thread(read_rewound, transcript)

    def hidden(self) -> Collection[str]:
        """The turns out of the model's context (``RewoundTurns.hidden``)."""
        return self.turns.hidden(self._recorded())

    async def mark(self, record: TurnRecord, recorder: TurnRecorder | None) -> None:
        """A rewind changed which turns the model sees: mark it in the session file (nothing there
        is deleted), and the next request leaves them out (or has them back)."""
        session_id = self._session_id()
        mark = self.turns.rewind(
            session_id,
            target=record.target or "",
            rewound=record.hidden_requests,
            restored=record.restored_requests,
            recorded=self._recorded(),
        )
        if recorder is not None:
            await recorder.append_record(session_id, mark)
