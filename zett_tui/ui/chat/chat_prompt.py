"""The chat's prompt as the app, the turns and the slash commands use it.

Everything that reaches into the composer from outside goes through here: a key the app caught for
it (in order, ``widgets/keys_in_order``), text put in or given back, Ctrl+C's and Ctrl+D's checks,
Ctrl+G's editor, and what happens once the prompt has handled a key (the frames held for it go on,
the predicted echo is repainted). The screen owns one; the composer stays the screen's widget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from textual.css.query import NoMatches

from zett_tui.runtime.prompt_queue import JOINER
from zett_tui.ui.widgets.composer import Composer
from zett_tui.ui.widgets.keys_in_order import send_to_prompt

if TYPE_CHECKING:
    from textual import events
    from textual.screen import Screen

    from zett_tui.ui.chat.view import ChatApp
    from zett_tui.ui.speed.keys_first import KeysInFlight

__all__ = ["ChatPrompt"]


class ChatPrompt:
    """The prompt of ``screen``, found when used (it is not composed yet when this is made)."""

    def __init__(self, screen: Screen[Any], keys_in_flight: KeysInFlight) -> None:
        self._screen = screen
        self._keys_in_flight = keys_in_flight

    @property
    def composer(self) -> Composer:
        return self._screen.query_one(Composer)

    def handled(self, key: events.Key) -> None:
        """The prompt has handled ``key`` (its ``key_handled`` callback): what waited goes on."""
        self._keys_in_flight.handled()
        cast("ChatApp", self._screen.app).input_handled(key)

    def forward_key(self, event: events.Key | events.Paste) -> bool:
        """A key or paste the app caught for the prompt goes to it, in order (``keys_in_order``);
        False when it did not take it (or the prompt is not there: not composed yet, or going)."""
        try:
            prompt = self.composer
        except NoMatches:
            return False
        return send_to_prompt(prompt, event)

    def has_focus(self, focused: object) -> bool:
        return focused is self.composer

    def put_in(self, text: str) -> None:
        """Replace the prompt with ``text``, the cursor at its end, the prompt focused."""
        composer = self.composer
        composer.load_text(text)
        composer.move_cursor(composer.document.end)
        composer.focus()

    def put_back(self, text: str) -> None:
        """Put ``text`` in the prompt when it is empty (a prompt that was not sent is not lost)."""
        if not self.composer.text:
            self.composer.load_text(text)

    def give_back(self, texts: Sequence[str]) -> None:
        """Put ``texts`` in the prompt before what is being typed (unsent prompts of a stopped turn)."""
        composer = self.composer
        draft = composer.text
        composer.load_text(JOINER.join([*texts, draft] if draft.strip() else texts))
        composer.move_cursor(composer.document.end)

    def clear(self) -> bool:
        """Empty the prompt; False when it was empty already."""
        if not self.composer.text:
            return False
        self.composer.clear()
        return True

    def delete_right(self) -> bool:
        """Ctrl+D in the prompt: delete forward; False when the prompt is empty (nothing to delete)."""
        if not self.composer.text:
            return False
        self.composer.action_delete_right()
        return True

    def edit_externally(self) -> None:
        """Ctrl+G: the prompt in $VISUAL or $EDITOR."""
        self.composer.action_external_editor()
