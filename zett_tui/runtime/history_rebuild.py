"""The model's memory of a session rebuilt from its transcript, when the history has lost it.

The history database is where the model's context comes from; the session's JSONL file is what
the user sees. When the database was damaged and set aside (``history_damage``), deleted, or
started fresh on another machine, a resumed session would go on with a model that remembers
nothing, although every turn is in its transcript. :func:`rebuild_history` puts the transcript's
messages back into the (empty) history, in order and redacted as the store redacts, before the
first request of the resumed session.

What the transcript holds beyond the history is left out: the text a cancelled or killed turn
had streamed (``sessions.live_turn``), and the repeated first part of a ``/continue`` turn.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any, Protocol

from zett_agent.messages import AnyMessage
from zett_agent.storage import decode_messages

from zett_tui.sessions.image_files import as_references
from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.reader import iter_records
from zett_tui.sessions.recorded_turns import is_partial, new_messages_of
from zett_tui.sessions.rewind_marks import mark_of

log = logging.getLogger(__name__)


class History(Protocol):
    async def count_messages(self, session_id: str) -> Any: ...

    async def append(self, session_id: str, request_id: str, message: AnyMessage) -> int: ...


def rebuilt_message(turns: int) -> str:
    return (
        f"The history had no record of this session, so the model's memory of it was rebuilt from "
        f"its transcript ({turns} turn{'s' if turns != 1 else ''})."
    )


async def rebuild_history(history: History, session_id: str, transcript: Path) -> int:
    """Fill an empty history of ``session_id`` from ``transcript``; returns how many turns went in
    (0 when the history has the session already, or the transcript has no turn)."""
    if await history.count_messages(session_id):
        return 0
    turns = await asyncio.to_thread(_turns_of, transcript)
    for request_id, messages in turns:
        for message in messages:
            await history.append(session_id, request_id, message)
    if turns:
        log.info("history of %s rebuilt from %s (%d turns)", session_id, transcript, len(turns))
    return len(turns)


def _turns_of(transcript: Path) -> list[tuple[str, list[AnyMessage]]]:
    """Each readable turn's request id and messages, as the history would have stored them; the
    damaged lines of ``transcript`` are skipped as the resumed screen skips them (and logged)."""
    notices = ReadNotices()
    turns: list[tuple[str, list[AnyMessage]]] = []
    previous = None
    for index, record in enumerate(iter_records(transcript, notices)):
        if mark_of(record.data) is not None:
            continue  # a rewind: its turns go in, and the history leaves them out of the context
        envelopes = [envelope for envelope in new_messages_of(record, previous) if not is_partial(envelope)]
        previous = record
        try:
            messages = decode_messages(json.dumps(as_references(envelopes))) if envelopes else []
        except Exception:  # one turn the runtime cannot read back; the others still count
            log.warning("turn %d of %s not put back into the history", index + 1, transcript, exc_info=True)
            continue
        request_id = record.data.get("request_id")
        turns.append(
            (request_id if isinstance(request_id, str) and request_id else f"rebuilt-{index}", messages)
        )
    notices.log(log)
    return [turn for turn in turns if turn[1]]
