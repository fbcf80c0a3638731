"""The session browser's list: one row per session (two with a search match), drawn line by line.

A Line-API widget rather than an ``OptionList``: OptionList measures every option when options
are added or the width changes, which is a noticeable pause at 1,000 sessions; here only the rows
on screen are drawn, and appending a search result costs nothing until it scrolls into view. The
first line is a column header that stays put while the rows scroll.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from zett_tui.ui.widgets.session_rows import (
    Columns,
    Piece,
    SessionRow,
    header_pieces,
    plan_columns,
    row_pieces,
    snippet_pieces,
)

_ROLES = ("header", "title", "muted", "completed", "cancelled", "failed", "snippet", "match")


class SessionList(ScrollView, can_focus=True):
    """Sessions, most recent first; a cursor row that posts :class:`Highlighted` when it moves."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *(f"session-list--{role}" for role in _ROLES),
        "session-list--cursor",
        "session-list--cursor-blurred",
    }

    DEFAULT_CSS = """
    SessionList {
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        & > .session-list--header { color: $text-muted; text-style: bold; }
        & > .session-list--title { color: $text; }
        & > .session-list--muted { color: $text-muted; }
        & > .session-list--completed { color: $text-success; }
        & > .session-list--cancelled { color: $text-warning; }
        & > .session-list--failed { color: $text-error; }
        & > .session-list--snippet { color: $text-muted; }
        & > .session-list--match { color: $text; background: $warning 35%; text-style: bold; }
        & > .session-list--cursor { background: $primary 35%; }
        & > .session-list--cursor-blurred { background: $primary 15%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("enter", "select", "Resume", show=False),
    ]

    class Highlighted(Message):
        """The cursor moved to ``row`` (None when the list became empty)."""

        def __init__(self, row: SessionRow | None) -> None:
            super().__init__()
            self.row = row

    class Selected(Message):
        """Enter (or a double click) on ``row``."""

        def __init__(self, row: SessionRow) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[SessionRow] = []
        self._positions: dict[str, int] = {}
        self._cursor: int | None = None
        self._two_line = False
        self._columns: tuple[int, Columns] | None = None
        self._styles: dict[str, Style] | None = None
        self._home = os.path.expanduser("~")
        #: What "3 h ago" is measured from; set when rows are replaced.
        self.now = datetime.now(UTC)

    # -- data ----------------------------------------------------------------------------------

    @property
    def rows(self) -> Sequence[SessionRow]:
        return self._rows

    @property
    def row_height(self) -> int:
        return 2 if self._two_line else 1

    @property
    def cursor(self) -> int | None:
        return self._cursor

    @property
    def highlighted(self) -> SessionRow | None:
        return self._rows[self._cursor] if self._cursor is not None else None

    def set_rows(
        self, rows: Sequence[SessionRow], *, two_line: bool = False, keep: str | None = None
    ) -> None:
        """Replace every row; the cursor stays on session ``keep`` when it is still listed."""
        self._rows = list(rows)
        self._positions = {row.summary.session_id: index for index, row in enumerate(self._rows)}
        self._two_line = two_line
        self._columns = None
        self.now = datetime.now(UTC)
        cursor = self._positions.get(keep) if keep is not None else None
        if cursor is None and self._rows:
            cursor = 0
        self._update_size()
        self.scroll_to(y=0, animate=False, immediate=True)
        self._move_cursor(cursor, force=True)
        self.refresh()

    def extend(self, rows: Sequence[SessionRow]) -> None:
        """Add rows at the end (new search results); the first row gets the cursor."""
        if not rows:
            return
        if len(self._rows) < 200:
            self._columns = None  # fit the columns to the first results; later ones fit what is there
        for row in rows:
            self._positions[row.summary.session_id] = len(self._rows)
            self._rows.append(row)
        self._update_size()
        if self._cursor is None:
            self._move_cursor(0, force=True)
        self.refresh()

    def index_of(self, session_id: str) -> int | None:
        return self._positions.get(session_id)

    def row_changed(self, index: int) -> None:
        """Row ``index`` was updated in place (another match in a search result)."""
        self.refresh_lines(index * self.row_height + 1, self.row_height)

    def remove_session(self, session_id: str) -> None:
        """Drop a session's row (after it was deleted); the cursor stays at the same place."""
        index = self._positions.get(session_id)
        if index is None:
            return
        del self._rows[index]
        self._positions = {row.summary.session_id: position for position, row in enumerate(self._rows)}
        self._update_size()
        cursor = None if not self._rows else min(self._cursor or 0, len(self._rows) - 1)
        self._move_cursor(cursor, force=True)
        self.refresh()

    # -- cursor --------------------------------------------------------------------------------

    def _move_cursor(self, index: int | None, *, force: bool = False) -> None:
        if index is not None:
            index = max(0, min(index, len(self._rows) - 1)) if self._rows else None
        if index == self._cursor and not force:
            return
        self._cursor = index
        self.refresh()
        self._scroll_to_cursor()
        self.post_message(self.Highlighted(self.highlighted))

    def _scroll_to_cursor(self) -> None:
        if self._cursor is None:
            return
        top = self._cursor * self.row_height
        bottom = top + self.row_height
        visible = max(1, self.scrollable_content_region.height - 1)
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif bottom > self.scroll_y + visible:
            self.scroll_to(y=bottom - visible, animate=False, immediate=True)

    def _rows_per_page(self) -> int:
        return max(1, (self.scrollable_content_region.height - 1) // self.row_height)

    def action_cursor_up(self) -> None:
        self._move_cursor((self._cursor or 0) - 1)

    def action_cursor_down(self) -> None:
        self._move_cursor(0 if self._cursor is None else self._cursor + 1)

    def action_page_up(self) -> None:
        self._move_cursor((self._cursor or 0) - self._rows_per_page())

    def action_page_down(self) -> None:
        self._move_cursor((self._cursor or 0) + self._rows_per_page())

    def action_first(self) -> None:
        self._move_cursor(0)

    def action_last(self) -> None:
        self._move_cursor(len(self._rows) - 1)

    def action_select(self) -> None:
        row = self.highlighted
        if row is not None:
            self.post_message(self.Selected(row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        index = (round(self.scroll_y) + offset.y - 1) // self.row_height
        if 0 <= index < len(self._rows):
            self._move_cursor(index)
            if event.chain >= 2:
                self.action_select()

    # -- drawing -------------------------------------------------------------------------------

    def _update_size(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._rows) * self.row_height + 1)

    def on_resize(self, event: events.Resize) -> None:
        self._columns = None
        self._update_size()
        self._scroll_to_cursor()

    def notify_style_update(self) -> None:
        self._styles = None
        super().notify_style_update()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _role_styles(self) -> dict[str, Style]:
        if self._styles is None:
            base = self.rich_style
            styles = {role: base + self.get_component_rich_style(f"session-list--{role}") for role in _ROLES}
            styles[""] = base
            styles["cursor"] = self.get_component_rich_style("session-list--cursor")
            styles["cursor-blurred"] = self.get_component_rich_style("session-list--cursor-blurred")
            self._styles = styles
        return self._styles

    def _layout(self, width: int) -> Columns:
        """Column widths for ``width``, fitted to the first rows (a look at all 1,000 is not needed)."""
        if self._columns is None or self._columns[0] != width:
            self._columns = (width, plan_columns(width, self._rows[:200], self._home))
        return self._columns[1]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        styles = self._role_styles()
        columns = self._layout(width)
        if y == 0:
            return self._strip(header_pieces(columns), width, styles)
        virtual = round(self.scroll_y) + y - 1
        index, line = divmod(virtual, self.row_height)
        if index >= len(self._rows):
            return Strip.blank(width, styles[""])
        row = self._rows[index]
        pieces = row_pieces(row, columns, self.now, self._home) if line == 0 else snippet_pieces(row, width)
        overlay = None
        if index == self._cursor:
            overlay = styles["cursor" if self.has_focus else "cursor-blurred"]
        return self._strip(pieces, width, styles, overlay)

    @staticmethod
    def _strip(
        pieces: list[Piece], width: int, styles: dict[str, Style], overlay: Style | None = None
    ) -> Strip:
        """Pieces as one line of ``width`` cells; ``overlay`` (the cursor) goes over all but matches."""
        base = styles[""] if overlay is None else styles[""] + overlay
        segments = []
        for text, role in pieces:
            if text:
                style = styles.get(role, styles[""])
                segments.append(
                    Segment(text, style if overlay is None or role == "match" else style + overlay)
                )
        return Strip(segments).crop_extend(0, width, base)
