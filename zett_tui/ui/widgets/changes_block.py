"""The line a turn that changed files ends with ("3 files changed, +20 -4"), expandable in place to
the turn's coloured per-file diff.

Expanded, it lists each file with its +/- counts (from the turn's record, so the session browser
shows them too); the diff is read from the checkpoint store only when the line is first expanded
(``wants_diff``: the chat reads it in a thread), so a long session does not keep every turn's diff
in memory. What is shown is bounded: at most :data:`MAX_DIFF_LINES` lines; the rest is one line
that points at ``/diff``, which shows all of it in a scrollable view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text

from zett_tui.core.inert_text import make_inert, make_terminal_output_inert
from zett_tui.ui.widgets.transcript_blocks import NoticeBlock, _prefixed
from zett_tui.ui.widgets.transcript_render import Line, RenderContext

if TYPE_CHECKING:
    from zett_tui.ui.modals.diff_view import DiffLine

#: At most this many diff lines are shown in the transcript; ``/diff`` shows the rest.
MAX_DIFF_LINES = 400
#: A diff longer than this (in characters) is cut before it is parsed.
MAX_DIFF_CHARS = 256 * 1024
#: A longer diff line (minified code) is cut here.
MAX_LINE_CHARS = 500
#: At most this many files are listed (the line above them still counts them all).
MAX_LISTED_FILES = 200

DiffState = Literal["unread", "reading", "read", "failed"]


class ChangesBlock(NoticeBlock):
    """ "N files changed, +A -R"; expanded: each file with its counts, and once read, its diff."""

    expandable = True
    compact = True

    def __init__(
        self, text: str, files: Sequence[Sequence[Any]] = (), checkpoints: tuple[str, str] | None = None
    ) -> None:
        super().__init__(text, "info")
        #: ``(path, added, removed, status)`` per file, as the turn's record lists them.
        self.files = [_file_row(item) for item in files[:MAX_LISTED_FILES] if len(item) >= 3]
        #: Files given beyond those listed.
        self.unlisted = max(0, len(files) - MAX_LISTED_FILES)
        #: The turn's checkpoints (commits of the project's store), when known.
        self.checkpoints = checkpoints
        self.state: DiffState = "unread"
        self._diff: dict[str, list[DiffLine]] = {}
        self._hidden = 0
        self._problem = ""

    @property
    def wants_diff(self) -> bool:
        """Expanded, its diff not read yet, and the checkpoints to read it from known."""
        return self.expanded and self.state == "unread" and self.checkpoints is not None

    def begin_reading(self) -> None:
        self.state = "reading"
        self._changed()

    def set_diff(self, diff: str) -> None:
        """The unified diff of the turn (``CheckpointStore.diff_text``), kept to a bounded size."""
        from zett_tui.ui.modals.diff_view import DiffLine, parse_unified_diff  # not at the first frame

        cut = len(diff) > MAX_DIFF_CHARS
        text = make_terminal_output_inert(diff[:MAX_DIFF_CHARS])
        shown = 0
        self._diff = {}
        self._hidden = 1 if cut else 0
        for name, body in _per_file(text):
            parsed = parse_unified_diff(body) or [DiffLine("note", "binary, or only its mode changed")]
            if not any(row[0] == name for row in self.files):
                if len(self.files) >= MAX_LISTED_FILES:
                    self._hidden += len(parsed)  # a file beyond the list: /diff shows it
                    continue
                self.files.append((name, -1, -1, ""))
            room = max(0, MAX_DIFF_LINES - shown)
            self._diff[name] = [_bounded(line) for line in parsed[:room]]
            shown += len(self._diff[name])
            self._hidden += len(parsed) - len(self._diff[name])
        self.state = "read"
        self._changed()

    def set_failed(self, reason: str) -> None:
        self._problem = make_inert(" ".join(reason.split()))
        self.state = "failed"
        self._changed()

    def plain_text(self) -> str:
        return self.text

    def search_text(self) -> str:
        rows = [self.text]
        for path, *_ in self.files:
            rows.append(path)
            rows.extend(_plain(line) for line in self._diff.get(path, ()))
        return "\n".join(rows)

    def _estimate(self, width: int) -> int:
        if not self.expanded:
            return 1
        return 1 + len(self.files) + sum(len(lines) for lines in self._diff.values())

    def _render(self, width: int, ctx: RenderContext) -> list[Line]:
        styles = ctx.styles
        marker = "▾ " if self.expanded else "▸ "
        lines = ctx.render_text(Text.assemble((marker, styles.muted), (self.text, styles.notice_info)), width)
        if not self.expanded:
            return lines
        gutter = ("  │ ", ctx.style_id(styles.muted)) if width > 8 else ("", 0)
        inner = max(1, width - len(gutter[0]))
        style_of = {
            "hunk": styles.muted,
            "added": styles.state_done,
            "removed": styles.state_failed,
            "context": styles.tool_output,
            "note": styles.muted,
        }
        body: list[Line] = []
        for path, added, removed, status in self.files:
            row = Text(path, style=styles.tool_name)
            if added >= 0:
                row.append(f"  +{added} -{removed}", style=styles.muted)
            if status in _STATUS_WORDS:
                row.append(f"  ({_STATUS_WORDS[status]})", style=styles.muted)
            body.extend(ctx.render_text(row, inner))
            for line in self._diff.get(path, ()):
                body.extend(ctx.render_text(Text(_plain(line), style=style_of[line.kind]), inner))
        if self.unlisted:
            more_files = Text(f"… {self.unlisted} more files: /diff shows them all", style=styles.muted)
            body.extend(ctx.render_text(more_files, inner))
        if self.state == "reading":
            body.extend(ctx.render_text(Text("reading the diff…", style=styles.muted), inner))
        elif self.state == "failed":
            problem = Text(f"The diff could not be read: {self._problem}", style=styles.notice_error)
            body.extend(ctx.render_text(problem, inner))
        if self._hidden:
            more = Text(f"… {self._hidden} more lines: /diff shows the whole diff", style=styles.muted)
            body.extend(ctx.render_text(more, inner))
        lines.extend(_prefixed(body, gutter, gutter))
        return lines


_STATUS_WORDS = {"A": "new", "D": "deleted", "T": "type changed"}


def _file_row(item: Sequence[Any]) -> tuple[str, int, int, str]:
    def count(value: Any) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) else -1

    status = item[3] if len(item) > 3 and isinstance(item[3], str) else ""
    return make_inert(str(item[0])).replace("\n", " "), count(item[1]), count(item[2]), status


def _bounded(line: DiffLine) -> DiffLine:
    from zett_tui.ui.modals.diff_view import DiffLine

    text = line.text.expandtabs(4)
    if len(text) > MAX_LINE_CHARS:
        text = text[:MAX_LINE_CHARS] + "…"
    return DiffLine(line.kind, text, line.old, line.new)


def _plain(line: DiffLine) -> str:
    mark = {"added": "+", "removed": "-", "context": " "}.get(line.kind, "")
    if line.kind == "hunk":
        return f"@@ {line.text}"
    return f"{mark}{line.text}"


def _per_file(diff: str) -> list[tuple[str, str]]:
    """``git diff-tree -p`` output split per file: (path, that file's part)."""
    parts: list[tuple[str, str]] = []
    current: list[str] = []
    name = ""
    for raw in diff.split("\n"):
        if raw.startswith("diff --git "):
            if current:
                parts.append((name, "\n".join(current)))
            current = [raw]
            name = _path_of(raw)
        elif current:
            current.append(raw)
    if current:
        parts.append((name, "\n".join(current)))
    return parts


def _path_of(header: str) -> str:
    """The path of ``diff --git a/PATH b/PATH`` (quoted paths are shown as git quotes them)."""
    rest = header[len("diff --git ") :]
    half = len(rest) // 2
    if rest.startswith("a/") and rest[half:].startswith(" b/") and rest[2:half] == rest[half + 3 :]:
        return rest[2:half]
    return rest
