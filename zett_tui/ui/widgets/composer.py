"""The prompt box: multi-line, Enter sends, Shift+Enter or Ctrl+J inserts a newline, Up/Down recall."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


@dataclass
class PromptHistory:
    """Earlier prompts, browsed with Up/Down; the draft being typed is kept while browsing."""

    entries: list[str]
    limit: int = 500
    _position: int | None = None
    _draft: str = ""

    def add(self, prompt: str) -> None:
        if prompt.strip() and (not self.entries or self.entries[-1] != prompt):
            self.entries.append(prompt)
            del self.entries[: -self.limit]
        self._position = None

    def older(self, current: str) -> str | None:
        if not self.entries:
            return None
        if self._position is None:
            self._draft = current
            self._position = len(self.entries)
        if self._position == 0:
            return None
        self._position -= 1
        return self.entries[self._position]

    def newer(self) -> str | None:
        if self._position is None:
            return None
        self._position += 1
        if self._position >= len(self.entries):
            self._position = None
            return self._draft
        return self.entries[self._position]


class Composer(TextArea):
    """Where the user writes. Posts ``Composer.Submitted`` on Enter."""

    DEFAULT_CSS = """
    Composer {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 40%;
        padding: 0 1;
        background: $surface;
    }
    Composer:focus {
        border: round $primary;
    }
    """

    BINDINGS = [
        Binding("ctrl+j", "newline", "Newline", show=False),
        Binding("shift+enter", "newline", "Newline", show=False),
    ]

    class Submitted(Message):
        def __init__(self, composer: Composer, text: str) -> None:
            super().__init__()
            self.composer = composer
            self.text = text

    def __init__(self, *, history: list[str] | None = None, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.prompt_history = PromptHistory(list(history or []))
        self.placeholder = "Ask zett…  (Enter sends, Shift+Enter newline, Ctrl-C clear/stop)"

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self._submit()
            return
        if event.key == "up" and self.cursor_location[0] == 0:
            recalled = self.prompt_history.older(self.text)
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._replace(recalled)
                return
        if event.key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            recalled = self.prompt_history.newer()
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._replace(recalled)
                return
        await super()._on_key(event)

    def action_newline(self) -> None:
        self.insert("\n")

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.prompt_history.add(text)
        self.clear()
        self.post_message(self.Submitted(self, text))

    def _replace(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)
