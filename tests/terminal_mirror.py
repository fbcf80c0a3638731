"""A terminal (pyte) fed every frame the app writes, checked after each against the screen the app
means: what it would draw now from nothing.

``TerminalMirror.watch(app, monkeypatch)`` wraps ``App._display`` (which gets each update even
headless, and writes it only to a real terminal) and feeds ``render_segments`` to a pyte screen,
exactly the text a terminal would get. After each frame the whole screen is rendered afresh
(``Compositor.render_strips``, which leaves what is waiting to be drawn alone), each of the
transcript's rows drawn by pyte as well (``_RowCells``), and the two are compared cell by cell:
character, colours, bold, italics, underline, reverse. A row left stale (a scroll that moved a row the app did not mean to
keep) differs there, and keeps differing until something draws it again.

The rows the app keeps rendered (``Widget._styles_cache``) are compared too: the fresh render
renders every row from nothing, and each row the transcript and its scrollbar keep, not marked to
render again, must be what that render made, meta included (what a click does there).

The app has lags of its own (the find bar's echo is drawn a frame before the matches it
highlights; a block's new text is rendered before the transcript's update asks for its rows), so
a row's difference counts when that row still differs at the next frame checked, with no update of
the transcript pending and no repaint of that row asked for, or when the app is idle (``settled``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pyte
import pytest
from textual._compositor import LayoutUpdate
from textual._styles_cache import StylesCache
from textual.geometry import Region
from textual.strip import Strip

from zett_tui.ui.textual_compat import screen_compositor
from zett_tui.ui.widgets.drawn_rows import DrawnRows


def _fresh_screen(width: int, height: int) -> tuple[pyte.Screen, pyte.Stream]:
    screen = pyte.Screen(width, height)
    return screen, pyte.Stream(screen)


def _cells(screen: pyte.Screen, y: int) -> list[tuple[object, ...]]:
    """Row ``y``'s cells, each pyte's ``Char`` (its character and every attribute)."""
    row = screen.buffer[y]
    return [row[x] for x in range(screen.columns)]


def _text(cells: list[Any]) -> str:
    return "".join(cell.data for cell in cells)


def _row_difference(shown: pyte.Screen, y: int, meant: list[Any]) -> tuple[str, str]:
    """Row ``y`` as the terminal shows it and as the app means it (``meant``, its cells); when the
    text is the same, the first cell that differs (its attributes are what differ)."""
    terminal = _cells(shown, y)
    if _text(terminal) != _text(meant):
        return _text(terminal), _text(meant)
    x = next(x for x in range(shown.columns) if terminal[x] != meant[x])
    return f"{_text(terminal)} | column {x}: {terminal[x]}", f"{_text(meant)} | column {x}: {meant[x]}"


class _RowCells:
    """A row's cells as a terminal (pyte) draws them, by the row's escape sequences.

    Each row Textual writes starts at its first column with no style in force and leaves none
    (every styled run ends with a reset), so a row's cells depend on its own sequences alone: a
    row drawn on a one-row screen has the cells it has on the whole screen. A scroll moves the same
    rows up the screen, so most rows a frame means are rows parsed before: the mirror parses only
    the new ones, where it parsed the whole screen a second time after every frame."""

    def __init__(self, width: int) -> None:
        self.width = width
        self._known: dict[str, list[Any]] = {}

    def of(self, written: str) -> list[Any]:
        cells = self._known.get(written)
        if cells is None:
            screen, stream = _fresh_screen(self.width, 1)
            stream.feed(written)
            cells = self._known[written] = _cells(screen, 0)
        return cells


def _styled_cells(strip: Strip) -> list[tuple[str, object, object]]:
    """Each cell of ``strip``: its character, its style without meta, and its meta (what a click
    on it does, the offsets selection reads)."""
    return [
        (char, None if style is None else style.clear_meta_and_links(), None if style is None else style.meta)
        for text, style, _control in strip
        for char in text
    ]


@contextmanager
def _rendered_afresh(widgets: Any, app: Any) -> Iterator[dict[Any, StylesCache]]:
    """While inside, ``widgets`` render their rows from nothing (a new ``StylesCache``), and the
    transcript does not record what it renders as drawn (a render that never reaches the terminal).
    Gives each widget's own cache, put back on the way out."""
    caches = {widget: widget._styles_cache for widget in widgets}
    row_repaint = app.chat.transcript._row_repaint
    drawn = row_repaint.drawn
    for widget in caches:
        widget._styles_cache = StylesCache()
    row_repaint.drawn = DrawnRows()
    try:
        yield caches
    finally:
        for widget, cache in caches.items():
            widget._styles_cache = cache
        row_repaint.drawn = drawn


def _cache_lies(widget: Any, kept: StylesCache) -> list[int]:
    """The rows ``widget`` keeps rendered (``kept``, its own cache, the rows not marked to render
    again) that the render from nothing just made (its cache now) draws otherwise: a row the
    terminal scroll moved with its cache that shows, or does when clicked, something else there."""
    fresh = widget._styles_cache._cache
    return sorted(
        y
        for y, strip in kept._cache.items()
        if y not in kept._dirty_lines
        and y in fresh
        and strip != fresh[y]
        and _styled_cells(strip) != _styled_cells(fresh[y])
    )


@dataclass
class TerminalMirror:
    app: Any
    width: int
    height: int
    #: The rows compared (a region of the screen): the transcript's unless told.
    rows: Callable[[Any], Region] = lambda app: app.chat.transcript.region
    frames: list[str] = field(default_factory=list)
    #: The first frames (index, row, what the terminal shows, what the app means) that differed.
    differences: list[tuple[int, int, str, str]] = field(default_factory=list)
    checked: int = 0
    #: The differences of the last frame checked, not counted yet (a lag the next frame may end).
    lagging: list[tuple[int, int, str, str]] = field(default_factory=list)
    #: Whether a frame drew the whole screen since watching began: the frames before it drew on
    #: what the mirror never saw.
    whole: bool = False
    #: The first of ``frames`` a test measures (the ones before it set the scene: an answer drawn).
    measured_from: int = 0

    def __post_init__(self) -> None:
        self.screen, self.stream = _fresh_screen(self.width, self.height)
        self.row_cells = _RowCells(self.width)

    @classmethod
    def watch(
        cls, app: Any, monkeypatch: pytest.MonkeyPatch, rows: Callable[[Any], Region] | None = None
    ) -> TerminalMirror:
        width, height = app.size
        mirror = cls(app, width, height) if rows is None else cls(app, width, height, rows)
        display = app._display

        def mirrored(screen: Any, renderable: Any) -> None:
            if renderable is not None:
                mirror.whole = mirror.whole or isinstance(renderable, LayoutUpdate)
                mirror.feed(renderable.render_segments(app.console))
            display(screen, renderable)

        monkeypatch.setattr(app, "_display", mirrored)
        forget = getattr(app, "forget_terminal", None)
        if forget is not None:  # the mirror starts blank: nothing is shown yet (ui/speed/shown_rows)
            forget()
        app.screen.refresh()  # the next frame draws it all
        return mirror

    def feed(self, written: str) -> None:
        width, height = self.app.size
        if (width, height) != (self.width, self.height):  # resized: the terminal keeps what fits
            self.width, self.height = width, height
            self.screen.resize(height, width)
            self.row_cells = _RowCells(width)
        self.frames.append(written)
        self.stream.feed(written)
        if self.whole:
            self.check()

    def check(self) -> None:
        """Compare the rows watched on the terminal with a full render of the screen the app shows
        now (the other rows may draw the time: a spinner, a clock)."""
        compositor = screen_compositor(self.app.screen)
        swapped = compositor._visible_widgets  # a key's echo draws with the prompt alone listed
        if swapped is not None and not any(
            self.rows(self.app).overlaps(region) for region, _ in swapped.values()
        ):
            return  # a frame of another widget alone leaves the rest, changed or not, to the next one
        compositor._visible_widgets = None
        try:
            band = self.rows(self.app)
            in_band = [
                widget
                for widget, (region, clip) in compositor.visible_widgets.items()
                if region.intersection(clip).overlaps(band)
            ]
            with _rendered_afresh(in_band, self.app) as kept:
                strips = compositor.render_strips()
                lies = [
                    (widget, _cache_lies(widget, kept[widget]))
                    for widget in self._cached(compositor)
                    if widget in kept
                ]
        finally:
            compositor._visible_widgets = swapped
        rows = range(band.y, min(band.bottom, self.height))
        meant = {y: self.row_cells.of(strips[y].render(self.app.console)) for y in rows}
        self.checked += 1
        found = [
            (len(self.frames) - 1, y, *_row_difference(self.screen, y, meant[y]))
            for y in rows
            if _cells(self.screen, y) != meant[y]
        ]
        found += [
            (len(self.frames) - 1, y, f"{type(widget).__name__} row {y}: rendered before", "rendered now")
            for widget, rows in lies
            for y in rows
        ]
        # A row counts when it still differs at the next checked frame, with the transcript's update
        # done and the row not asked for: a block whose text changed is drawn anew (``render_line``)
        # before its update asks for its rows, and the rows asked for reach the compositor with the
        # widget's next update, after the frame that may be drawn meanwhile.
        before = {y for _, y, _, _ in self.lagging} - self._rows_asked_for(compositor)
        counted = [] if self.app.chat.transcript.update_pending else [d for d in found if d[1] in before]
        if counted and len(self.differences) < 5:
            self.differences.extend([d for d in self.lagging if d[1] in {y for _, y, _, _ in counted}][:2])
            self.differences.extend(counted[:2])
        self.lagging = found

    def _rows_asked_for(self, compositor: Any) -> set[int]:
        """The screen's rows the transcript or its scrollbar asked to repaint that no frame has drawn
        yet (``Widget._repaint_regions`` reach the compositor with the widget's next update)."""
        rows: set[int] = set()
        for widget in self._cached(compositor):
            placed = widget.region
            for region in widget._repaint_regions:
                rows.update(range(placed.y + region.y, placed.y + region.bottom))
        return rows

    def _cached(self, compositor: Any) -> list[Any]:
        """The widgets of the watched rows whose rows the terminal scroll moves with their cache."""
        transcript = self.app.chat.transcript
        wanted = (transcript, transcript.vertical_scrollbar)
        return [widget for widget in wanted if widget in compositor.visible_widgets]

    def settled(self) -> None:
        """The app is idle: the terminal must show what it means, with no lag left."""
        self.lagging = []
        self.check()
        if self.lagging:
            self.differences.extend(self.lagging[:3])

    def written(self) -> int:
        return sum(len(frame.encode()) for frame in self.frames)
