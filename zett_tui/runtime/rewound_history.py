"""The stored history as the model sees it after conversation rewinds.

A rewind (``checkpoints``, ``sessions.rewind_marks``) takes requests out of the model's context;
they stay stored, and a load leaves them out. A compaction's summary records which requests were
out when it was made (``attributes["zett"]``): a summary made of another conversation than the
model's now (it holds a turn rewound since, or lacks one put back) is not used, the stored messages
are given instead, and the next compaction summarizes only what the model sees. zett-agent's
storage only takes a summary whose boundary is past the previous one's, so a summary that ends
before it is stored with a later boundary and its own in ``attributes["zett"]["through"]``; a load
reads the messages in between.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from zett_agent.extensions.persistence import ContextSnapshot, RawMessageRecord, SessionView

from zett_tui.runtime.history_faults import storage_fault

log = logging.getLogger(__name__)

#: The key of zett's note in a summary's attributes.
SUMMARY_NOTE = "zett"

#: Reads the stored messages of a session up to a sequence number (inclusive).
ReadThrough = Callable[[str, int], Awaitable[list[RawMessageRecord]]]


def summary_note(hidden: Collection[str], through: int) -> dict[str, Any]:
    """The note a summary is stored with: the requests out of the context, its own boundary."""
    return {"hidden": sorted(hidden), "through": through}


def without(view: SessionView, hidden: Collection[str]) -> SessionView:
    """``view`` without the messages of the ``hidden`` requests."""
    if not hidden:
        return view
    kept = [record for record in view.raw_tail if record.request_id not in hidden]
    return view.model_copy(update={"raw_tail": kept})


def read_summary_note(snapshot: ContextSnapshot | None) -> tuple[frozenset[str], int]:
    """What a summary's note says: the requests out of the context when it was made, and the
    last sequence it summarized (the stored boundary when it has no note, or a damaged one)."""
    if snapshot is None:
        return frozenset(), 0
    boundary = snapshot.compacted_through_sequence
    note = snapshot.compacted_message.attributes.get(SUMMARY_NOTE)
    if not isinstance(note, dict):
        return frozenset(), boundary
    hidden = note.get("hidden")
    through = note.get("through")
    made_with = (
        frozenset(item for item in hidden if isinstance(item, str))
        if isinstance(hidden, list)
        else frozenset()
    )
    if isinstance(through, int) and not isinstance(through, bool) and 0 < through <= boundary:
        return made_with, through
    return made_with, boundary


class RewoundHistory:
    """Per store: which summaries were found sound for which rewinds, and which sessions were
    last loaded without their summary (the next compaction replaces that summary's version)."""

    def __init__(self) -> None:
        #: Sessions ``load`` gave without their summary (made before a rewind): its version.
        self._unsummarized: dict[str, int] = {}
        #: (summary, rewound requests) found to be of the conversation the model sees.
        self._sound: set[tuple[Any, frozenset[str]]] = set()

    def expected_version(self, session_id: str, given: int) -> int:
        """The summary version a new compaction replaces: the one ``load`` left out, if any."""
        if given == 0 and session_id in self._unsummarized:
            return self._unsummarized[session_id]
        return given

    def summarized(self, session_id: str) -> None:
        """A new summary was stored for ``session_id``."""
        self._unsummarized.pop(session_id, None)

    async def as_the_model_sees_it(
        self, session_id: str, view: SessionView, hidden: frozenset[str], read_through: ReadThrough
    ) -> SessionView:
        """``view`` without the rewound requests, and without a summary made of another
        conversation than the model's now (see the module docstring)."""
        self._unsummarized.pop(session_id, None)
        snapshot = view.snapshot
        made_with, through = read_summary_note(snapshot)
        plain = snapshot is not None and through == snapshot.compacted_through_sequence
        if snapshot is None or (
            plain and ((not hidden and not made_with) or (snapshot.id, hidden) in self._sound)
        ):
            return without(view, hidden)
        try:
            earlier = await read_through(session_id, snapshot.compacted_through_sequence)
        except Exception as error:
            if storage_fault(error) is None:
                raise
            log.warning("the summarized part of the history is unreadable; the summary is used as it is")
            return without(view, hidden)
        covered = {record.request_id for record in earlier if record.sequence <= through}
        if hidden & covered == made_with & covered:
            if plain:  # the next load of this summary with these turns rewound reads nothing more
                self._sound.add((snapshot.id, hidden))
            between = [record for record in earlier if record.sequence > through]
            shown = snapshot.model_copy(update={"compacted_through_sequence": through})
            return without(
                view.model_copy(update={"snapshot": shown, "raw_tail": [*between, *view.raw_tail]}), hidden
            )
        log.info(
            "session %s: its summary predates a rewind; the stored messages are used instead", session_id
        )
        self._unsummarized[session_id] = snapshot.version
        return without(
            view.model_copy(update={"snapshot": None, "raw_tail": [*earlier, *view.raw_tail]}), hidden
        )
