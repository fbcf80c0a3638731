"""Keys reach the prompt in the order they were typed, and typing reaches the prompt wherever the
focus is.

Why this is needed: Textual runs a key's *binding* (Backspace, Ctrl+J, the arrows, Ctrl+W, Esc...)
only once the key has come back up from the focused widget, through the screen's and then the
app's message queue, while the keys typed after it, already queued at the widget, are typed at
once. In a burst (a fast typist, a busy frame, a terminal over SSH) Backspace and Ctrl+J were
applied after letters typed later (``@momod`` sent for ``@mod41``). And the app's priority
bindings (Ctrl+C, Ctrl+D) ran as the key arrived at the app, before the keys typed ahead of it had
reached the prompt: Ctrl+D could quit on a prompt that was about to hold text.

So the app hands each key for the chat's prompt straight to it (``send_to_prompt``), and the
prompt runs a key's bindings itself (``run_bindings``: the priority ones first, as Textual would,
then, when its own handling did not take the key, the others), before it looks at the next key.
One queue, one order.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input, TextArea

from zett_tui.ui.textual_compat import forward_input, run_key_bindings

#: Keys that are typing even though they are not printable: they go to the prompt too.
TYPING_KEYS = frozenset({"enter", "backspace", "ctrl+j", "shift+enter"})


def is_typing(event: events.Key | events.Paste) -> bool:
    """A paste, a printable key, or Enter/Backspace/a new line: what belongs in the prompt."""
    return isinstance(event, events.Paste) or event.is_printable or event.key in TYPING_KEYS


def send_to_prompt(prompt: Widget, event: events.Key | events.Paste) -> bool:
    """Hand a key or paste the app read from the terminal to ``prompt``, in its order; True when
    handed. Typing moves the focus back to the prompt first (after a click on the transcript, say),
    so nothing typed is dropped; other keys go to whatever has the focus. A text field of its own
    that has the focus (the find bar's query) keeps its keys."""
    screen = prompt.screen
    if screen.focused is not prompt:
        if isinstance(screen.focused, Input | TextArea) or not is_typing(event) or not prompt.focusable:
            return False
        screen.set_focus(prompt)
    forward_input(prompt, event)
    return True


async def run_bindings(widget: Widget, event: events.Key, *, priority: bool) -> bool:
    """Run the binding for ``event`` now, on ``widget``'s own screen; True (and the key stopped)
    when one ran. With ``priority`` only the priority bindings (the app's Ctrl+C...), else the rest."""
    if not await run_key_bindings(widget.screen, event.key, priority=priority):
        return False
    event.stop()
    event.prevent_default()
    return True


class PassedKey(events.Key, bubble=False):
    """A copy of a key for the field below; it stays there (no bubbling to screen or app
    bindings) and remembers whether the field's own handlers took it."""

    def __init__(self, key: str, character: str | None) -> None:
        super().__init__(key, character)
        self.taken = False

    def prevent_default(self, prevent: bool = True) -> PassedKey:
        self.taken = self.taken or prevent
        super().prevent_default(prevent)
        return self


#: Handled by ``on_key`` like any key (a subclass would otherwise get its own handler name).
PassedKey.handler_name = events.Key.handler_name
