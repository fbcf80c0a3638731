"""``/diff``'s view: the files a turn (or the session) changed, each as a coloured diff, scrollable."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from zett_tui.ui.modals.diff_view import DiffView
from zett_tui.ui.modals.shown_text import show_controls_in
from zett_tui.ui.speed.shown_rows import draw_only_changes


def split_by_file(diff: str) -> list[tuple[str, str]]:
    """``(path, that file's diff)`` for each file of a ``git diff`` output."""
    files: list[tuple[str, str]] = []
    for part in diff.split("\ndiff --git ")[0:]:
        body = part[len("diff --git ") :] if part.startswith("diff --git ") else part
        if not body.strip():
            continue
        header, _, rest = body.partition("\n")
        path = header.split(" b/", 1)[-1] if " b/" in header else header
        files.append((path, rest))
    return files


class TurnDiffScreen(ModalScreen[None]):
    """The diffs, one titled block per file; Esc or q closes, the arrows and PgUp/PgDn scroll."""

    DEFAULT_CSS = """
    TurnDiffScreen { align: center middle; background: $background 60%; }
    TurnDiffScreen > Vertical { width: 95%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    TurnDiffScreen #diff-title { color: $primary; text-style: bold; height: auto; }
    TurnDiffScreen .diff-file { color: $text-accent; text-style: bold; margin-top: 1; }
    TurnDiffScreen #diff-keys { color: $text-muted; height: 1; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, title: str, diff: str, summary: str = "") -> None:
        super().__init__()
        draw_only_changes(self)  # drawn whole again as it opens: only what changed (speed/)
        self.title_text = title
        self.files = split_by_file(diff)
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(self.title_text + (f"   {self.summary}" if self.summary else "")), id="diff-title"
            )
            with VerticalScroll(id="diff-scroll"):
                if not self.files:
                    yield Static("No changes in text.")
                for path, body in self.files:
                    yield Static(Text(path), classes="diff-file")
                    if "\n@@" in "\n" + body:
                        yield DiffView(body)
                    else:
                        yield Static(Text("(binary, or only the mode changed)", style="dim"))
            yield Static("↑/↓ PgUp/PgDn scroll · Esc close", id="diff-keys")

    def on_mount(self) -> None:
        show_controls_in(self)  # file names come from the project: their escapes are shown, not run
        self.query_one("#diff-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
