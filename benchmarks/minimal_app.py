"""The smallest Textual app with a prompt box: the baseline ``bench_app`` measures zett against.

Run: ``python -m benchmarks.minimal_app``. One focused ``TextArea`` at the bottom, styled like zett's
composer, and a one-line status bar under it; Enter is an ordinary key here. Ctrl+Q quits.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static, TextArea


class MinimalApp(App[None]):
    """A prompt box and a status line, nothing else."""

    CSS = """
    Screen { layout: vertical; }
    #spacer { height: 1fr; }
    TextArea { height: auto; min-height: 3; max-height: 12; border: round $primary; padding: 0 1; }
    #status { height: 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="spacer")
        yield TextArea(soft_wrap=True, show_line_numbers=False, placeholder="Type here")
        yield Static(" ready", id="status")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()


if __name__ == "__main__":
    MinimalApp().run()
