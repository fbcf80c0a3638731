"""The keys F1 and ``/help`` list: generated from the bindings in effect, then the keys whose
meaning depends on the moment, which no binding declares."""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding
from textual.dom import DOMNode

from zett_tui.ui.key_names import binding_label


def keys_in_effect(active: Iterable[tuple[DOMNode, Binding, bool, str]]) -> list[tuple[str, str]]:
    """Every key binding of ``active`` (``App.active_bindings``' values) that does something, with
    what it does, then ``MOMENT_KEYS``."""
    seen: dict[str, str] = {}
    for node, binding, enabled, tooltip in active:
        if enabled and binding.description and _declared_by_zett(node, binding):
            seen.setdefault(binding_label(binding), tooltip or binding.description)
    return sorted(seen.items()) + list(MOMENT_KEYS)


#: Keys that mean something else while a turn runs, on an empty prompt or pressed twice: the prompt
#: and the screen handle them in code (``Composer._take_key``, ``action_cancel_turn``).
MOMENT_KEYS = (
    ("Enter, while a turn runs", "Tell the running turn (steer it; the note shows where it went in)"),
    ("Tab, while a turn runs", "Queue the prompt for after the turn"),
    ("Up, on an empty prompt", "Take the last queued prompt back to edit (Down puts it back)"),
    ("Esc Esc, at idle on an empty prompt", "Rewind: pick a turn to go back to (/rewind)"),
)


def _declared_by_zett(node: object, binding: Binding) -> bool:
    """True for bindings zett's own classes declare: the help leaves out TextArea's editing keys."""
    if binding.action in ("command_palette", "app.command_palette"):
        return True
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("zett_tui"):
            continue
        for declared in cls.__dict__.get("BINDINGS", ()):
            if isinstance(declared, Binding) and declared.action == binding.action:
                return True
    return False
