"""Fork a session: a new session that starts with a copy of another's transcript and context.

Used when the session asked for is being written by another zett: the copy can go on without
ever interleaving writes with the original.

The copy's model context is the original's as its model sees it now: the turns a conversation
rewind took out (``sessions.rewind_marks``) stay out. The history keeps each message's request
id, so the copied rewind marks name the same turns in the fork as in the original; a session
rewound before marks existed (only its checkpoint record says so) gets one mark in the fork.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zett_tui.core import paths
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.meta import mark_fork
from zett_tui.sessions.naming import session_path
from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.reader import iter_records
from zett_tui.sessions.rewind_marks import RewoundTurns, mark_of, mark_record

#: The request id the fork files the original's summary (a compaction's checkpoint) under.
SUMMARY_REQUEST = "fork"


async def fork_session(
    summary: SessionSummary,
    new_session_id: str,
    *,
    sessions_directory: Path,
    history_database: Path,
    checkpoints_directory: Path | None = None,
) -> Path:
    """Copy ``summary``'s turns and model context into ``new_session_id``; returns the new file."""
    from zett_tui.runtime.history_images import HistoryImages
    from zett_tui.runtime.history_open import history_database as database
    from zett_tui.runtime.history_store import HistoryStore
    from zett_tui.sessions.image_files import images_folder

    notices = ReadNotices()  # a damaged line is not copied (nor kept in memory per line)
    target = session_path(sessions_directory, new_session_id)
    lines: list[dict[str, Any]] = []
    marked = False
    for record in iter_records(summary.path, notices):
        data = dict(record.data)
        marked = marked or mark_of(data) is not None
        data["session_id"] = new_session_id
        data["parent_session_id"] = summary.session_id
        lines.append(data)
    rewound = _rewound_in_original(summary, lines, marked, checkpoints_directory)
    if not marked and rewound:
        mark = mark_record(new_session_id, target="", rewound=rewound, restored=())
        lines.append(mark | {"parent_session_id": summary.session_id})
    paths.ensure_private_dir(sessions_directory)
    text = "".join(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n" for data in lines)
    paths.write_private_text(target, text)
    mark_fork(target, summary.session_id, summary.title)

    storage = HistoryStore(
        database(history_database),
        redact=lambda text: text,
        images=HistoryImages(images_folder(target)),  # the fork names its parent's image files
    )
    storage.hidden_requests = lambda session_id: rewound
    try:
        view = await storage.load(summary.session_id)  # what the original's model sees now
        if view.snapshot is not None and view.snapshot.compacted_message.include_in_messages:
            await storage.append(new_session_id, SUMMARY_REQUEST, view.snapshot.compacted_message)
        for item in view.raw_tail:
            await storage.append(new_session_id, item.request_id, item.message)
    finally:
        await storage.close()
    return target


def _rewound_in_original(
    summary: SessionSummary, lines: list[dict[str, Any]], marked: bool, checkpoints_directory: Path | None
) -> frozenset[str]:
    """The original's turns out of its model's context: its marks, else its checkpoint record."""
    if marked:
        found = RewoundTurns()
        for data in lines:
            mark = mark_of(data)
            if mark is not None:
                found.apply(mark)
        return frozenset(found.rewound)
    if not summary.cwd:
        return frozenset()
    from zett_tui.checkpoints.journal import CheckpointJournal
    from zett_tui.checkpoints.store import project_key

    root = checkpoints_directory or paths.checkpoints_dir()
    try:
        return CheckpointJournal(root / project_key(Path(summary.cwd)), summary.session_id).hidden_requests()
    except OSError:
        return frozenset()
