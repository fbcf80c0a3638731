"""The key line under a ``ChoiceDialog``'s choices: what it says in each state."""

from __future__ import annotations

__all__ = [
    "KEYS_CAUTIOUS",
    "KEYS_CAUTIOUS_SUBMENU",
    "KEYS_CHOICES",
    "KEYS_NOTE",
    "KEYS_SCROLL",
    "KEYS_SUBMENU",
    "KEYS_WAITING",
    "KEYS_WAITING_TYPING",
    "key_line",
]

#: What the key line says in each state.
KEYS_CHOICES = "Enter choose · ↑/↓ move · 1-9 pick · Esc decline"
KEYS_SUBMENU = "Enter choose · ↑/↓ move · 1-9 pick · Esc back"
KEYS_NOTE = "Enter send · Esc back"
KEYS_SCROLL = " · PgUp/PgDn scroll"
#: The key line of a dialog with a ``safe_choice`` (number keys are off there).
KEYS_CAUTIOUS = "Enter choose · ↑/↓ move · Esc decline"
KEYS_CAUTIOUS_SUBMENU = "Enter choose · ↑/↓ move · Esc back"
#: The key line until the dialog takes keys.
KEYS_WAITING = "…"
KEYS_WAITING_TYPING = "…  (what you type still goes to your prompt)"


def key_line(
    keys: str, *, armed: bool, typing_goes_on: bool, key_help: str, cautious: bool, body_scrolls: bool
) -> str:
    """The line for ``keys`` (``KEYS_CHOICES`` means the dialog's own ``key_help``): the waiting
    dots until the dialog is armed (``typing_goes_on``: saying where typing goes meanwhile), the
    cautious words in a dialog whose number keys are off, and how to scroll a body that scrolls."""
    if not armed:
        text = KEYS_WAITING_TYPING if typing_goes_on else KEYS_WAITING
    elif keys == KEYS_CHOICES:
        text = key_help
    elif keys == KEYS_SUBMENU and cautious:
        text = KEYS_CAUTIOUS_SUBMENU
    else:
        text = keys
    says_scroll = text in (KEYS_WAITING, KEYS_WAITING_TYPING) or KEYS_SCROLL.strip(" ·") in text
    return text + (KEYS_SCROLL if body_scrolls and not says_scroll else "")
