"""The chat's side of its turns: what is shown when a turn starts and ends, on the session core.

A turn is a prompt answered, an interrupted turn carried on (``/continue``) or the older turns
summarized (``/compact``). The session core (``runtime.session.SessionCore``) runs each one, one at
a time, owns the queue of prompts and steering notes (``runtime.prompt_queue``) and puts the
runtime's questions to the chat's dialogs; this object starts each turn in one exclusive worker of
the chat screen and shows its events with one ``TurnPresenter``. While a turn runs, a prompt sent
with Enter goes into that turn as a steering message (the runtime delivers it at its next model
call) and one sent with Tab waits in the queue for the turn to end; stopping the turn sends
nothing, and gives what was waiting back to the composer. Everything else in the UI asks this
object (submit, queue, continue, compact, cancel, steer, ``busy``, ``queued``) and never touches
the worker or the presenter itself.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, WorkerState

from zett_tui.core.long_lived_objects import hold_full_collections, settle_after_turn
from zett_tui.runtime.prompt_queue import PromptQueue
from zett_tui.ui.speed.drawn_styles import forget_drawn_styles

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from zett_tui.runtime.events import UIEvent
    from zett_tui.runtime.session import SessionCore
    from zett_tui.runtime.turn_model import TurnModel
    from zett_tui.ui.chat.presenter import TurnPresenter
    from zett_tui.ui.chat.view import ChatView

log = logging.getLogger(__name__)


class TurnRunner:
    """The turns of one chat screen, run by its session core."""

    def __init__(self, chat: ChatView, answer_model: str | None) -> None:
        self._chat = chat
        #: Prompts waiting for the turn to end, and notes on their way into it (shown above the
        #: prompt). Made here, so prompts typed while the model starts wait in it; the session core
        #: takes it over once it opens (``attach``).
        self.queue = PromptQueue()
        # Up and Down take prompts out of the queue and put them back between turns: the count follows
        self.queue.on_change(self._show_queued_count)
        #: The session, once the model is ready (None before, and for good when it could not start).
        self.session: SessionCore | None = None
        #: Why nothing can be sent from here (read-only, the model failed to start), and how loud.
        self._refusal: tuple[str, SeverityLevel] | None = None
        self._worker: Worker[Any] | None = None
        self._presenter: TurnPresenter | None = None
        #: The running worker is a turn that takes steering messages (``/compact`` does not).
        self._steerable = False
        #: The model of the last answer shown: an answer is labelled when its model differs.
        self.answer_model = answer_model
        #: The model answering the running turn (the label ``answer_model`` becomes if it answers).
        self._turn_model = ""
        #: What the running turn is for (its prompt), and how the runtime said it ended.
        self._about = ""
        self._ended: str | None = None

    def attach(self, session: SessionCore) -> None:
        """The session opened: its events come here, and the prompts queued meanwhile start."""
        self.session = session
        session.listeners.append(self._on_event)
        self.start_next()

    def refuse_sends(self, why: str, severity: SeverityLevel = "information") -> None:
        """From now on a prompt is not sent: ``why`` says so, and the prompt stays in the composer."""
        self._refusal = (why, severity)

    # -- what the rest of the UI asks --------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A turn (or ``/compact``) is running."""
        return self._worker is not None and self._worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    @property
    def settled(self) -> bool:
        """No turn runs and the end of the last one has been handled (status idle, queue looked at)."""
        return self._worker is None

    @property
    def queued(self) -> int:
        """Prompts waiting for their turn."""
        return len(self.queue)

    def submit(self, text: str) -> None:
        """A prompt sent with Enter: a turn now, a steering message for the running turn, or
        (before the model is ready, or when the turn takes no more notes) queued."""
        if not self._may_send(text):
            return
        # A pasted image needs a turn of its own: a steering message carries text only.
        if self.busy and self._steerable and "[Image #" not in text and self.steer(text):
            return
        self.queue_for_later(text)

    def submit_with_model(self, text: str, model: TurnModel, *, put_back: str) -> None:
        """A prompt answered by ``model`` for this turn only (a Markdown command's ``model``).

        It needs a turn of its own: while a turn runs (or prompts wait) it is not sent, a line
        says so, and ``put_back`` (the command as typed) goes back into an empty prompt."""
        if not self._may_send(text):
            return
        if self.session is None or self.busy or len(self.queue):
            self._chat.say(
                f"{put_back.split()[0]} runs with its own model ({model.label}) in a turn of its own: "
                "nothing was sent while another runs; send it again once zett is idle.",
                "warning",
            )
            self._chat.prompt.put_back(put_back)
            return
        self._start_turn(self.session, text, model=model)
        self._sync_queue()

    def queue_for_later(self, text: str) -> None:
        """A prompt sent with Tab during a turn (or Enter before the model is ready): it waits."""
        if not self._may_send(text):
            return
        self.queue.add(text)
        self.start_next()

    def _may_send(self, text: str) -> bool:
        if self._refusal is None:
            return True
        why, severity = self._refusal
        self._chat.notify(why, severity=severity)
        self._chat.prompt.put_back(text)  # the prompt is not lost with the turn that did not start
        return False

    def start_next(self) -> None:
        """Start the next queued prompt if zett is ready and idle; the status line shows the rest."""
        if not self.busy and self.session is not None:
            prompt = self.queue.pop_next()
            if prompt is not None:
                self._start_turn(self.session, prompt)
        self._sync_queue()

    def _show_queued_count(self) -> None:
        self._chat.show_queued(len(self.queue))

    def _sync_queue(self) -> None:
        """The status line's count, and whether Tab queues (a turn runs or the model is not ready)."""
        self.queue.holding = self.busy or self.session is None
        self._chat.show_queue(len(self.queue), turn_running=self.busy and self._steerable)

    def continue_interrupted(self) -> None:
        """``/continue``: carry on the turn that was cut off."""
        session = self.session
        if session is None or self.busy:
            self._chat.notify("Wait until zett is idle to continue the interrupted turn.")
            return
        self._chat.run_worker(self._continue_if_cut_off(session), group="continue", exit_on_error=False)

    async def _continue_if_cut_off(self, session: SessionCore) -> None:
        """Carry on the last turn only when the runtime says it was cut off; else say so."""
        if await session.host.resume_point() is None:
            self._chat.say("Nothing to continue: the last turn ended (or there is none yet).", "warning")
        elif self.busy:
            self._chat.notify("Wait until zett is idle to continue the interrupted turn.")
        else:
            self._start_turn(session, None)
            self._sync_queue()

    def compact(self) -> None:
        """``/compact``: summarize the older turns now, as a turn of its own."""
        chat, session = self._chat, self.session
        if session is None:
            return
        if self.busy:
            chat.say("A turn is running; /compact again when it ends (Esc stops it).", "warning")
            return
        self._begin(chat.new_presenter(None), "/compact", session.host.model_label, steerable=False)
        self._worker = chat.run_worker(
            self._compact(session), group="turn", exclusive=True, exit_on_error=False
        )
        self._sync_queue()

    def steer(self, text: str) -> bool:
        """Send ``text`` to the running turn as a steering message; False when no turn takes it."""
        return self.session is not None and self.session.steer(text)

    def tell(self, text: str) -> bool:
        """A dialog's note to the running turn (not listed as the user's steering); False when none runs."""
        return self.session is not None and self.session.tell(text)

    def decision_answered(self, call_id: str, *, declined: bool, outcome: str, session_id: str = "") -> None:
        """The user's answer about a tool call (of ``session_id``) went back to the runtime: its row
        runs again."""
        if self._presenter is not None:
            self._presenter.user_answered(call_id, declined=declined, outcome=outcome, session_id=session_id)

    def cancel(self) -> bool:
        """Cancel the running turn (model stream and tool process alike). False when none runs.

        Nothing waiting is sent: the queued prompts and the notes not yet delivered come back to
        the composer as one text, before what was being typed, to be sent (or not) with Enter."""
        if not self.busy or self._worker is None:
            return False
        if self.session is None or not self.session.cancel():
            self._worker.cancel()  # the core has not started it yet: the worker goes, and it with it
        self._chat.close_dialogs()
        self._give_back_unsent()
        return True

    def _give_back_unsent(self) -> None:
        unsent = self.queue.drain()
        self._sync_queue()
        if unsent:
            self._chat.prompt.give_back(unsent)

    async def stop(self) -> None:
        """Cancel a running turn and wait until it is recorded (the app is quitting).

        A worker Textual already cancelled (the app is ending after a crash) is not cancelled again:
        a second cancellation would cut short its wait for the runtime to record the turn."""
        worker = self._worker
        if worker is not None and self.busy:
            if not worker.is_cancelled:
                worker.cancel()
            try:
                await worker.wait()
            except Exception:
                log.debug("turn ended with an error during shutdown", exc_info=True)

    def worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The chat screen's worker messages: a turn that ended is tidied up and the next one starts."""
        if event.worker is not self._worker:
            return
        chat = self._chat
        if event.state is WorkerState.ERROR:
            from zett_tui.runtime.events import TurnFinished

            log.error("turn worker failed", exc_info=event.worker.error)
            if self._presenter is not None:
                self._presenter.finish(TurnFinished("failed", f"Internal error: {event.worker.error!r}"))
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            ended = "failed" if event.state is WorkerState.ERROR else self._ended
            if (
                event.state is not WorkerState.CANCELLED
                and ended in ("completed", "failed")
                and not self.queued
            ):
                chat.turn_ended(self._about, failed=ended == "failed")
            self._worker = None
            self._presenter = None
            self.queue.forget_steers()
            chat.turn_settled()
            forget_drawn_styles()
            settle_after_turn()
            chat.collect_when_quiet()
            chat.call_later(self.start_next)

    # -- running -----------------------------------------------------------------------------------

    def _begin(self, presenter: TurnPresenter, about: str, model: str, *, steerable: bool) -> None:
        self._presenter = presenter
        self._about, self._ended = about, None
        hold_full_collections()
        self._turn_model = model
        self._steerable = steerable

    def _start_turn(
        self, session: SessionCore, prompt: str | None, *, model: TurnModel | None = None
    ) -> None:
        """Start a turn for ``prompt``, or carry on the interrupted one when it is None; ``model``
        answers it instead of the session's model."""
        chat = self._chat
        chat.show_prompt(prompt)
        label = model.label if model is not None else session.host.model_label
        about = prompt if prompt is not None else "Continuing the interrupted turn"
        self._begin(
            chat.new_presenter(label if label != self.answer_model else None), about, label, steerable=True
        )
        chat.show_todos(
            session.host.todos.items, turn_running=True
        )  # the checklist, pinned while the turn runs
        self._worker = chat.run_worker(
            self._run_turn(session, prompt, model),
            group="turn",
            exclusive=True,
            exit_on_error=False,
        )

    async def _run_turn(self, session: SessionCore, prompt: str | None, model: TurnModel | None) -> None:
        if prompt is None:
            await session.continue_turn()
        else:
            await session.prompt(prompt, model=model)

    async def _compact(self, session: SessionCore) -> None:
        from zett_tui.runtime.events import Notice
        from zett_tui.runtime.session import NOTHING_TO_COMPACT

        notices = 0

        def count_notices(event: UIEvent) -> None:
            nonlocal notices
            notices += isinstance(event, Notice)

        session.listeners.append(count_notices)
        try:
            finished = await session.compact()
        finally:
            session.listeners.remove(count_notices)
        if finished.status == "completed" and finished.answer == NOTHING_TO_COMPACT and not notices:
            self._chat.say(
                "Nothing to compact yet: the latest turn is always kept word for word, and there is "
                "no older one."
            )

    def _on_event(self, event: UIEvent) -> None:
        """Where the events of a turn (or of ``/compact``) go, from the session core."""
        from zett_tui.runtime.events import (
            ContextMeasured,
            DecisionRequested,
            ToolFinished,
            TurnFinished,
        )

        chat, presenter = self._chat, self._presenter
        if not chat.is_running:
            return  # the screen is closing (a turn cancelled as the app quits): nothing shows it now
        if isinstance(event, ContextMeasured):
            chat.show_context(event)
            return
        if presenter is None:
            return
        if isinstance(event, DecisionRequested):  # the core queues it for the dialogs
            presenter.flush()
            call_id = event.payload.get("tool_call_id")
            if isinstance(call_id, str) and event.asker:  # a subagent's call: its row under the task
                presenter.subagent_waiting(call_id, True, event.session_id)
            elif isinstance(call_id, str):
                presenter.waiting_for_user(call_id, event.call)
            return
        presenter.handle(event)
        if isinstance(event, ToolFinished):  # a read's "yes, for this session" may change
            chat.refresh_attachments()
        if isinstance(event, TurnFinished):
            self._ended = event.status
            chat.show_tokens(presenter.stats.input_tokens, presenter.stats.output_tokens)
            if presenter.answered:
                self.answer_model = self._turn_model
