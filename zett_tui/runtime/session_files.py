"""Everything one session keeps on disk, opened and closed together: the writer lock, the turn
transcript (with the turn in progress), the history database, and the retry that saves them all
once a data folder that could not be written works again (``runtime.storage_retry``).

The host asks for the lock first (:meth:`SessionFiles.claim`, before the model is built, so a
session another zett has open is refused at once), then for the rest (:meth:`open`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zett_tui.runtime.events import ContextMeasured, Notice
from zett_tui.runtime.recorder import Redactor, TurnRecorder
from zett_tui.runtime.storage_retry import LockSlot, StorageRetry, retry_session_writes
from zett_tui.sessions.lock import LockUnavailable

log = logging.getLogger(__name__)

#: How far back from the end of the transcript the last turn's context figure is looked for: far
#: more than a turn takes (one with a few screenshots is a few MB), while a file that ends in
#: damage costs a fraction of a second (past it, the history's estimate stands in).
CONTEXT_SEARCH_BYTES = 16 * 1024 * 1024

Notify = Callable[[str, str], None]


class SessionFiles:
    """The files of ``session_id`` in ``sessions`` (with ``history_db`` beside them)."""

    def __init__(self, sessions: Path, history_db: Path, session_id: str, notify: Notify) -> None:
        self.sessions = sessions
        self.history_db = history_db
        self.session_id = session_id
        self._notify = notify
        #: Retries what could not be written; its ``failing`` says whether something waits.
        self.storage = StorageRetry(sessions.parent, notify)
        self.lock = LockSlot(sessions, session_id)
        self.recorder: TurnRecorder | None = None
        #: The history extension (``runtime.history_open``); None until :meth:`open`.
        self.history: Any = None

    async def claim(self) -> None:
        """Take the session's writer lock; a folder that cannot hold it starts the in-memory spell.

        Taking it reads and writes the session file (a torn last line ended, a killed zett's
        unfinished turn added to it: ``sessions.lock.claim_session``), a batch of blocking calls
        that runs in a thread. Cancelled meanwhile, the lock is given back once it is had.

        Raises:
            SessionBusy: another zett has the session.
        """
        claiming = asyncio.ensure_future(asyncio.to_thread(self.lock.claim))
        try:
            unavailable = await asyncio.shield(claiming)
        except asyncio.CancelledError:
            claiming.add_done_callback(self._release_if_claimed)
            raise
        if unavailable is not None:
            self.storage.report(unavailable)
        self.storage.guard_with(self.lock)

    def _release_if_claimed(self, claiming: asyncio.Future[LockUnavailable | None]) -> None:
        if not claiming.cancelled() and claiming.exception() is None:
            self.lock.release()

    async def open(self, redact: Redactor, *, resumed: bool) -> list[Notice]:
        """Open the history and the transcript and start the retry; returns what to tell the user
        (a history rebuilt from the transcript of a ``resumed`` session)."""
        from zett_tui.runtime.history_open import open_history
        from zett_tui.sessions.image_files import images_in

        self.history = await open_history(
            self.history_db,
            redact=redact,
            notify=self._notify,
            store_notify=self.storage.relay,
            images=images_in(self.sessions),
        )
        self.recorder = TurnRecorder(self.sessions, redact, notify=self.storage.relay)
        said = await self._rebuild_history_if_lost() if resumed else []
        retry_session_writes(
            self.storage, self.sessions, recorder=self.recorder, history=self.history.storage
        )
        self.storage.start()
        return said

    @property
    def transcript(self) -> Path:
        assert self.recorder is not None
        return self.recorder.session_path(self.session_id)

    async def _rebuild_history_if_lost(self) -> list[Notice]:
        """A history with no record of this session (set aside when damaged, deleted) is filled
        from the session's transcript, so the model still knows what happened."""
        from zett_tui.runtime.history_rebuild import rebuild_history, rebuilt_message

        try:
            turns = await rebuild_history(self.history.storage, self.session_id, self.transcript)
        except Exception:  # the session still runs; the model starts without its earlier turns
            log.warning("the history could not be rebuilt from the transcript", exc_info=True)
            return []
        return [Notice(rebuilt_message(turns), "info")] if turns else []

    async def retry_after_turn(self) -> None:
        """What waits for the disk is tried at each turn's end (a cancelled turn leaves it to the timer)."""
        if self.storage.failing:
            await self.storage.retry_now()

    def recorded_context(self, model_label: str, window: int) -> ContextMeasured | None:
        """The context figure the session's last recorded turn in the model's context kept; counted by another model's
        tokenizer, it is an estimate now. Blocking: it reads the end of the transcript."""
        from zett_tui.sessions.recorded_turns import last_turn_in_context, turn_view

        if self.recorder is None:
            return None
        try:
            # damage: said on screen; after a rewind, the last turn still in the model's context
            record = last_turn_in_context(self.transcript, CONTEXT_SEARCH_BYTES)
        except OSError:
            return None
        if record is None:
            return None
        figure = turn_view(record).context
        if figure is None:
            return None
        tokens, estimated = figure
        same_model = record.zett.get("model") == model_label
        return ContextMeasured(tokens, window, estimated=estimated or not same_model)

    async def aclose(self) -> None:
        """Save what waits (once more), close the history, release the lock; safe to call twice."""
        if not await self.storage.aclose():
            log.error("zett could not save everything of session %s before closing", self.session_id)
        history, self.history = self.history, None
        # without the lock another zett may be writing the session: nothing is written from here
        if self.recorder is not None and self.recorder.unsaved and self.lock.settled:
            await self.recorder.write_waiting()
        if history is not None:
            with contextlib.suppress(Exception):
                await history.close()
        self.lock.release()
