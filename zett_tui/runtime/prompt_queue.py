"""The prompts waiting for the turn to end, and the notes on their way into the running turn.

While a turn runs, Enter sends what was typed to that turn as a steering message (it is delivered
at the runtime's next model call: ``pending_steers`` until then) and Tab queues it for after the
turn (``items``). The list above the prompt shows both; Up on an empty prompt takes the last queued
prompt back to edit (out of the queue: clearing it, Ctrl+U, removes it for good), and Up again on
that text, unedited, puts it back and takes the one before it. The session core owns it
(``runtime.session``); no Textual here: the chat's widgets listen with ``on_change``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

#: What separates prompts that come back to the composer as one text (a stopped turn).
JOINER = "\n\n"


@dataclass
class _TakenBack:
    """A queued prompt now in the composer: where it was, and its text as it was taken."""

    index: int
    text: str


@dataclass
class PromptQueue:
    """Queued prompts (oldest first) and steering notes not yet delivered."""

    items: list[str] = field(default_factory=list)
    pending_steers: list[str] = field(default_factory=list)
    #: True while Tab queues (a turn runs, or the model is not ready yet); set by the turn runner.
    holding: bool = False
    _taken: _TakenBack | None = None
    _listeners: list[Callable[[], None]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.items))

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    # -- queued prompts ---------------------------------------------------------------------------

    def add(self, text: str) -> None:
        self._taken = None  # whatever was taken back has been sent or queued again by now
        self.items.append(text)
        self._changed()

    def pop_next(self) -> str | None:
        """The oldest prompt, for the next turn."""
        if not self.items:
            return None
        self._taken = None
        text = self.items.pop(0)
        self._changed()
        return text

    def take_back(self, current: str) -> str | None:
        """Up in the composer holding ``current``: the prompt to show instead, or None (Up does
        what it does otherwise). From an empty prompt, the last queued one comes out; from a
        taken-back prompt left as it was, it goes back to its place and the one before comes out."""
        taken = self._taken
        if taken is not None and current == taken.text and current:
            if taken.index == 0:
                return current  # the first: nothing before it; Up stays here
            self.items.insert(taken.index, taken.text)
            index = taken.index - 1
        elif not current.strip() and self.items:
            index = len(self.items) - 1
        else:
            return None
        text = self.items.pop(index)
        self._taken = _TakenBack(index, text)
        self._changed()
        return text

    def put_back(self, current: str) -> bool:
        """Down on a taken-back prompt left as it was: it goes back to its place (True), the
        composer empties."""
        taken = self._taken
        if taken is None or current != taken.text:
            return False
        self.items.insert(taken.index, taken.text)
        self._taken = None
        self._changed()
        return True

    def drain(self) -> list[str]:
        """Everything not sent (queued prompts, then undelivered notes), emptied: a stopped turn
        gives it back to the composer."""
        texts = [*self.pending_steers, *self.items]
        self.items.clear()
        self.pending_steers.clear()
        self._taken = None
        self._changed()
        return texts

    # -- steering notes ----------------------------------------------------------------------------

    def steer_sent(self, text: str) -> None:
        self._taken = None
        self.pending_steers.append(text)
        self._changed()

    def steer_delivered(self, text: str) -> None:
        """The runtime put ``text`` into the turn: the oldest pending note with that text leaves
        the list. Another text (a dialog's note to the model) is none of the list's."""
        if text in self.pending_steers:
            self.pending_steers.remove(text)
            self._changed()

    def forget_steers(self) -> None:
        """The turn ended: every accepted note was delivered (the runtime answers each one)."""
        if self.pending_steers:
            self.pending_steers.clear()
            self._changed()
