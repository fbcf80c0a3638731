"""Keys written the way the README writes them: ``Ctrl+C``, ``Shift+Enter``, ``Esc``, ``F1``.

Textual's own display (``^c``, ``shift+⏎``) differs from the README and from what zett says
elsewhere; F1 help, ``/help`` and the browser's key line all go through ``key_label``.
"""

from __future__ import annotations

import re

from textual.binding import Binding

_NAMES = {
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "space": "Space",
    "backspace": "Backspace",
    "delete": "Delete",
    "insert": "Insert",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "home": "Home",
    "end": "End",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "slash": "/",
    "question_mark": "?",
}
_FUNCTION_KEY = re.compile(r"f\d{1,2}")


def key_label(key: str) -> str:
    """One Textual key name (``ctrl+c``, ``shift+enter``, ``f1``) as zett writes it."""
    *modifiers, last = key.strip().split("+")
    if last in _NAMES:
        name = _NAMES[last]
    elif len(last) == 1 or _FUNCTION_KEY.fullmatch(last):
        name = last.upper()
    else:
        name = last.replace("_", " ").title()
    return "+".join([*(modifier.title() for modifier in modifiers), name])


def binding_label(binding: Binding) -> str:
    """A binding's keys (``"ctrl+c,ctrl+q"`` is two), written as ``key_label`` writes them."""
    return " / ".join(key_label(key) for key in binding.key.split(",") if key.strip())
