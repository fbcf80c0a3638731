"""Keys that reach a dialog before it takes keys go to the text box they were being typed into.

A question can open while the user is typing (a follow-up prompt, say); what they were typing
must not answer it. ``ChoiceDialog`` takes no keys until it has been on screen for a moment, and
hands every key it gets before that to this module, which applies it to the text field that had
the focus on the screen below (the chat's prompt), in order, as if the dialog had not opened:

- printable text and pastes go in at that field's cursor (its own key handling: the prompt's
  ``/`` and ``@`` completion and paste placeholders work as usual);
- the field's own editing keys (Backspace, Delete, arrows, Home/End, Ctrl+W, Shift+Enter...) act
  on it;
- Enter becomes a line break in a multi-line field that has text (nothing on an empty one): it
  does not send the prompt, which would be a second action nobody confirmed while looking at the
  dialog, and the break keeps apart what was typed before and after it; the user sends the prompt
  with the next Enter once the dialog is answered;
- a key reaches only the field: what its screen or the app would do with it does not happen
  (Esc stopping the turn, Shift+Tab changing the permission mode, F1...); the field's own meaning
  stays (Esc closes the prompt's completion menu, Tab completes in it), except for actions the
  field lists in ``NOT_FROM_EARLY_KEYS`` (the prompt's Ctrl+G, which opens an editor).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea

from zett_tui.ui.textual_compat import own_bindings
from zett_tui.ui.widgets.keys_in_order import PassedKey


class PassedPaste(events.Paste, bubble=False):
    """A copy of a paste for the field below; it does not bubble."""


# Handled by the same methods as the events they copy (``_on_key``, ``on_key``, ``@on(Key)``...).
PassedPaste.handler_name = events.Paste.handler_name


def typing_target(dialog: Screen[Any]) -> Widget | None:
    """The text field focused on the screen right below ``dialog``, if there is one that takes text."""
    stack = dialog.app.screen_stack
    if dialog not in stack:
        return None
    index = stack.index(dialog)
    if index == 0:
        return None
    focused = stack[index - 1].focused
    if isinstance(focused, TextArea | Input) and focused.is_attached and not focused.disabled:
        return focused
    return None


def pass_key(target: Widget, event: events.Key) -> None:
    """Apply ``event`` to ``target`` as if it had the focus (see the module docstring)."""
    if event.key == "enter":
        target.call_later(_line_break, target)
        return
    passed = PassedKey(event.key, event.character)
    target.post_message(passed)
    target.call_later(_run_own_binding, target, passed)  # queued after the key: order is kept


def pass_paste(target: Widget, event: events.Paste) -> None:
    target.post_message(PassedPaste(event.text))


def _line_break(target: Widget) -> None:
    if isinstance(target, TextArea) and target.is_attached and not target.read_only and target.text:
        target.replace("\n", *target.selection, maintain_selection_offset=False)


async def _run_own_binding(target: Widget, passed: PassedKey) -> None:
    """When the field's handlers did not take the key, its own binding for it (not its screen's
    or the app's) runs: Backspace, arrows, Ctrl+W and the like."""
    if passed.taken or not target.is_attached:
        return
    withheld: frozenset[str] = getattr(target, "NOT_FROM_EARLY_KEYS", frozenset())
    for binding in own_bindings(target, passed.key):
        if binding.action in withheld:
            continue
        if await target.app.run_action(binding.action, target):
            return
