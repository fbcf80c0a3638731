"""Reading sessions for the browser in worker threads: the listing and a streamed search. No Textual.

Both run off the event loop; what they find goes back through a callback that posts a message.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from zett_tui.sessions.index import SessionIndex, SessionSummary
from zett_tui.sessions.reader import ReadNotice
from zett_tui.sessions.search import SearchHit, search_sessions

#: Hits are sent to the screen at most this often (the first one at once).
HIT_BATCH_SECONDS = 0.05

#: ``post(hits, sessions searched, sessions to search, finished)``
PostHits = Callable[[list[SearchHit], int, int, bool], object]


class HitBatch:
    """Search hits and progress on their way from the search thread to the screen, sent at most
    every :data:`HIT_BATCH_SECONDS` (the first hit at once) so a common word does not flood the
    event loop with one message per hit."""

    def __init__(self, post: PostHits) -> None:
        self.post = post
        self.hits: list[SearchHit] = []
        self.done = 0
        self.total = 0
        self.sent_at = 0.0

    def add(self, hit: SearchHit) -> None:
        self.hits.append(hit)
        self._send_if_due()

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        self._send_if_due()

    def _send_if_due(self) -> None:
        if time.monotonic() - self.sent_at >= HIT_BATCH_SECONDS:
            self.send()

    def send(self, *, finished: bool = False) -> None:
        hits, self.hits = self.hits, []
        self.post(hits, self.total if finished else self.done, self.total, finished)
        self.sent_at = time.monotonic()


_INDEXES: dict[Path, SessionIndex] = {}
_INDEXES_LOCK = threading.Lock()


def list_all_sessions(directory: Path) -> tuple[list[SessionSummary], list[ReadNotice]]:
    """Every session in ``directory`` and what could not be read. Blocking: call from a thread.

    One index per folder is kept for the life of the process, so opening the browser again reuses
    what the first listing read instead of parsing the index cache file again; a lock keeps two
    listings (a browser closed and opened again quickly, ``/export``) from sharing it at once.
    """
    with _INDEXES_LOCK:
        index = _INDEXES.get(directory)
        if index is None:
            index = _INDEXES[directory] = SessionIndex(directory)
        return index.list_sessions(), list(index.notices)


def forget_listings() -> None:
    """Drop the indexes kept in memory (the benchmark measures a first opening with it)."""
    with _INDEXES_LOCK:
        _INDEXES.clear()


def stream_search(
    query: str,
    targets: list[SessionSummary],
    cancel: threading.Event,
    post: PostHits,
    *,
    per_session_limit: int | None = None,
) -> None:
    """Search ``targets`` for ``query``, sending hits and progress to ``post`` in batches; the
    last call has ``finished`` set, unless ``cancel`` stopped the search. Blocking."""
    batch = HitBatch(post)
    batch.total = len(targets)
    hits = search_sessions(
        query, targets, cancel=cancel, per_session_limit=per_session_limit, on_progress=batch.progress
    )
    for hit in hits:
        batch.add(hit)
    if not cancel.is_set():
        batch.send(finished=True)
