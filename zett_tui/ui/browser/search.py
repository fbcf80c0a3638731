"""The session browser's full-text search: one search at a time, streamed, stopped when replaced.

A search reads the session files in a thread worker (``sessions.scan.stream_search``) and posts
its hits back in small batches, the first one at once; the batches land in the browser's list
here, one row per session with its matching turns counted. A new query or folder filter stops the
running search through its ``threading.Event``, and a generation number drops the batches a
stopped search had already posted. The screen decides when a search starts (after a pause in
typing), what the preview says, and when the scope line (``status_lines``) says how it goes.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from textual.message import Message
from textual.screen import Screen

from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.scan import stream_search
from zett_tui.sessions.search import SearchHit
from zett_tui.ui.widgets.session_list import SessionList
from zett_tui.ui.widgets.session_rows import SessionRow

#: Matching turns counted per session; a search for a common word stops reading a file there.
MATCHES_PER_SESSION = 50


class SearchProgress(Message):
    """A batch of hits from the search of ``generation``, and how far it has read."""

    def __init__(self, generation: int, hits: list[SearchHit], done: int, total: int, finished: bool) -> None:
        super().__init__()
        self.generation = generation
        self.hits = hits
        self.done = done
        self.total = total
        self.finished = finished


class SessionSearch:
    """The search of one browser screen: its worker, its cancellation, and the rows it found."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._cancel: threading.Event | None = None
        self._generation = 0
        #: True from the start of a search until its last batch (or until it is stopped).
        self.running = False
        #: The rows found so far, by session id.
        self.results: dict[str, SessionRow] = {}
        #: Sessions read, of how many, by the current search.
        self.searched = (0, 0)
        #: The query of the last search that ran to the end (tests and the benchmark wait on it).
        self.finished_query: str | None = None
        #: When the last search started, showed its first hit and finished (for the benchmark).
        self.started_at: float | None = None
        self.first_hit_at: float | None = None
        self.finished_at: float | None = None

    def stop(self) -> None:
        """Stop the running search; batches it already posted are dropped."""
        if self._cancel is not None:
            self._cancel.set()
            self._cancel = None
        self._generation += 1
        self.running = False

    def start(self, query: str, targets: list[SessionSummary]) -> None:
        """Stop any search, then search ``targets`` for ``query`` in a thread worker."""
        self.stop()
        cancel = threading.Event()
        self._cancel = cancel
        self.results = {}
        self.searched = (0, len(targets))
        self.running = True
        self.started_at = time.perf_counter()
        self.first_hit_at = None
        generation = self._generation
        self._screen.run_worker(
            lambda: self._search(generation, query, targets, cancel),
            thread=True,
            group="search",
            exit_on_error=False,
        )

    def _search(
        self, generation: int, query: str, targets: list[SessionSummary], cancel: threading.Event
    ) -> None:
        """Runs in a thread: hits go to the screen in small batches, the first one at once."""

        def post(hits: list[SearchHit], done: int, total: int, finished: bool) -> None:
            self._screen.post_message(SearchProgress(generation, hits, done, total, finished))

        stream_search(query, targets, cancel, post, per_session_limit=MATCHES_PER_SESSION)

    def take(
        self, message: SearchProgress, by_id: dict[str, SessionSummary], listing: SessionList, query: str
    ) -> bool:
        """Show a batch of hits in ``listing``; False when it belongs to a search since stopped.

        ``query`` is what the search box holds now: it becomes ``finished_query`` with the last batch.
        """
        if message.generation != self._generation:
            return False
        added: list[SessionRow] = []
        for hit in message.hits:
            row = self.results.get(hit.session_id)
            if row is not None:
                row.matching_turns += 1
                row.counting_stopped = row.matching_turns >= MATCHES_PER_SESSION
                index = listing.index_of(hit.session_id)
                if index is not None:
                    listing.row_changed(index)
                continue
            summary = by_id.get(hit.session_id)
            if summary is not None:
                row = SessionRow(summary, hit, 1)
                self.results[hit.session_id] = row
                added.append(row)
        listing.extend(added)
        if added and self.first_hit_at is None:
            self.first_hit_at = time.perf_counter()
        self.searched = (message.done, message.total)
        if message.finished:
            self.running = False
            self.finished_query = query
            self.finished_at = time.perf_counter()
            self._cancel = None
        return True

    def forget(self, session_id: str) -> None:
        """A deleted session is no longer a result."""
        self.results.pop(session_id, None)
