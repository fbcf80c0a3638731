"""No approval by accident: a dialog that takes no key until it has been on screen for
``ARM_DELAY`` with no key typed in that time (it "arms").

Until then every key typed goes to the prompt it was being typed into (``early_keys``), so a
sentence typed across the dialog's opening lands in the prompt, whole. Typing goes on doing so
once it is armed: a letter, a space, Backspace or a paste (anything but the dialog's own keys:
Enter, Esc, arrows, Tab, PgUp/PgDn, digits) goes to the prompt and the dialog waits again
(``disarm``), so the Enter that ends a message typed after a pause lands in the prompt as a line
break and does not answer the dialog.

``ArmedModal`` is the screen that does this; ``ChoiceDialog`` builds on it and says, through
``take_keys``, ``show_keys`` and ``focus_first``, what arming changes on screen.
"""

from __future__ import annotations

import time

from textual.events import Event, Key, Paste
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, TextArea

from zett_tui.ui.modals import early_keys
from zett_tui.ui.modals.dialog_choices import Picked
from zett_tui.ui.speed.focus_repaint import focus_without_screen_repaint
from zett_tui.ui.speed.shown_rows import draw_only_changes

__all__ = ["ARM_DELAY", "ArmedModal"]

#: Seconds a dialog is on screen, with no key typed meanwhile, before it takes keys.
ARM_DELAY = 0.5


class ArmedModal(ModalScreen[Picked | None]):
    """A modal that passes keys on to the prompt below until it is armed (module docstring).

    ``armed`` says whether it takes keys yet; tests wait on it."""

    focused = focus_without_screen_repaint()  # a focus move repaints its two choices (speed/)

    def __init__(self, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        draw_only_changes(self)  # drawn whole again as it opens: only what changed (speed/)
        #: False until the dialog takes keys; keys before that go to the prompt below.
        self.armed = False
        self._arm_timer: Timer | None = None
        #: When the dialog was first drawn and when it armed (``time.monotonic()``), for tests and logs.
        self.shown_at: float | None = None
        self.armed_at: float | None = None
        #: The prompt keys typed before the dialog takes them go to (None: nowhere).
        self.typing_target: Widget | None = None
        #: The choice that had the focus when typing disarmed the dialog; it gets it back.
        self._focus_before: Widget | None = None

    # -- what arming changes, for the dialog to say ---------------------------------------------

    def take_keys(self, taking: bool) -> None:
        """Its choices take keys and clicks (``taking``), or are dimmed and do nothing."""

    def show_keys(self) -> None:
        """The key line says what the keys do now (``armed`` changed)."""

    def focus_first(self) -> None:
        """Focus what Enter should take once armed."""

    # -- arming ---------------------------------------------------------------------------------

    def listen_for_typing(self) -> None:
        """Once mounted: find the prompt below, which says while the dialog is up what typing
        and Enter do there."""
        self.typing_target = early_keys.typing_target(self)
        _tell_prompt(self.typing_target, dialog_open=True)

    def on_unmount(self) -> None:
        _tell_prompt(self.typing_target, dialog_open=False)

    def drawn(self) -> None:
        """The dialog has been drawn: it arms after ``ARM_DELAY`` without a key."""
        self.shown_at = time.monotonic()
        self._restart_arming()

    def _restart_arming(self) -> None:
        if self._arm_timer is not None:
            self._arm_timer.stop()
        self._arm_timer = self.set_timer(ARM_DELAY, self._arm, name="arm dialog")

    def _arm(self) -> None:
        self._arm_timer = None
        if self.armed or not self.is_attached:
            return
        self.armed = True
        self.armed_at = time.monotonic()
        self.take_keys(True)
        before, self._focus_before = self._focus_before, None
        if before is not None and before.is_attached and before.display and not before.disabled:
            before.focus()
        else:
            self.focus_first()
        self.show_keys()

    def disarm(self) -> None:
        """Take no keys again until ``ARM_DELAY`` passes with none typed (typing just came in)."""
        if not self.armed:
            return
        self.armed = False
        self._focus_before = self.focused
        self.set_focus(None)
        self.take_keys(False)
        self.show_keys()
        self._restart_arming()

    async def on_event(self, event: Event) -> None:
        if isinstance(event, Key | Paste) and (not self.armed or self.types_through(event)):
            self.disarm()
            self._early(event)
            return  # neither this dialog's handlers nor its bindings (Esc, Enter...) see it
        await super().on_event(event)

    def types_through(self, event: Key | Paste) -> bool:
        """Whether ``event``, reaching the armed dialog, is typing meant for the prompt: a paste,
        a printable character other than a digit (digits pick a choice), Backspace or Delete. Keys
        for a text field of the dialog's own (its note) stay there."""
        if isinstance(self.focused, Input | TextArea):
            return False
        if isinstance(event, Paste):
            return True
        if event.key in ("backspace", "delete"):
            return True
        character = event.character
        return bool(event.is_printable and character and not character.isdigit())

    def _early(self, event: Key | Paste) -> None:
        """A key or paste before the dialog takes keys: it goes to the prompt below, and the dialog
        waits another ``ARM_DELAY`` (a sentence typed across the opening lands there whole)."""
        event.stop()
        event.prevent_default()
        if self._arm_timer is not None:
            self._restart_arming()
        target = self.typing_target
        if target is None or not target.is_attached:
            return
        if isinstance(event, Key):
            early_keys.pass_key(target, event)
        else:
            early_keys.pass_paste(target, event)


def _tell_prompt(target: Widget | None, *, dialog_open: bool) -> None:
    """Let the prompt below say, while the dialog is up, what typing and Enter do there."""
    show = getattr(target, "show_dialog_open", None)
    if callable(show):
        show(dialog_open)
