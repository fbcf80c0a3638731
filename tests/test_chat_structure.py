"""The chat screen is a composition root, kept by a test: its helpers do not reach into it.

A "reach-in" is code outside ``ui/chat/screen.py`` that reads or writes the chat screen's widgets
or parts through the screen (``chat.transcript``, ``chat.composer``, ``chat.status``,
``chat.host``, ``chat.launch``, ``chat.busy``, ``self._chat.host``...). Each one ties a helper to
the screen's insides; they go through ``ChatView`` (``ui/chat/view.py``) or the session core
instead. Issue 29 counted 74, then 26, then 5; the bound is 2 (the app reading the chat's
settings, which the folder's trust may change), and none outside ``ui/``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "zett_tui"
SCREEN = PACKAGE / "ui" / "chat" / "screen.py"

#: The same pattern as the issue's grep: ``grep -rnE "chat\\.(transcript|composer|status|host|launch|busy)\\b"``.
REACH_IN = re.compile(r"chat\.(transcript|composer|status|host|launch|busy)\b")
MOST_REACH_INS = 2


def reach_ins(under: Path) -> list[str]:
    found: list[str] = []
    for path in sorted(under.rglob("*.py")):
        if path == SCREEN:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if REACH_IN.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_the_chat_screen_is_reached_into_at_most_twice() -> None:
    found = reach_ins(PACKAGE)
    assert len(found) <= MOST_REACH_INS, "\n".join(found)


def test_nothing_outside_the_ui_reaches_into_the_chat_screen() -> None:
    found = [line for line in reach_ins(PACKAGE) if not line.startswith("zett_tui/ui/")]
    assert not found, "\n".join(found)


def test_the_pattern_finds_a_reach_in() -> None:
    """The count above cannot pass by a pattern that finds nothing."""
    assert REACH_IN.search("    chat.status.activity = 'thinking'")
    assert REACH_IN.search("host = self._chat.host")
    assert not REACH_IN.search("chat.say('hello')")
