"""The session id the status line shows: one that ``--resume`` and ``zett sessions`` accept."""

from __future__ import annotations

import logging
from pathlib import Path

from zett_tui.core import paths
from zett_tui.sessions.ids import short_id_for
from zett_tui.sessions.scan import list_all_sessions

log = logging.getLogger(__name__)


def shown_session_id(session_id: str, directory: str | Path | None = None) -> str:
    """``session_id``'s shortest unique prefix among the stored sessions; blocking (it lists them).

    When the sessions cannot be listed the whole id is shown: longer, but still one zett accepts.
    """
    folder = Path(directory) if directory is not None else paths.sessions_dir()
    try:
        summaries, _notices = list_all_sessions(folder)
    except OSError:
        log.warning("sessions not listed for the status line", exc_info=True)
        return session_id
    return short_id_for(session_id, summaries)
