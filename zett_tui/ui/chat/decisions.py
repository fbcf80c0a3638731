"""The chat's asker: the session core's questions (``runtime.decisions.Asker``) as dialogs.

The session core (``runtime.session``) queues the runtime's questions and puts them here one at a
time, in the order asked; a question that a rule saved meanwhile allows is settled there without
asking. ``ask`` shows the question's dialog with ``push_screen_wait`` in a worker and returns the
gate's typed reply. When the turn ends or is cancelled, the core cancels the question being asked:
its dialog closes without an answer (the runtime has already given up on it, and a late answer
would be refused).

What each answer means for the runtime lives in ``zett_tui.ui.chat.answers``; this module only
shows dialogs (ringing the bell, and telling ``ui/attention.py`` so a user who is elsewhere gets a
notification), keeps the one-line record of each answer the runtime took (``answered``), and runs
what an answer asked for afterwards (a steering note, a saved rule, the mode chosen with a plan).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from zett_tui.runtime.decisions import ShellRequest, parse_request
from zett_tui.runtime.events import DecisionRequested, ToolFinished, UIEvent
from zett_tui.ui.chat.answers import FACTORIES, Answer, DialogFactory, FollowUp
from zett_tui.ui.chat.question_line import question_line

if TYPE_CHECKING:
    from pathlib import Path

    from zett_tui.runtime.decisions import Reply, Request
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.session import DecisionAnswered, SessionCore
    from zett_tui.ui.chat.view import ChatView

log = logging.getLogger(__name__)

__all__ = ["Answer", "DecisionDialogs"]


class DecisionDialogs:
    """The dialogs that answer one chat's session core, one question at a time."""

    factories: dict[str, DialogFactory] = FACTORIES

    def __init__(self, chat: ChatView, cwd: Path) -> None:
        self.chat = chat
        #: The project folder (what dialogs show paths against).
        self.cwd = cwd
        self.session: SessionCore | None = None
        self.open: Screen[Any] | None = None
        #: The question the open dialog asks.
        self.current: DecisionRequested | None = None
        #: The answer the open dialog gave, until the core says the runtime took it.
        self._given: tuple[DecisionRequested, Answer] | None = None
        #: What to do when an approved call finishes, by tool call id (the mode chosen with a plan).
        self._after_tool: dict[str, FollowUp] = {}

    def attach(self, session: SessionCore) -> None:
        """Answer ``session``'s questions from now on."""
        self.session = session
        session.listeners.append(self.observe)
        session.answer_listeners.append(self.answered)

    @property
    def host(self) -> AgentHost | None:
        """The session's host (None before the model is ready)."""
        return self.session.host if self.session is not None else None

    @property
    def pending(self) -> Sequence[DecisionRequested]:
        """The questions waiting behind the open one."""
        return self.session.waiting if self.session is not None else ()

    # -- the core's asker ---------------------------------------------------------------------------

    async def ask(self, request: Request) -> Reply:
        decision = self.session.asking if self.session is not None else None
        if decision is None:  # asked by something else than the session core: it knows no more
            decision = DecisionRequested(
                request.kind, request.session_id, {"tool_call_id": request.tool_call_id}
            )
        factory = self.factories.get(decision.kind)
        if factory is None:
            log.warning("no dialog for %s", decision.kind)
            self.chat.say(f"zett cannot answer '{decision.kind}' yet; it was declined.", "warning")
            return request.refuse()
        screen, to_answer = factory(request, self.host, self.cwd)
        if decision.asker:
            name_the_asker(screen, decision.asker)
        self.open, self.current = screen, decision
        self.chat.dialog_opened(question_line(decision))
        worker = self.chat.run_worker(self._wait_for(screen), group="decision", exit_on_error=False)
        try:
            picked = await worker.wait()
        except asyncio.CancelledError:  # the turn ended or was stopped: no answer
            self.close_all()
            worker.cancel()
            raise
        except Exception:  # the dialog's worker was cancelled (the screen went away): no answer
            self.close_all()
            raise asyncio.CancelledError from None
        if self.open is not screen:  # closed by ``close_all``: the turn is being stopped
            raise asyncio.CancelledError
        self.open = self.current = None
        answer = to_answer(picked)
        self._given = (decision, answer)
        return answer.reply

    async def _wait_for(self, screen: Screen[Any]) -> Any:
        return await self.chat.app.push_screen_wait(screen)

    def observe(self, event: UIEvent) -> None:
        """See every event of the turn: an approved call's follow-up runs once it has finished."""
        if isinstance(event, ToolFinished):
            follow_up = self._after_tool.pop(event.call_id, None)
            if follow_up is not None and event.state == "done":
                self._run(follow_up, "after the approved call")

    def close_all(self) -> None:
        """Close the open dialog without answering (the turn is being stopped)."""
        self._after_tool.clear()
        self._given = None
        screen, self.open, self.current = self.open, None, None
        if screen is not None and screen.is_attached:
            screen.dismiss(None)

    # -- after the runtime took an answer ----------------------------------------------------------

    def answered(self, answered: DecisionAnswered) -> None:
        """The core sent an answer and the runtime took it: the record, and what follows."""
        decision = answered.decision
        if answered.settled_by:
            request = parse_request(decision)
            if not isinstance(request, ShellRequest):
                return
            answer = Answer(
                answered.reply,
                f"✓ Ran without asking: {request.command} (allowed by {answered.settled_by})",
            )
        elif self._given is not None and self._given[0] is decision:
            answer = self._given[1]
            self._given = None
        else:
            return  # no dialog gave it (a question zett cannot put): nothing to record
        self._record(decision, answer)

    def _record(self, decision: DecisionRequested, answer: Answer) -> None:
        host = self.host
        if host is None:
            return
        record = f"{answer.record} (subagent {decision.asker})" if decision.asker else answer.record
        if not answer.outcome:  # an outcome is shown on the tool's row: once is enough
            self.chat.say(record, answer.level)
        call_id = decision.payload.get("tool_call_id")
        host.note_decision(
            record,
            call_id if isinstance(call_id, str) else None,
            declined=answer.declined,
            subagent_session=decision.session_id if decision.asker else None,
        )
        if isinstance(call_id, str):
            self.chat.turns.decision_answered(
                call_id, declined=answer.declined, outcome=answer.outcome, session_id=decision.session_id
            )
        if answer.steer and not self.chat.turns.tell(answer.steer):
            self.chat.say(
                f"The note could not reach the model (the turn had ended): {answer.steer}", "warning"
            )
        if answer.accepted is not None:
            self._run(answer.accepted, "after the answer")
        if answer.after_tool is not None and isinstance(call_id, str):
            self._after_tool[call_id] = answer.after_tool

    def _run(self, follow_up: FollowUp, when: str) -> None:
        if self.session is None:
            return
        try:
            follow_up(self.session)
        except Exception as error:  # a follow-up failing must not take the dialog queue down
            log.warning("follow-up %s failed", when, exc_info=True)
            self.chat.say(f"That could not be done: {error}", "warning")


def name_the_asker(screen: Screen[Any], asker: str) -> None:
    """A subagent's question says which one asks, above what it asks (``runtime.subagents``)."""
    from rich.text import Text

    from zett_tui.ui.modals.choice_dialog import ChoiceDialog

    if not isinstance(screen, ChoiceDialog):
        return
    prefix = f"Subagent {asker} asks\n"
    title = screen.title_text
    screen.title_text = Text(prefix, style="bold") + (title if isinstance(title, Text) else Text(str(title)))
