"""Turns the runtime's questions into dialogs, one at a time, and sends each answer back.

Several questions can be pending at once (parallel shell calls): they queue and are asked one
after another, none lost. When the turn ends or is cancelled, open and queued dialogs close
without answering; the runtime has already given up on them, and a late answer would be refused.

What each answer means for the runtime lives in ``zett_tui.ui.chat.answers``; this module
only shows dialogs (ringing the bell, and telling ``ui/attention.py`` so a user who is elsewhere
gets a notification), sends answers, keeps the one-line record, and runs what an answer asked for
afterwards (a steering note, a saved rule, the mode chosen with a plan).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from zett_tui.runtime.decisions import parse_request
from zett_tui.runtime.events import DecisionRequested, ToolFinished, UIEvent
from zett_tui.ui.chat.answers import FACTORIES, SETTLED, Answer, DialogFactory
from zett_tui.ui.chat.question_line import question_line

if TYPE_CHECKING:
    from pathlib import Path

    from zett_tui.runtime.host import AgentHost
    from zett_tui.ui.chat.view import ChatView

log = logging.getLogger(__name__)

__all__ = ["Answer", "DecisionDialogs"]


class DecisionDialogs:
    """The queue of pending questions for one chat screen."""

    factories: dict[str, DialogFactory] = FACTORIES

    def __init__(self, chat: ChatView, cwd: Path) -> None:
        self.chat = chat
        #: The project folder (what dialogs show paths against).
        self.cwd = cwd
        self.pending: deque[DecisionRequested] = deque()
        self.open: Screen[Any] | None = None
        #: The question the open dialog asks.
        self.current: DecisionRequested | None = None
        #: What to do when an approved call finishes, by tool call id (the mode chosen with a plan).
        self._after_tool: dict[str, Callable[[AgentHost], None]] = {}

    @property
    def host(self) -> AgentHost | None:
        """The session's host (None before the model is ready)."""
        return self.chat.host

    def request(self, decision: DecisionRequested) -> None:
        self.pending.append(decision)
        if self.open is None:
            self._show_next()

    def observe(self, event: UIEvent) -> None:
        """See every event of the turn: an approved call's follow-up runs once it has finished."""
        if isinstance(event, ToolFinished):
            follow_up = self._after_tool.pop(event.call_id, None)
            if follow_up is not None and event.state == "done":
                self._run(follow_up, "after the approved call")

    def close_all(self) -> None:
        self.pending.clear()
        self._after_tool.clear()
        screen, self.open, self.current = self.open, None, None
        if screen is not None and screen.is_attached:
            screen.dismiss(None)

    def _show_next(self) -> None:
        if not self.pending:
            return
        decision = self.pending.popleft()
        request = parse_request(decision)
        settle = SETTLED.get(decision.kind)
        settled = settle(request, self.host) if settle is not None else None
        if settled is not None:
            self._send(decision, settled)
            self._show_next()
            return
        factory = self.factories.get(decision.kind)
        if factory is None:
            self._unsupported(decision)
            self._show_next()
            return
        screen, to_answer = factory(request, self.host, self.cwd)
        if decision.asker:
            name_the_asker(screen, decision.asker)

        def dismissed(result: Any) -> None:
            if self.open is not screen:
                return  # closed by close_all: the turn ended, nothing to answer
            self.open = self.current = None
            self.chat.set_activity("working")
            self._send(decision, to_answer(result))
            self._show_next()

        self.open, self.current = screen, decision
        self.chat.set_activity("waiting for you")
        self.chat.dialog_opened(question_line(decision))
        self.chat.app.push_screen(screen, dismissed)

    def _send(self, decision: DecisionRequested, answer: Answer) -> None:
        host = self.host
        if host is None or not host.answer(decision, answer.reply):
            log.info("late or duplicate answer to %s ignored", decision.kind)
            return
        record = f"{answer.record} (subagent {decision.asker})" if decision.asker else answer.record
        if not answer.outcome:  # an outcome is shown on the tool's row: once is enough
            self.chat.say(record, answer.level)
        call_id = decision.payload.get("tool_call_id")
        host.note_decision(record, call_id if isinstance(call_id, str) else None, declined=answer.declined)
        if isinstance(call_id, str):
            self.chat.turns.decision_answered(call_id, declined=answer.declined, outcome=answer.outcome)
        if answer.steer and not self.chat.turns.steer(answer.steer):
            self.chat.say(
                f"The note could not reach the model (the turn had ended): {answer.steer}", "warning"
            )
        if answer.accepted is not None:
            self._run(answer.accepted, "after the answer")
        if answer.after_tool is not None and isinstance(call_id, str):
            self._after_tool[call_id] = answer.after_tool

    def _run(self, follow_up: Callable[[AgentHost], None], when: str) -> None:
        host = self.host
        if host is None:
            return
        try:
            follow_up(host)
        except Exception as error:  # a follow-up failing must not take the dialog queue down
            log.warning("follow-up %s failed", when, exc_info=True)
            self.chat.say(f"That could not be done: {error}", "warning")
        self.chat.sync_mode()

    def _unsupported(self, decision: DecisionRequested) -> None:
        log.warning("no dialog for %s", decision.kind)
        self.chat.say(f"zett cannot answer '{decision.kind}' yet; it was declined.", "warning")
        if self.host is not None:
            self.host.answer(decision, parse_request(decision).refuse())


def name_the_asker(screen: Screen[Any], asker: str) -> None:
    """A subagent's question says which one asks, above what it asks (``runtime.subagents``)."""
    from rich.text import Text

    from zett_tui.ui.modals.choice_dialog import ChoiceDialog

    if not isinstance(screen, ChoiceDialog):
        return
    prefix = f"Subagent {asker} asks\n"
    title = screen.title_text
    screen.title_text = Text(prefix, style="bold") + (title if isinstance(title, Text) else Text(str(title)))
