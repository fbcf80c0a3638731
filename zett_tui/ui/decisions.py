"""Turns the runtime's questions into dialogs, one at a time, and sends each answer back.

Several questions can be pending at once (parallel shell calls): they queue and are asked one
after another, none lost. When the turn ends or is cancelled, open and queued dialogs close
without answering; the runtime has already given up on them, and a late answer would be refused.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from zett_tui.runtime.events import DecisionRequested
from zett_tui.ui.modals.shell_approval import RUN, shell_approval_dialog
from zett_tui.ui.widgets.transcript import NoticeBlock

if TYPE_CHECKING:
    from zett_tui.ui.screens.chat import ChatScreen

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """What goes back to the runtime, and the one line the transcript keeps about it."""

    payload: dict[str, Any]
    record: str
    level: str = "decision"


DialogFactory = Callable[[DecisionRequested], tuple[Screen[Any], Callable[[Any], Answer]]]


def _shell(decision: DecisionRequested) -> tuple[Screen[Any], Callable[[Any], Answer]]:
    payload = decision.payload
    command = str(payload.get("command", ""))
    call_id = payload.get("tool_call_id")
    screen = shell_approval_dialog(command, _cwd(), int(payload.get("timeout_seconds", 60)))

    def answer(result: Any) -> Answer:
        if result == RUN:
            return Answer({"tool_call_id": call_id, "decision": "execute"}, f"✓ You allowed: {command}")
        return Answer({"tool_call_id": call_id, "decision": "abort"}, f"✗ You refused: {command}")

    return screen, answer


def _cwd() -> Any:
    from pathlib import Path

    return Path.cwd()


class DecisionDialogs:
    """The queue of pending questions for one chat screen."""

    factories: dict[str, DialogFactory] = {"shell_approval_requested": _shell}

    def __init__(self, chat: ChatScreen) -> None:
        self.chat = chat
        self.pending: deque[DecisionRequested] = deque()
        self.open: Screen[Any] | None = None

    def request(self, decision: DecisionRequested) -> None:
        self.pending.append(decision)
        if self.open is None:
            self._show_next()

    def close_all(self) -> None:
        self.pending.clear()
        screen, self.open = self.open, None
        if screen is not None and screen.is_attached:
            screen.dismiss(None)

    def _show_next(self) -> None:
        if not self.pending:
            return
        decision = self.pending.popleft()
        factory = self.factories.get(decision.kind)
        if factory is None:
            self._unsupported(decision)
            self._show_next()
            return
        screen, to_answer = factory(decision)

        def dismissed(result: Any) -> None:
            if self.open is not screen:
                return  # closed by close_all: the turn ended, nothing to answer
            self.open = None
            answer = to_answer(result)
            accepted = self.chat.host is not None and self.chat.host.answer(decision, answer.payload)
            if accepted:
                self.chat.transcript.add(NoticeBlock(answer.record, answer.level))
            else:
                log.info("late or duplicate answer to %s ignored", decision.kind)
            self._show_next()

        self.open = screen
        if self.chat.launch.bell:
            self.chat.app.bell()
        self.chat.app.push_screen(screen, dismissed)

    def _unsupported(self, decision: DecisionRequested) -> None:
        log.warning("no dialog for %s", decision.kind)
        self.chat.transcript.add(
            NoticeBlock(f"zett cannot answer '{decision.kind}' yet; it was declined.", "warning")
        )
        if self.chat.host is not None:
            self.chat.host.answer(
                decision, {"tool_call_id": decision.payload.get("tool_call_id"), "decision": "abort"}
            )
