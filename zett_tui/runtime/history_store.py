"""The conversation history the model context is restored from: zett-agent's SQLite storage,
redacted and able to ride out a disk that fails.

Five things are added around the database (``history_sqlite.HistoryDatabase``: zett-agent's
``SQLiteSessionStorage``, each turn's statements made directly):

- **Redaction.** Every message is stored as the :class:`~zett_tui.core.redact.Redactor` leaves it, so
  neither the database nor a context restored from it holds a credential. The runtime keeps the
  original message for the rest of the request (the screen is unchanged); the next request starts
  from the stored, redacted one. Signed provider blocks (``replay_blocks``) that a secret would have
  to be cut out of are dropped instead of altered: a changed block would be rejected.
- **Write faults.** A message that cannot be written (disk full, read-only, permission denied,
  database locked or damaged) is kept in memory, in order, and written before the next message once
  writing works again. ``load`` returns the stored dialogue plus what is waiting, so the model keeps
  its context; when the database cannot even be read, the last dialogue read plus everything since
  is returned. One warning is given when a fault starts, one note when saving works again
  (the queue and its writer: :mod:`~zett_tui.runtime.history_queue`).
- **Conversation rewinds** (``checkpoints``, ``sessions.rewind_marks``). The requests a rewind
  took out of the model's context stay stored, and ``load`` leaves them out, with any summary made
  of another conversation than the model's now (:mod:`~zett_tui.runtime.rewound_history`).
- **Reads of what is new.** Once a session was read whole, a ``load`` (every request makes one)
  reads only the rows stored since and takes the rest from the packed memory copy, when the
  database shows that copy is current (:mod:`~zett_tui.runtime.history_since`); the stored system
  messages no request restores are then left out of the view.
- **A damaged file at start.** :func:`~zett_tui.runtime.history_open.open_history` has the file checked before the runtime uses it
  (``history_damage``): a damaged one is set aside and a fresh history started.

Sequence numbers handed out for waiting messages are provisional: they are what the database will
give them as long as only this process writes the session, which the session lock ensures.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.extensions.compaction import CompactedMessage
from zett_agent.extensions.events import MessageTiming
from zett_agent.extensions.persistence import (
    BaseSessionPersistenceExtension,
    ContextSnapshot,
    RawMessageRecord,
    SessionView,
)
from zett_agent.ids import new_uuid7
from zett_agent.json_types import JsonValue
from zett_agent.messages import AnyMessage, AssistantMessage
from zett_agent.model import ModelUsage
from zett_agent.storage import decode_messages, encode_messages

from zett_tui.core.redact import redact_data
from zett_tui.runtime.history_faults import storage_fault
from zett_tui.runtime.history_images import HistoryImages
from zett_tui.runtime.history_queue import (
    KnownDialogue,
    Notify,
    WaitingAppend,
    WaitingSnapshot,
    WriteQueue,
    empty_view,
    with_waiting,
)
from zett_tui.runtime.history_since import load_since
from zett_tui.runtime.rewound_history import SUMMARY_NOTE, RewoundHistory, summary_note, without

log = logging.getLogger(__name__)

#: After a failed write, the next attempt waits this long, so a locked database does not stall
#: every message for SQLite's busy timeout.
RETRY_SECONDS = 10.0

#: Stored messages read per page when a summary's part of the history is read back.
_PAGE = 2_000


#: What :class:`HistoryStore` does with each public method of zett-agent's ``SQLiteSessionStorage``
#: (``tests/test_upstream_contracts.py`` fails on a method that is in none of these, so a write
#: method a later zett-agent adds cannot reach the database unredacted by being forwarded blindly).
#: Wrapped: redacted, queued while the disk fails, or both.
WRAPPED = frozenset({"load", "append", "snapshot", "close"})
#: Reads, passed to the database as they are.
FORWARDED = frozenset({"list_raw_messages", "list_sessions", "get_session", "count_messages"})
#: Not offered: writes that would skip redaction and the queue (``create_session``,
#: ``update_session``: a title or metadata; ``delete_session`` goes through ``sessions/manage.py``,
#: which holds the session's lock), a blocking view of the raw database (``sync``), and
#: constructors (``build_url``, ``for_*``).
NOT_FORWARDED = frozenset(
    {
        "create_session",
        "update_session",
        "delete_session",
        "sync",
        "build_url",
        "for_sqlite",
        "for_mysql",
        "for_postgres",
    }
)


class HistoryStore:
    """A ``SessionStorage`` over ``storage`` that redacts and keeps going when writes fail.

    Args:
        storage: The history database (``history_sqlite``), or zett-agent's ``SQLiteSessionStorage``
            (anything with ``load``/``append``/``snapshot``).
        redact: Applied to every string of every message before it is stored.
        notify: Called with ``(text, level)`` when saving stops and when it works again (on the
            event loop).
        retry_seconds: How long after a failure writing is tried again.
        clock: A monotonic clock (tests pass their own).
        images: Where image bytes are kept instead of in the rows (``runtime.history_images``);
            None keeps them in the rows.
    """

    def __init__(
        self,
        storage: Any,
        *,
        redact: Callable[[str], str],
        notify: Notify | None = None,
        retry_seconds: float = RETRY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        images: HistoryImages | None = None,
    ) -> None:
        self.storage = storage
        self.images = images
        self._redact = redact
        #: What could not be written yet (``history_queue``).
        self._queue = WriteQueue(
            storage,
            notify=notify or (lambda text, level: None),
            retry_seconds=retry_seconds,
            clock=clock,
            path=lambda: self.path,
        )
        self._known: dict[str, KnownDialogue] = {}
        #: The requests a conversation rewind took out of the model's context (``checkpoints``):
        #: they stay stored, and ``load`` leaves them out.
        self.hidden_requests: Callable[[str], Collection[str]] = lambda session_id: ()
        self._rewound = RewoundHistory()

    @property
    def path(self) -> Path | None:
        return getattr(self.storage, "path", None)

    @property
    def waiting(self) -> int:
        """How many messages (and snapshots) wait to be written."""
        return len(self._queue.waiting)

    @property
    def fault(self) -> str | None:
        """What stopped the last write (see :func:`storage_fault`); None while saving works."""
        return self._queue.fault

    # -- reads that go straight to the database (FORWARDED); nothing else does ---------------------

    async def list_raw_messages(self, *args: Any, **kwargs: Any) -> Any:
        return await self.storage.list_raw_messages(*args, **kwargs)

    async def list_sessions(self, *args: Any, **kwargs: Any) -> Any:
        return await self.storage.list_sessions(*args, **kwargs)

    async def get_session(self, session_id: str) -> Any:
        return await self.storage.get_session(session_id)

    async def count_messages(self, session_id: str) -> Any:
        return await self.storage.count_messages(session_id)

    async def load(self, session_id: str) -> SessionView:
        """The session's dialogue as the model sees it, with its stored images read back."""
        view = await self._load(session_id)
        images = self.images
        if images is None or not any(images.holds_images(record.message) for record in view.raw_tail):
            return view

        def loaded() -> list[RawMessageRecord]:  # reads the image files: off the event loop
            return [_with_message(record, images.loaded_form(record.message)) for record in view.raw_tail]

        return view.model_copy(update={"raw_tail": await asyncio.to_thread(loaded)})

    async def _load(self, session_id: str) -> SessionView:
        waited = any(operation.session_id == session_id for operation in self._queue.waiting)
        written = await self._queue.write_if_due()
        known = self._known.get(session_id)
        try:
            view = None
            if known is not None and not waited:  # the rows since the last load (``history_since``)
                view = await load_since(self.storage, session_id, known)
                if view is not None and self._known.get(session_id) is not known:
                    view = None  # replaced meanwhile: read it whole
            if view is None:
                view = self._with_waiting(session_id, await self.storage.load(session_id))
        except Exception as error:
            if storage_fault(error) is None:
                raise
            self._queue.failed(error)
            known = self._known.get(session_id)
            log.warning("history unreadable; using the %s copy", "memory" if known else "empty")
            view = known.as_view() if known is not None else self._with_waiting(session_id, empty_view())
            return without(view, frozenset(self.hidden_requests(session_id)))
        if written:
            self._queue.recovered()
        hidden = frozenset(self.hidden_requests(session_id))
        return await self._rewound.as_the_model_sees_it(session_id, view, hidden, self._raw_records)

    async def _raw_records(self, session_id: str, through: int) -> list[RawMessageRecord]:
        """The stored messages up to sequence ``through``, and those waiting to be written."""
        records: list[RawMessageRecord] = []
        while True:
            after = records[-1].sequence if records else 0
            page = await self.storage.list_raw_messages(
                session_id, after_sequence=after, through_sequence=through, limit=_PAGE
            )
            records.extend(page)
            if len(page) < _PAGE:
                break
        last = records[-1].sequence if records else 0
        for operation in self._queue.waiting:
            if not isinstance(operation, WaitingAppend) or operation.session_id != session_id:
                continue
            if last < operation.record.sequence <= through:
                records.append(operation.record)
        return records

    def _with_waiting(self, session_id: str, view: SessionView) -> SessionView:
        """``view`` plus what waits to be written; remembered as the memory copy (the database's
        through its last record when nothing waits: the next load reads only what follows)."""
        known = KnownDialogue.from_view(view, self._known.get(session_id))
        waiting = [operation for operation in self._queue.waiting if operation.session_id == session_id]
        if not waiting:
            known.read_through = known.last_sequence
        for operation in waiting:
            known.apply(operation)
        self._known[session_id] = known
        return with_waiting(view, waiting)

    async def append(
        self,
        session_id: str,
        request_id: str,
        message: AnyMessage,
        timing: MessageTiming | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        agent_name: str | None = None,
        metadata: Mapping[str, JsonValue] | None = None,
        tags: Mapping[str, JsonValue] | None = None,
        usage: ModelUsage | None = None,
    ) -> int:
        if self.images is not None and self.images.holds_images(message):
            # first: redaction never reads an image's base64; the file is written off the loop
            message = await asyncio.to_thread(self.images.stored_form, message)
        stored = self.redact_message(message)
        timing = timing or MessageTiming.instant()
        options: dict[str, Any] = {
            "parent_session_id": parent_session_id,
            "title": self._redact(title) if title is not None else None,
            "agent_name": agent_name,
            "metadata": redact_data(dict(metadata or {}), self._redact),
            "tags": redact_data(dict(tags or {}), self._redact),
            "usage": usage,
        }
        known = self._known.setdefault(session_id, KnownDialogue(empty_view()))
        if await self._queue.write_if_due():
            try:
                sequence = int(await self.storage.append(session_id, request_id, stored, timing, **options))
            except Exception as error:
                if storage_fault(error) is None:
                    raise
                self._queue.failed(error)
            else:
                known.add(_record(session_id, request_id, sequence, stored, timing, options))
                self._queue.recovered()
                return sequence
        sequence = known.last_sequence + 1
        record = _record(session_id, request_id, sequence, stored, timing, options)
        self._queue.add(WaitingAppend(session_id, request_id, stored, timing, options, record))
        known.add(record)
        return sequence

    async def snapshot(
        self,
        session_id: str,
        compacted_message: CompactedMessage,
        compacted_through_sequence: int,
        expected_version: int,
    ) -> ContextSnapshot:
        stored = self.redact_message(compacted_message)
        assert isinstance(stored, CompactedMessage)
        known = self._known.get(session_id)
        latest = known.snapshot if known is not None else None
        expected_version = self._rewound.expected_version(session_id, expected_version)
        note = summary_note(self.hidden_requests(session_id), compacted_through_sequence)
        if latest is not None and compacted_through_sequence <= latest.compacted_through_sequence:
            # The storage takes only a boundary past the previous one: the messages in between
            # are read back by ``load`` (``through``).
            compacted_through_sequence = latest.compacted_through_sequence + 1
        stored = dataclasses.replace(stored, attributes={**stored.attributes, SUMMARY_NOTE: note})
        if await self._queue.write_if_due():
            try:
                result: ContextSnapshot = await self.storage.snapshot(
                    session_id, stored, compacted_through_sequence, expected_version
                )
            except Exception as error:
                if storage_fault(error) is None:
                    raise
                self._queue.failed(error)
            else:
                self._known.setdefault(session_id, KnownDialogue(empty_view())).compact(result)
                self._rewound.summarized(session_id)
                self._queue.recovered()
                return result
        now = datetime.now(UTC)
        result = ContextSnapshot(
            id=new_uuid7(),
            session_id=session_id,
            version=expected_version + 1,
            compacted_message=stored,
            compacted_through_sequence=compacted_through_sequence,
            created_at=now,
            updated_at=now,
        )
        self._rewound.summarized(session_id)
        operation = WaitingSnapshot(session_id, stored, compacted_through_sequence, expected_version, result)
        self._queue.add(operation)
        self._known.setdefault(session_id, KnownDialogue(empty_view())).apply(operation)
        return result

    async def flush(self) -> bool:
        """Try to write what waits now, whatever the retry delay; True when nothing is left."""
        return await self._queue.flush()

    async def close(self) -> None:
        if self._queue.waiting and not await self.flush():
            log.error("%d history records could not be saved before closing", len(self._queue.waiting))
        await self.storage.close()

    def redact_message(self, message: Any) -> Any:
        """``message`` as it is stored: every string redacted; the same object when nothing changed."""
        [encoded] = json.loads(encode_messages([message]))
        data = encoded["data"]
        redacted = redact_data(data, self._redact)
        if redacted == data:
            return message
        if redacted.get("replay_blocks") != data.get("replay_blocks"):
            redacted["replay_blocks"] = []  # signed: altered blocks would be refused, so drop them
        return decode_messages(json.dumps([{"kind": encoded["kind"], "data": redacted}]))[0]


def _with_message(record: RawMessageRecord, message: AnyMessage) -> RawMessageRecord:
    return record if message is record.message else dataclasses.replace(record, message=message)


def _record(
    session_id: str,
    request_id: str,
    sequence: int,
    message: AnyMessage,
    timing: MessageTiming,
    options: Mapping[str, Any],
) -> RawMessageRecord:
    """The record ``load`` shows for a message, before or after the database has it."""
    usage: ModelUsage | None = options.get("usage") if isinstance(message, AssistantMessage) else None
    now = datetime.now(UTC)
    return RawMessageRecord(
        id=new_uuid7(),
        session_id=session_id,
        request_id=request_id,
        sequence=sequence,
        message=message,
        metadata=dict(options.get("metadata") or {}),
        tags=dict(options.get("tags") or {}),
        started_at=timing.started_at,
        completed_at=timing.completed_at,
        duration_ns=timing.duration_ns,
        reasoning_started_at=timing.reasoning_started_at,
        reasoning_completed_at=timing.reasoning_completed_at,
        reasoning_duration_ns=timing.reasoning_duration_ns,
        content_started_at=timing.content_started_at,
        content_completed_at=timing.content_completed_at,
        content_duration_ns=timing.content_duration_ns,
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
        cache_read_tokens=usage.cache_read_tokens if usage else None,
        cache_write_tokens=usage.cache_write_tokens if usage else None,
        reasoning_tokens=usage.reasoning_tokens if usage else None,
        created_at=now,
        updated_at=now,
    )


class HistoryExtension(BaseSessionPersistenceExtension[HistoryStore]):
    """zett-agent's session persistence over a :class:`HistoryStore`; register it first."""

    name = "SQLiteSessionExtension"

    async def on_state(self, context: AgentRunContext) -> None:
        """A subagent's run (``runtime.subagents``) is one request with nothing to restore, and it
        is kept in its parent turn's line: its messages are not stored here (no restore, no
        appends: nothing of it lands in the database, and its steps cost no writes)."""
        if context.config.parent_session_id is not None:
            return
        await super().on_state(context)

    async def close(self) -> None:
        await self.storage.close()


# -- opening ------------------------------------------------------------------------------------
