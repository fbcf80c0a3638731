"""The compact line a turn that changed files ends with: "3 files changed, +20 -4"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def changes_line(count: int, changes: Sequence[Any]) -> str:
    """``count`` files, the sum of their added and removed lines (binary files count no lines)."""
    added = sum(max(_field(c, "added", 1), 0) for c in changes)
    removed = sum(max(_field(c, "removed", 2), 0) for c in changes)
    return f"{count} file{'s' if count != 1 else ''} changed, +{added} -{removed}"


def _field(change: Any, name: str, index: int) -> int:
    value = getattr(change, name, None)
    if value is None:
        value = change[index]
    return int(value)


def turn_changes_text(files: int, added: int, removed: int) -> str:
    """The line a turn that changed files ends with, live and when the session is resumed."""
    return f"{files} file{'s' if files != 1 else ''} changed, +{added} -{removed} (/diff shows them, /rewind takes them back)"
