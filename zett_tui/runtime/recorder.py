"""The turn recorder: zett-agent's ``JSONLExtension`` with private files, redaction, and a disk
that may fail.

The upstream extension creates files with the process umask; transcripts hold code, so every
session file is created 0600 inside a 0700 folder, and an existing looser file is tightened
before it is appended to. Each line is redacted leaf by leaf before it is written, and its images
are stored once each beside the session files (``sessions.image_files``), named in the line.

A line that cannot be written (disk full, read-only folder, permission denied) never fails the
turn: it is kept in memory and written, in order, before the next line. A failed write is cut
back off the file, so what was written before stays intact. The user hears of it once when it
starts and once when saving works again.

Where lines are written: zett-agent writes a turn's line by calling ``_append_line`` in a worker
thread (``asyncio.to_thread``), so that one stays blocking. The lines zett writes itself (rewind
and checklist marks: :meth:`TurnRecorder.append_record`) and the retry of waiting lines
(:meth:`TurnRecorder.write_waiting`) come from the event loop and are written with ``aiofiles``.
Both ways go through one queue under one lock, so lines reach the file whole and in order.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.extensions.events import ExtensionEvent, RunCancelledEvent
from zett_agent.extensions.jsonl import JSONLExtension
from zett_agent.messages import AssistantMessage, UserMessage

from zett_tui.core.line_append import append_whole, append_whole_async
from zett_tui.core.redact import Redactor as _Rules
from zett_tui.core.redact import redact_json_line
from zett_tui.core.thread_lock import held_off_loop
from zett_tui.runtime.turn_journal import TurnJournal
from zett_tui.sessions.image_files import externalized_line, images_folder

log = logging.getLogger(__name__)

Redactor = Callable[[str], str]
#: ``notify(text, level)``; called from the thread or the loop that writes, so it must be thread-safe.
Notify = Callable[[str, str], None]

RECOVERED = "The session transcript is being saved again."


class TurnRecorder(JSONLExtension):
    """Appends one JSON line per turn (completed, failed or cancelled) to the session's file."""

    def __init__(
        self,
        directory: Path,
        redact: Redactor | None = None,
        notify: Notify | None = None,
        *,
        journal_interval: float | None = None,
    ) -> None:
        super().__init__(directory)
        self.name = "JSONLExtension"
        self._redact: Redactor = redact or _Rules()
        self._notify: Notify = notify or (lambda text, level: None)
        self._unsaved: list[tuple[Path, bytes]] = []
        self._failing = False
        #: One event-loop writer at a time waits for ``_write_lock`` (in the executor), so writers
        #: from the loop never hold more than one executor thread waiting for it.
        self._loop_writer = asyncio.Lock()
        #: The turn in progress on disk until its line is written (``runtime.turn_journal``).
        self.journal = TurnJournal(self.session_path, self._redact, interval=journal_interval)
        #: What the turn's subagents did, by ``task`` call (``SubagentRunner.take_records``).
        self.subagent_records: Callable[[str], dict[str, Any]] = lambda session_id: {}
        #: The main run in progress, held until its line is written (``finish_cut_short``): the
        #: runtime's own record of it is keyed weakly, and may be gone with the run.
        self._running: AgentRunContext | None = None

    async def before_run(self, context: AgentRunContext) -> None:
        if context.config.parent_session_id is not None:
            return  # a subagent's run: it is recorded in its parent's line (``runtime.subagents``)
        await super().before_run(context)
        self._running = context
        prompt = context.input_message or next(
            (item for item in reversed(context.state.messages) if isinstance(item, UserMessage)), None
        )
        if prompt is None:
            return
        try:
            await self.journal.begin(context, prompt, datetime.now(UTC))
        except Exception:  # never into the runtime: the turn runs without its journal
            log.warning("the turn journal could not start", exc_info=True)

    async def on_success(self, context: AgentRunContext, result: AssistantMessage) -> None:
        self._note_subagents(context)
        await super().on_success(context, result)
        self._ended(context)

    async def on_error(self, context: AgentRunContext, error: Exception) -> None:
        self._note_subagents(context)
        await super().on_error(context, error)
        self._ended(context)

    async def on_event(self, context: AgentRunContext, event: ExtensionEvent) -> None:
        if isinstance(event, RunCancelledEvent):
            self._note_subagents(context)
            await super().on_event(context, event)
            self._ended(context)
            return
        await super().on_event(context, event)

    def _ended(self, context: AgentRunContext) -> None:
        if self._running is context:
            self._running = None

    async def finish_cut_short(self) -> bool:
        """Write the line of a main run that ended without the runtime writing it, as cancelled;
        True when there was one. Called by the host once a cancelled turn has stopped.

        The runtime writes a cancelled run's line from its cancellation notice, which it sends
        while the run is torn down; a teardown that hangs is cut short at a limit
        (``runtime.turn_stop.TEARDOWN_LIMIT_SECONDS``), which can end that notice before it
        reaches this extension, and the turn would be missing from the transcript. Never raises."""
        context, self._running = self._running, None
        if context is None or context not in self._pending:
            return False
        log.warning("the runtime never recorded the cancelled turn; zett records it")
        self._note_subagents(context)
        try:
            await asyncio.shield(self._finalize(context, status="cancelled"))
        except Exception:
            log.exception("the cut-short turn could not be recorded")
        return True

    def _note_subagents(self, context: AgentRunContext) -> None:
        """The turn's subagent runs into its line, only now: the request's metadata goes into the
        history with every message, and a run can be long."""
        if context.config.parent_session_id is not None:
            return
        try:
            records = self.subagent_records(context.session_id)
        except Exception:
            log.warning("the subagents' runs could not be added to the turn's line", exc_info=True)
            return
        if records:
            zett = context.metadata.get("zett")
            if not isinstance(zett, dict):
                zett = context.metadata["zett"] = {}
            zett["subagents"] = records

    @property
    def unsaved(self) -> int:
        """How many turn lines wait in memory for the disk."""
        return len(self._unsaved)

    def _append_line(self, path: Path, line: str) -> None:
        """A turn's line, from zett-agent's worker thread: redacted, queued, written (blocking)."""
        try:
            streamed = self.journal.streamed_envelope()
            if streamed is not None:  # cancelled or failed mid-stream: keep what was shown
                line = _with_message(line, streamed)
            line = externalized_line(line, images_folder(path))
            data = (redact_json_line(line, self._redact) + "\n").encode("utf-8")
        except Exception:  # never into the runtime: a turn must not fail for its record
            log.exception("turn record could not be prepared; it is not saved")
            self._notify("This turn could not be saved in the session transcript (see the log).", "warning")
            self.journal.end(remove=False)  # the journal keeps the turn until zett is next started
            return
        with self._write_lock:
            self._unsaved.append((path, data))
            written = self._write_unsaved()
        self.journal.end(remove=written)

    async def append_record(self, session_id: str, record: dict[str, Any]) -> bool:
        """Append one line zett writes itself (a rewind mark: ``sessions.rewind_marks``), redacted,
        in order with the turns; True when it is on disk (else it waits, as a turn's line would)."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        data = (redact_json_line(line, self._redact) + "\n").encode("utf-8")
        return await self._shielded_write((self.session_path(session_id), data))

    async def write_waiting(self) -> bool:
        """Write the lines that wait for the disk, now; True when none is left."""
        return await self._shielded_write(None)

    async def _shielded_write(self, line: tuple[Path, bytes] | None) -> bool:
        """Queue ``line`` (if any) and write the queue. Shielded: a cancelled caller does not stop
        a write half way (the line would be written again, or the lock kept)."""
        return await asyncio.shield(asyncio.ensure_future(self._write_from_loop(line)))

    async def _write_from_loop(self, line: tuple[Path, bytes] | None) -> bool:
        # _write_lock is the lock a turn's line holds in zett-agent's thread
        async with self._loop_writer, held_off_loop(self._write_lock):
            if line is not None:
                self._unsaved.append(line)
            while self._unsaved:
                path, data = self._unsaved[0]
                try:
                    await append_whole_async(path, data)
                except Exception as error:
                    self._write_failed(error, path)
                    return False
                self._unsaved.pop(0)
            self._all_written()
            return True

    def _write_unsaved(self) -> bool:
        """The waiting lines, written from a thread that holds ``_write_lock``."""
        while self._unsaved:
            path, data = self._unsaved[0]
            try:
                append_whole(path, data)
            except Exception as error:
                self._write_failed(error, path)
                return False
            self._unsaved.pop(0)
        self._all_written()
        return True

    def _write_failed(self, error: Exception, path: Path) -> None:
        log.warning("turn record not written (%d waiting): %s", len(self._unsaved), error)
        if not self._failing:
            self._failing = True
            self._notify(_fault_message(error, path), "warning")

    def _all_written(self) -> None:
        if self._failing:
            self._failing = False
            self._notify(RECOVERED, "info")


def _with_message(line: str, envelope: dict[str, Any]) -> str:
    """``line`` (a turn record) with one more message envelope at the end."""
    record = json.loads(line)
    record["messages"].append(envelope)
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _fault_message(error: BaseException, path: Path) -> str:
    kept = "The turn is kept in memory and written with the next one once writing works again."
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"The disk is full, so the session transcript cannot be saved. {kept}"
    reason = error.strerror if isinstance(error, OSError) and error.strerror else type(error).__name__
    return f"zett cannot write the session transcript {path} ({reason}). {kept}"
