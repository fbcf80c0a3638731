"""Fork a session: a new session that starts with a copy of another's transcript and context.

Used when the session asked for is being written by another zett: the copy can go on without
ever interleaving writes with the original.
"""

from __future__ import annotations

import json
from pathlib import Path

from zett_tui.core import paths
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.naming import session_path
from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.reader import iter_records


async def fork_session(
    summary: SessionSummary, new_session_id: str, *, sessions_directory: Path, history_database: Path
) -> Path:
    """Copy ``summary``'s turns and model context into ``new_session_id``; returns the new file."""
    from zett_agent.storage import SQLiteSessionStorage

    notices = ReadNotices()  # a damaged line is not copied (nor kept in memory per line)
    target = session_path(sessions_directory, new_session_id)
    lines = []
    for record in iter_records(summary.path, notices):
        data = dict(record.data)
        data["session_id"] = new_session_id
        data["parent_session_id"] = summary.session_id
        lines.append(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    paths.ensure_private_dir(sessions_directory)
    paths.write_private_text(target, "".join(line + "\n" for line in lines))

    storage = SQLiteSessionStorage(history_database)
    try:
        view = await storage.load(summary.session_id)
        for message in view.messages:
            await storage.append(new_session_id, "fork", message)
    finally:
        await storage.close()
    return target
