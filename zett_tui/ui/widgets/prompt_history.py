"""The prompts sent before, recalled in the prompt box with Up/Down (``composer.Composer``).

In memory only: ``workspace.prompt_log`` reads and writes them on disk.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PromptHistory:
    """Earlier prompts, browsed with Up/Down. The unsent draft is kept while browsing (Down past the
    newest brings it back); editing a recalled prompt makes that the draft (browsing starts over)."""

    entries: list[str]
    limit: int = 500
    _position: int | None = None
    _draft: str = ""
    _shown: str | None = None

    def add(self, prompt: str) -> None:
        if prompt.strip() and (not self.entries or self.entries[-1] != prompt):
            self.entries.append(prompt)
            del self.entries[: -self.limit]
        self._position = None

    def older(self, current: str) -> str | None:
        if not self.entries:
            return None
        if self._position is None or current != self._shown:
            self._draft = current
            self._position = len(self.entries)
        if self._position == 0:
            return None
        self._position -= 1
        return self._show(self.entries[self._position])

    def newer(self, current: str) -> str | None:
        if self._position is None or current != self._shown:
            self._position = None
            return None
        self._position += 1
        if self._position >= len(self.entries):
            self._position = None
            return self._draft
        return self._show(self.entries[self._position])

    def prepend(self, earlier: list[str]) -> None:
        """Older prompts (read from disk after start), before the ones of this run."""
        self.entries[:0] = earlier
        if self._position is not None:
            self._position += len(earlier)

    def _show(self, text: str) -> str:
        self._shown = text
        return text
