"""What the terminal shows of the transcript, row by row, so that an update repaints only the rows
whose line changed, and a scroll (``speed/terminal_scroll``) only the rows it brings in."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from zett_tui.ui.widgets.transcript_render import Line

#: Rows remembered at most; past that all are forgotten (each is then repainted once).
_KEPT = 1000
#: The row was drawn with the new-output badge over its line (the badge stays at the screen's
#: bottom when the rows move): it never equals a line, so it is repainted.
_BADGED = object()


class DrawnRows:
    """The line last drawn at each virtual row: a ``Line``, None for a blank row, or the badge."""

    def __init__(self) -> None:
        self._rows: dict[int, object] = {}

    def drew(self, y: int, line: Line | None) -> None:
        if len(self._rows) > _KEPT:
            self._rows.clear()
        self._rows[y] = line

    def drew_badge(self, y: int) -> None:
        self._rows[y] = _BADGED

    def forget(self, y: int) -> None:
        """Row ``y`` is to be drawn again whatever its line (the badge goes over it now)."""
        self._rows.pop(y, None)

    def changed_runs(
        self, top: int, viewport: int, line_at: Callable[[int], tuple[int, Line | None] | None]
    ) -> Iterator[tuple[int, int]]:
        """(first row, rows) of each run of rows on screen whose line is not the one drawn there,
        compared by value: a line rendered again the same is not a change."""
        rows = self._rows
        run_start: int | None = None
        for y in range(top, top + viewport + 1):
            found = line_at(y) if y < top + viewport else None
            changed = y < top + viewport and (y not in rows or rows[y] != (found and found[1]))
            if changed and run_start is None:
                run_start = y
            elif not changed and run_start is not None:
                yield run_start, y - run_start
                run_start = None

    def scrolled(self, old: int, new: int, viewport: int) -> None:
        """The terminal moved the rows from view ``old`` to view ``new``: only the rows on screen
        before and after still show what was drawn (those brought in are blank)."""
        kept = range(max(old, new), min(old, new) + viewport)
        self._rows = {y: line for y, line in self._rows.items() if y in kept}
