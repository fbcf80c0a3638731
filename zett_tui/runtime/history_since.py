"""The history's load read as the rows stored since the last one, not the whole dialogue again.

zett-agent restores a session's context at the start of every request with ``storage.load``: the
whole dialogue read back from SQLite, each request's stored system messages included (some 3.7 KB
packed a turn, more than the turn's dialogue), into ORM rows, JSON and records. Its cost grew
with every turn (5.6 MB at turn 100, 11.2 MB at turn 200 in ``bench_growth --turn-peaks``), and the
memory those reads filled stayed fragmented around the few objects that outlived the turn.

``HistoryStore`` already keeps the dialogue as last read, packed (``history_queue.KnownDialogue``,
``packed_records``). When that copy is the database's up to a sequence (``read_through``), a load
reads only what was stored after it and unpacks the rest: the records the request needs, nothing
read twice, no system message decoded. The copy is checked against the database first, so it is
used only while it is what ``load`` would give: the session's row (its message count must be the
last sequence: sequences run 1, 2, 3... in a session), its latest snapshot (the storage's
``latest_snapshot_id``: another zett may have compacted a session this one had open before), and
the new rows, which must follow on. Anything else (a copy never read whole, writes waiting for the
disk, a storage that cannot read its latest snapshot alone, a session deleted or written elsewhere
in ways that do not add up) gives ``None``, and the caller reads the whole dialogue as before.
"""

from __future__ import annotations

from typing import Any

from zett_agent.extensions.persistence import RawMessageRecord, SessionView

from zett_tui.runtime.history_queue import KnownDialogue

#: Stored messages read per page.
_PAGE = 2_000


async def load_since(storage: Any, session_id: str, known: KnownDialogue) -> SessionView | None:
    """What ``storage.load(session_id)`` gives, from ``known`` and the rows stored after its
    ``read_through``; ``known`` takes those rows in place of its own. None when ``known`` cannot be
    shown to be current (then nothing is changed).

    Raises what the storage's reads raise (the caller treats a storage fault as a failed load).
    """
    after = known.read_through
    if after is None:
        return None
    snapshot = known.snapshot
    read_snapshot = getattr(storage, "latest_snapshot_id", None)
    if not callable(read_snapshot):
        return None  # zett-agent's own storage, say: it cannot be checked without a whole load
    stored_snapshot = await read_snapshot(session_id)
    if stored_snapshot != (snapshot.id if snapshot is not None else None):
        return None
    summary = await storage.get_session(session_id)
    stored = await _rows_after(storage, session_id, after)
    last = stored[-1].sequence if stored else after
    if [record.sequence for record in stored] != list(range(after + 1, last + 1)):
        return None
    if summary is None:
        if last or len(known.records) or snapshot is not None:
            return None  # deleted since: the whole (empty) load says so
        return known.as_view()
    if summary.message_count != last or known.snapshot is not snapshot:
        return None  # rows not where they should be, or a compaction meanwhile
    session = SessionView.model_construct(
        parent_session_id=summary.parent_session_id,
        session_type=summary.session_type,
        title=summary.title,
        agent_name=summary.agent_name,
        snapshot=None,
        raw_tail=[],
    )
    known.take_stored(session, after, stored)
    return known.as_view()


async def _rows_after(storage: Any, session_id: str, after: int) -> list[RawMessageRecord]:
    records: list[RawMessageRecord] = []
    while True:
        start = records[-1].sequence if records else after
        page = await storage.list_raw_messages(session_id, after_sequence=start, limit=_PAGE)
        records.extend(page)
        if len(page) < _PAGE:
            return records
