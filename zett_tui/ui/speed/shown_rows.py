"""A dialog or a screen drawn whole again writes only the pieces of rows the terminal does not show as
they are.

Textual draws a screen whole (every row, one frame of the whole screen) whenever the whole screen is
marked for repainting. A dialog is, twice as it opens: when it is shown, and again once the widgets
its compose mounted report mounted (``AwaitMount`` refreshes its parent, the screen itself, with a
layout), the second frame like the first but for the dialog's body, which partial frames in between
have drawn already (``benchmarks/bench_screen_output.py``: 5.8 KB each at 100x30).

The session browser and the pickers open the same way. A frame is written in chops: the pieces of a
row between the edges of the widgets over it. Their compositor (:class:`RowsCompositor`, installed
by :func:`draw_only_changes` as each is made) keeps, for
each row, the chops the terminal shows as it wrote them (where each starts and ends, and the strip
drawn there). A frame, whole or partial, writes only the chops that are not shown as they are
(the same segments: the same text in the same styles); a partial frame keeps the chops it writes
whole and forgets those it writes part of (``ChopsUpdate`` writes a chop from its start, cut at the
end of what changed). What is kept is recorded when a frame is rendered for the terminal, never
when it is only made (Textual drops a frame made inside a batch of updates).

Everything kept is forgotten when the terminal may show something else: a frame of another screen
was written since this compositor's last (``shown()``: ``ZettApp.terminal_shows``, which the app
also clears when it comes back from a suspend), or the screen's size changed. The cells a key was
drawn in from the input thread (``predicted_echo``: it can land on a screen just shown over the
chat) are forgotten when the app repaints them (:func:`forget_cells`), so that repaint is written.
A screenshot's render (``full=True``) is Textual's, untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from zett_tui.ui.textual_compat import (
    ChopsUpdate,
    Compositor,
    LayoutUpdate,
    install_compositor,
    screen_compositor,
)

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from textual.geometry import Region, Size
    from textual.screen import Screen
    from textual.strip import Strip


def _move_to(x: int, y: int) -> str:
    return f"\x1b[{y + 1};{x + 1}H"


class ShownChops:
    """Per row, the chops the terminal shows as last written: start -> (end, strip)."""

    def __init__(self) -> None:
        self.rows: dict[int, dict[int, tuple[int, Strip]]] = {}

    def shows(self, y: int, x: int, end: int, strip: Strip) -> bool:
        """Whether the cells ``x`` to ``end`` of row ``y`` show ``strip`` (the same segments: the
        same text in the same styles)."""
        kept = self.rows.get(y, {}).get(x)
        if kept is None or kept[0] != end:
            return False
        shown = kept[1]
        return shown is strip or shown == strip

    def wrote(self, y: int, x: int, end: int, strip: Strip) -> None:
        self.forget(y, x, end)
        self.rows.setdefault(y, {})[x] = (end, strip)

    def forget(self, y: int, x: int, end: int) -> None:
        """Cells ``x`` to ``end`` of row ``y`` were written some other way: every chop over them."""
        row = self.rows.get(y)
        if row:
            for start in [start for start, (stop, _) in row.items() if start < end and stop > x]:
                del row[start]


#: A chop to write: row, start, end (where a cut chop stops), strip, and whether it is written whole.
Chop = tuple[int, int, int, "Strip", bool]


def _written_chops(update: ChopsUpdate) -> Iterable[Chop]:
    """The chops ``update`` writes, as ``ChopsUpdate.render_segments`` does; a chop not written
    whole is written from its start to ``end``."""
    for y, x1, x2 in update.spans:
        for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items(), strict=False):
            if strip is None or x > x2 or end <= x1:
                continue
            if x2 > x >= x1 and end <= x2:
                yield y, x, end, strip, True
            else:
                yield y, x, min(end, x2), strip, False


def _render(writes: list[Chop], console: Console) -> str:
    sequences: list[str] = []
    for y, x, end, strip, whole in writes:
        sequences.append(_move_to(x, y))
        sequences.append((strip if whole else strip.crop(0, end - x)).render(console))
    return "".join(sequences)


class ChangedChops(LayoutUpdate):
    """A whole frame less the chops the terminal shows as they are (chosen when it is made);
    rendered, its chops are what every row shows. Rendered twice (a test's mirror, then the
    driver) it writes the same text both times."""

    def __init__(self, update: LayoutUpdate, shown: ShownChops) -> None:
        super().__init__(update.strips, update.region)
        self._shown = shown
        self._writes: list[Chop] = []
        self._rows: dict[int, dict[int, tuple[int, Strip]]] = {}
        for y, line in enumerate(self.strips, self.region.y):
            x = self.region.x
            row = self._rows[y] = {}
            for strip in line:
                end = x + strip.cell_length
                if not shown.shows(y, x, end, strip):
                    self._writes.append((y, x, end, strip, True))
                row[x] = (end, strip)
                x = end

    def render_segments(self, console: Console) -> str:
        self._shown.rows = {y: dict(row) for y, row in self._rows.items()}
        return _render(self._writes, console)


class RememberedChops(ChopsUpdate):
    """Textual's partial frame less the chops the terminal shows as they are (chosen when it is
    made); rendered, the chops it wrote whole are kept and those it cut forgotten."""

    def __init__(self, update: ChopsUpdate, shown: ShownChops) -> None:
        super().__init__(update.chops, update.spans, update.chop_ends)
        self._shown = shown
        self._writes = [chop for chop in _written_chops(update) if not (chop[4] and shown.shows(*chop[:4]))]

    def render_segments(self, console: Console) -> str:
        for y, x, end, strip, whole in self._writes:
            if whole:
                self._shown.wrote(y, x, end, strip)
            else:
                self._shown.forget(y, x, end)
        return _render(self._writes, console)


class RowsCompositor(Compositor):
    """A screen's compositor whose whole frames write only what changed (module docstring).

    ``shown()`` is the compositor whose frame the terminal last received (None: unknown)."""

    def __init__(self, shown: Callable[[], object]) -> None:
        super().__init__()
        self._terminal_shows = shown
        self._shown = ShownChops()
        self._shown_size: Size | None = None

    def forget(self, region: Region) -> None:
        """The terminal's cells in ``region`` were written some other way."""
        for y in range(region.y, region.bottom):
            self._shown.forget(y, region.x, region.right)

    def render_update(
        self, full: bool = False, screen_stack: list[Screen] | None = None, simplify: bool = False
    ) -> RenderableType | None:
        update = super().render_update(full, screen_stack, simplify)
        if full or update is None:
            return update
        if self._terminal_shows() is not self or self._shown_size != self.size:
            self._shown.rows.clear()
            self._shown_size = self.size
        if isinstance(update, LayoutUpdate):
            return ChangedChops(update, self._shown)
        if isinstance(update, ChopsUpdate):
            return RememberedChops(update, self._shown)
        return update


def draw_only_changes(screen: Screen[Any]) -> None:
    """Give ``screen`` (just made) a :class:`RowsCompositor`; the app says whose frame the
    terminal shows (``ZettApp.terminal_shows``; in another app, never this one's: all is drawn)."""
    install_compositor(screen, RowsCompositor(lambda: getattr(screen.app, "terminal_shows", None)))


def forget_cells(screen: Screen[Any], region: Region) -> None:
    """The terminal's cells in ``region`` of ``screen`` were written outside its frames: what
    ``screen`` repaints there next is written, whatever it kept."""
    compositor = screen_compositor(screen)
    if isinstance(compositor, RowsCompositor):
        compositor.forget(region)
