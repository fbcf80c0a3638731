"""The session browser: every past session, a full-text search, a preview, resume/delete/export.

Nothing here waits on the disk in the event loop: the listing, each search and each preview run
in thread workers and post their results back as messages; only the handlers touch widgets.
A search is restarted when the query or the folder filter changes, after a short pause in
typing; its hits stream into the list (the search itself is ``browser.search``'s).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from zett_tui.core import paths
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.reader import ReadNotice
from zett_tui.sessions.scan import list_all_sessions
from zett_tui.ui.app_messages import OpenSession
from zett_tui.ui.browser.preview import PreviewPage, load_preview, paint_preview
from zett_tui.ui.browser.search import SearchProgress, SessionSearch
from zett_tui.ui.browser.session_actions import (
    Exported,
    busy_text,
    delete_after_asking,
    export_in_background,
    say_exported,
)
from zett_tui.ui.browser.status_lines import damage_status, listing_status, search_status
from zett_tui.ui.key_names import binding_label
from zett_tui.ui.speed.focus_repaint import focus_without_screen_repaint
from zett_tui.ui.speed.shown_rows import draw_only_changes
from zett_tui.ui.widgets.session_list import SessionList
from zett_tui.ui.widgets.session_rows import SessionRow, short_folder
from zett_tui.ui.widgets.transcript import NoticeBlock, Transcript

log = logging.getLogger(__name__)

#: Pause after the last keystroke before a search starts (seconds).
SEARCH_DEBOUNCE = 0.15
#: Pause after the cursor stops before the preview is read (seconds): painting a preview takes
#: tens of milliseconds, so a held-down arrow key paints only where it stops.
PREVIEW_DEBOUNCE = 0.12
#: Narrower than this, the preview is hidden and the list takes the whole width.
PREVIEW_MIN_WIDTH = 100


class SessionBrowser(Screen[None]):
    """Opened with Ctrl+O or ``/sessions``; Esc closes it."""

    DEFAULT_CSS = """
    SessionBrowser {
        layout: vertical;
        background: $background;
    }
    SessionBrowser > #search {
        border: round $primary 40%;
        background: $surface;
        padding: 0 1;
        height: 3;
    }
    SessionBrowser > #search:focus {
        border: round $primary;
    }
    SessionBrowser > #scope {
        color: $text-muted;
        padding: 0 1;
        height: 1;
    }
    SessionBrowser > #damage {
        color: $text-warning;
        padding: 0 1;
        height: auto;
        max-height: 2;
        display: none;
    }
    SessionBrowser > #damage.-shown {
        display: block;
    }
    SessionBrowser > #panes {
        height: 1fr;
    }
    SessionBrowser #sessions {
        width: 3fr;
        border-right: vkey $primary 30%;
    }
    SessionBrowser #preview {
        width: 2fr;
    }
    SessionBrowser.-narrow #preview {
        display: none;
    }
    SessionBrowser.-narrow #sessions {
        border-right: none;
    }
    SessionBrowser > #keys {
        color: $text-muted;
        background: $surface;
        padding: 0 1;
        height: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "resume", "Resume"),
        Binding("tab", "app.focus_next", "Next pane"),
        Binding("shift+tab", "app.focus_previous", "Previous pane", show=False),
        Binding("d", "delete", "Delete"),
        Binding("delete", "delete", "Delete", show=False),
        Binding("e", "export", "Export"),
        Binding("slash", "focus_search", "Search"),
        Binding("ctrl+a", "toggle_scope", "This folder / all", priority=True),
        Binding("escape", "close", "Close"),
        # The search box has no use for these: they move the list's cursor while typing.
        Binding("up", "move_cursor('cursor_up')", show=False),
        Binding("down", "move_cursor('cursor_down')", show=False),
        Binding("pageup", "move_cursor('page_up')", show=False),
        Binding("pagedown", "move_cursor('page_down')", show=False),
    ]

    focused = focus_without_screen_repaint()  # Tab between the panes repaints the two it moves between

    class Listed(Message):
        def __init__(self, summaries: list[SessionSummary], notices: list[ReadNotice]) -> None:
            super().__init__()
            self.summaries = summaries
            self.notices = notices

    class PreviewLoaded(Message):
        def __init__(self, generation: int, page: PreviewPage) -> None:
            super().__init__()
            self.generation = generation
            self.page = page

    def __init__(
        self,
        cwd: Path,
        *,
        current_session: Callable[[], str | None] = lambda: None,
        sessions_directory: Path | None = None,
        history_database: Path | None = None,
    ) -> None:
        super().__init__()
        draw_only_changes(self)  # drawn whole again as it opens: only what changed (speed/)
        self.cwd = cwd
        self.current_session = current_session
        self.history_database = history_database
        self.sessions_directory = (
            sessions_directory if sessions_directory is not None else paths.sessions_dir()
        )
        #: Every session (None until the listing arrives), most recent first.
        self.summaries: list[SessionSummary] | None = None
        self.all_folders = False
        self.search_text = ""
        self._folders = _folder_forms(cwd)
        self._by_id: dict[str, SessionSummary] = {}
        self._scope_note = ""
        #: The full-text search over the listed sessions.
        self.search = SessionSearch(self)
        self._search_timer: Timer | None = None
        self._preview_generation = 0
        self._preview_timer: Timer | None = None
        #: When the screen was created and the listing shown (for the benchmark).
        self.opened_at = time.perf_counter()
        self.listed_at: float | None = None

    # -- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        search = Input(placeholder="Search every session: prompts, answers, tool output…", id="search")
        search.border_title = "Sessions"
        yield search
        yield Static("Loading sessions…", id="scope", markup=False)
        yield Static("", id="damage", markup=False)
        with Horizontal(id="panes"):
            yield SessionList(id="sessions")
            yield Transcript(id="preview")
        yield Static("", id="keys", markup=False)

    @property
    def search_input(self) -> Input:
        return self.query_one("#search", Input)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def preview(self) -> Transcript:
        return self.query_one("#preview", Transcript)

    @property
    def scope_line(self) -> Static:
        return self.query_one("#scope", Static)

    @property
    def finished_query(self) -> str | None:
        """The query of the last search that ran to the end (tests and the benchmark wait on it)."""
        return self.search.finished_query

    @property
    def search_started_at(self) -> float | None:
        return self.search.started_at

    @property
    def first_hit_at(self) -> float | None:
        return self.search.first_hit_at

    @property
    def search_finished_at(self) -> float | None:
        return self.search.finished_at

    def on_mount(self) -> None:
        self.search_input.focus()
        self._show_key_help()
        self.run_worker(self._list_sessions, thread=True, group="listing", exit_on_error=False)

    def on_resize(self) -> None:
        narrow = self.size.width < PREVIEW_MIN_WIDTH
        if self.has_class("-narrow") != narrow:
            self.set_class(narrow, "-narrow")
            if not narrow and self.session_list.highlighted is not None:
                self._load_preview(self.session_list.highlighted)

    def on_unmount(self) -> None:
        self.search.stop()

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()
        self._show_key_help()

    def _show_key_help(self) -> None:
        """The key line, generated from the bindings that do something where the focus is."""
        parts = ["type to search · ↑↓ choose"] if self.focused is self.search_input else []
        for binding in self.BINDINGS:
            if isinstance(binding, Binding) and binding.show and self.check_action(binding.action, ()):
                parts.append(f"{binding_label(binding)} {binding.description.lower()}")
        self.query_one("#keys", Static).update(" · ".join(parts))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("delete", "export", "focus_search"):
            # Letters typed in the search box are part of the query, not commands.
            return self.focused is not self.search_input
        if action == "resume":
            return self.focused is not self.preview  # Enter there opens and closes a block
        return True

    # -- listing -------------------------------------------------------------------------------

    def _list_sessions(self) -> None:
        self.post_message(self.Listed(*list_all_sessions(self.sessions_directory)))

    @on(Listed)
    def _listed(self, message: Listed) -> None:
        self.summaries = message.summaries
        self._by_id = {summary.session_id: summary for summary in message.summaries}
        if self.summaries and not any(self._here(summary) for summary in self.summaries):
            self.all_folders = True
            self._scope_note = f"No sessions in {short_folder(str(self.cwd))} yet; showing all folders. "
        self._show_damage(message.notices)
        if self.search_text.strip():
            self._start_search()
        else:
            self._show_listing()
        self.listed_at = time.perf_counter()

    def _here(self, summary: SessionSummary) -> bool:
        return summary.cwd is not None and os.path.normpath(summary.cwd) in self._folders

    def scoped(self) -> list[SessionSummary]:
        """The sessions the filter shows: this folder's, or all."""
        summaries = self.summaries or []
        return summaries if self.all_folders else [summary for summary in summaries if self._here(summary)]

    def _show_listing(self) -> None:
        shown = self.scoped()
        keep = self.session_list.highlighted
        self.session_list.set_rows(
            [SessionRow(summary) for summary in shown],
            keep=keep.summary.session_id if keep is not None else None,
        )
        self._update_scope_line()
        if not shown:
            self._clear_preview(
                "No sessions here yet." if not self.summaries else "No sessions in this folder."
            )

    def _where(self) -> str:
        return "all folders" if self.all_folders else short_folder(str(self.cwd))

    def _update_scope_line(self) -> None:
        query = self.search_text.strip()
        if self.summaries and query:
            text = search_status(self.search, query, self._where())
        else:
            text = listing_status(self.summaries, len(self.scoped()), self._where(), self._scope_note)
        self.scope_line.update(text)

    def _show_damage(self, notices: list[ReadNotice]) -> None:
        damage = self.query_one("#damage", Static)
        text = damage_status(notices)
        if text:
            damage.update(text)
        damage.set_class(bool(text), "-shown")

    def action_toggle_scope(self) -> None:
        self.all_folders = not self.all_folders
        self._scope_note = ""
        if self.summaries is None:
            return
        if self.search_text.strip():
            self._start_search()
        else:
            self._show_listing()

    # -- search --------------------------------------------------------------------------------

    @on(Input.Changed, "#search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.search_text = event.value
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        if not self.search_text.strip():
            self.search.stop()
            if self.summaries is not None:
                self._show_listing()
            return
        self._search_timer = self.set_timer(SEARCH_DEBOUNCE, self._start_search)

    def _start_search(self) -> None:
        self._search_timer = None
        query = self.search_text.strip()
        self.search.stop()
        if self.summaries is None or not query:
            return
        self.search.start(query, self.scoped())
        self.session_list.set_rows([], two_line=True)
        self._update_scope_line()

    @on(SearchProgress)
    def _search_progress(self, message: SearchProgress) -> None:
        if not self.search.take(message, self._by_id, self.session_list, self.search_text.strip()):
            return
        if message.finished and not self.search.results:
            self._clear_preview(
                "Nothing matches. Ctrl+A searches every folder." if not self.all_folders else ""
            )
        self._update_scope_line()

    # -- preview -------------------------------------------------------------------------------

    @on(SessionList.Highlighted)
    def _highlighted(self, message: SessionList.Highlighted) -> None:
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_generation += 1
        if message.row is None:
            self._preview_timer = None
            return
        row = message.row
        self._preview_timer = self.set_timer(PREVIEW_DEBOUNCE, lambda: self._load_preview(row))

    def _load_preview(self, row: SessionRow) -> None:
        self._preview_timer = None
        if self.has_class("-narrow"):
            return
        generation = self._preview_generation

        def load() -> None:
            page = load_preview(row.summary, row.hit)
            self.post_message(self.PreviewLoaded(generation, page))

        self.run_worker(load, thread=True, group="preview", exit_on_error=False)

    @on(PreviewLoaded)
    def _preview_loaded(self, message: PreviewLoaded) -> None:
        if message.generation == self._preview_generation:
            paint_preview(self.preview, message.page)

    def _clear_preview(self, text: str) -> None:
        self._preview_generation += 1
        self.preview.clear()
        if text:
            self.preview.add(NoticeBlock(text, "info"))

    # -- actions -------------------------------------------------------------------------------

    def action_move_cursor(self, action: str) -> None:
        listing = self.session_list
        moves = {
            "cursor_up": listing.action_cursor_up,
            "cursor_down": listing.action_cursor_down,
            "page_up": listing.action_page_up,
            "page_down": listing.action_page_down,
        }
        moves[action]()

    def action_focus_search(self) -> None:
        self.search_input.focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#search")
    def _submitted(self, event: Input.Submitted) -> None:
        self.action_resume()

    @on(SessionList.Selected)
    def _selected(self, message: SessionList.Selected) -> None:
        self._resume(message.row.summary)

    def action_resume(self) -> None:
        row = self.session_list.highlighted
        if row is not None:
            self._resume(row.summary)

    def _resume(self, summary: SessionSummary) -> None:
        if summary.session_id == self.current_session():
            self.dismiss(None)
            self.app.notify("That is the session you are in.")
            return
        if summary.in_use:
            self.notify(busy_text(summary), severity="warning", markup=False)
            return
        self.search.stop()
        if summary.cwd and os.path.normpath(summary.cwd) not in self._folders:
            self.app.notify(
                f"This session was started in {short_folder(summary.cwd)}; zett works in "
                f"{short_folder(str(self.cwd))}.",
                markup=False,
            )
        self.post_message(OpenSession(summary.session_id, summary.path))

    def action_delete(self) -> None:
        row = self.session_list.highlighted
        if row is None:
            return
        summary = row.summary
        if summary.session_id == self.current_session():
            self.notify(
                "This is the session you are in; it cannot be deleted while open.", severity="warning"
            )
            return
        if summary.in_use:
            self.notify(busy_text(summary), severity="warning", markup=False)
            return
        self.run_worker(self._delete(summary), group="delete", exclusive=True, exit_on_error=False)

    async def _delete(self, summary: SessionSummary) -> None:
        history = self.history_database if self.history_database is not None else paths.history_db()
        if await delete_after_asking(self, summary, history):
            self._forget(summary)
            self.notify(f"Deleted session “{summary.title}”.", markup=False)

    def _forget(self, summary: SessionSummary) -> None:
        if self.summaries is not None:
            self.summaries = [item for item in self.summaries if item.session_id != summary.session_id]
        self._by_id.pop(summary.session_id, None)
        self.search.forget(summary.session_id)
        self.session_list.remove_session(summary.session_id)
        if not self.session_list.rows:
            self._clear_preview("")
        self._update_scope_line()

    def action_export(self) -> None:
        row = self.session_list.highlighted
        if row is None:
            return
        export_in_background(self, row.summary, list(self.summaries or [row.summary]), self.cwd)

    @on(Exported)
    def _exported(self, message: Exported) -> None:
        say_exported(self, message)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR:
            return
        error = event.worker.error
        log.error("session browser worker %s failed", event.worker.group, exc_info=error)
        self.notify(
            f"The session browser hit an error ({event.worker.group}): {error}",
            severity="error",
            markup=False,
        )


def _folder_forms(folder: Path) -> set[str]:
    """``folder`` as written and with links resolved, to compare with the folders sessions record."""
    written = os.path.normpath(os.fspath(folder))
    return {written, os.path.realpath(written)}
