"""The one place that starts and stops a turn of the chat.

A turn is a prompt answered, an interrupted turn carried on (``/continue``) or the older turns
summarized (``/compact``). Each runs in one exclusive worker of the chat screen, its events shown
by one ``TurnPresenter``. While a turn runs, a prompt sent with Enter goes into that turn as a
steering message (the runtime delivers it at its next model call) and one sent with Tab waits in
the queue (``prompt_queue``) for the turn to end; stopping the turn sends nothing, and gives what
was waiting back to the composer. Everything else in the UI asks this object (submit, queue,
continue, compact, cancel, steer, ``busy``, ``queued``) and never touches the worker or the
presenter itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, WorkerState

from zett_tui.core.inert_text import encodable
from zett_tui.core.long_lived_objects import settle_after_turn
from zett_tui.ui.chat.prompt_queue import PromptQueue

if TYPE_CHECKING:
    from zett_tui.runtime.events import UIEvent
    from zett_tui.runtime.host import AgentHost
    from zett_tui.runtime.turn_model import TurnModel
    from zett_tui.ui.chat.presenter import TurnPresenter
    from zett_tui.ui.chat.view import ChatView

log = logging.getLogger(__name__)


class TurnRunner:
    """The prompt queue and the turn running for one chat screen."""

    def __init__(self, chat: ChatView, answer_model: str | None) -> None:
        self._chat = chat
        #: Prompts waiting for the turn to end, and notes on their way into it (shown above the prompt).
        self.queue = PromptQueue()
        # Up and Down take prompts out of the queue and put them back between turns: the count follows
        self.queue.on_change(self._show_queued_count)
        self._worker: Worker[Any] | None = None
        self._presenter: TurnPresenter | None = None
        #: The running worker is a turn that takes steering messages (``/compact`` does not).
        self._steerable = False
        #: The model of the last answer shown: an answer is labelled when its model differs.
        self.answer_model = answer_model
        #: What the running turn is for (its prompt), and how the runtime said it ended.
        self._about = ""
        self._ended: str | None = None

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
            self.queue.steer_sent(encodable(text))  # as the runtime will say it was delivered
            return
        self.queue_for_later(text)

    def submit_with_model(self, text: str, model: TurnModel, *, put_back: str) -> None:
        """A prompt answered by ``model`` for this turn only (a Markdown command's ``model``).

        It needs a turn of its own: while a turn runs (or prompts wait) it is not sent, a line
        says so, and ``put_back`` (the command as typed) goes back into an empty prompt."""
        if not self._may_send(text):
            return
        host = self._chat.host
        if host is None or self.busy or len(self.queue):
            self._chat.say(
                f"{put_back.split()[0]} runs with its own model ({model.label}) in a turn of its own: "
                "nothing was sent while another runs; send it again once zett is idle.",
                "warning",
            )
            self._chat.put_back(put_back)
            return
        self._start_turn(host, text, model=model)
        self._sync_queue()

    def queue_for_later(self, text: str) -> None:
        """A prompt sent with Tab during a turn (or Enter before the model is ready): it waits."""
        if not self._may_send(text):
            return
        self.queue.add(text)
        self.start_next()

    def _may_send(self, text: str) -> bool:
        chat = self._chat
        if not (chat.launch.read_only or chat.warmup_failed):
            return True
        if chat.launch.read_only:
            chat.notify(
                "Nothing was sent: this session is read-only here, another zett is writing it. "
                "/new starts a new one."
            )
        else:
            chat.notify(
                "Nothing was sent: the model could not start; see the message above.", severity="error"
            )
        chat.put_back(text)  # the prompt is not lost with the turn that did not start
        return False

    def start_next(self) -> None:
        """Start the next queued prompt if zett is ready and idle; the status line shows the rest."""
        host = self._chat.host
        if not self.busy and host is not None:
            prompt = self.queue.pop_next()
            if prompt is not None:
                self._start_turn(host, prompt)
        self._sync_queue()

    def _show_queued_count(self) -> None:
        self._chat.show_queued(len(self.queue))

    def _sync_queue(self) -> None:
        """The status line's count, and whether Tab queues (a turn runs or the model is not ready)."""
        self.queue.holding = self.busy or self._chat.host is None
        self._chat.show_queue(len(self.queue), turn_running=self.busy and self._steerable)

    def continue_interrupted(self) -> None:
        """``/continue``: carry on the turn that was cut off."""
        host = self._chat.host
        if host is None or self.busy:
            self._chat.notify("Wait until zett is idle to continue the interrupted turn.")
            return
        self._chat.run_worker(self._continue_if_cut_off(host), group="continue", exit_on_error=False)

    async def _continue_if_cut_off(self, host: AgentHost) -> None:
        """Carry on the last turn only when the runtime says it was cut off; else say so."""
        if await host.resume_point() is None:
            self._chat.say("Nothing to continue: the last turn ended (or there is none yet).", "warning")
        elif self.busy:
            self._chat.notify("Wait until zett is idle to continue the interrupted turn.")
        else:
            self._start_turn(host, None)
            self._sync_queue()

    def compact(self, host: AgentHost) -> None:
        """``/compact``: summarize the older turns now, as a turn of its own."""
        chat = self._chat
        if self.busy:
            chat.say("A turn is running; /compact again when it ends (Esc stops it).", "warning")
            return
        presenter = chat.new_presenter(None, self._chat.set_activity)
        self._presenter = presenter
        self._about, self._ended = "/compact", None
        chat.set_activity("compacting")
        self._steerable = False
        self._worker = chat.run_worker(
            self._compact(host, presenter), group="turn", exclusive=True, exit_on_error=False
        )
        self._sync_queue()

    def steer(self, text: str) -> bool:
        """Send ``text`` to the running turn as a steering message; False when no turn takes it."""
        host = self._chat.host
        return host is not None and host.steer(text)

    def decision_answered(self, call_id: str, *, declined: bool, outcome: str) -> None:
        """The user's answer about a tool call went back to the runtime: its row runs again."""
        if self._presenter is not None:
            self._presenter.user_answered(call_id, declined=declined, outcome=outcome)

    def cancel(self) -> bool:
        """Cancel the running turn (model stream and tool process alike). False when none runs.

        Nothing waiting is sent: the queued prompts and the notes not yet delivered come back to
        the composer as one text, before what was being typed, to be sent (or not) with Enter."""
        if not self.busy or self._worker is None:
            return False
        self._worker.cancel()
        self._chat.close_dialogs()
        self._give_back_unsent()
        return True

    def _give_back_unsent(self) -> None:
        unsent = self.queue.drain()
        self._sync_queue()
        if unsent:
            self._chat.give_back(unsent)

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
            self.queue.forget_steers()
            chat.set_activity("idle")
            settle_after_turn()
            chat.collect_when_quiet()
            chat.call_later(self.start_next)

    # -- running -----------------------------------------------------------------------------------

    def _start_turn(self, host: AgentHost, prompt: str | None, *, model: TurnModel | None = None) -> None:
        """Start a turn for ``prompt``, or carry on the interrupted one when it is None; ``model``
        answers it instead of the session's model."""
        chat = self._chat
        chat.show_prompt(prompt)
        self._about, self._ended = prompt if prompt is not None else "Continuing the interrupted turn", None
        label = model.label if model is not None else host.model_label
        self._presenter = chat.new_presenter(label if label != self.answer_model else None, chat.set_activity)
        chat.show_todos(host.todos.items, turn_running=True)  # the checklist, pinned while the turn runs
        chat.set_activity("thinking")
        self._steerable = True
        self._worker = chat.run_worker(
            self._run_turn(host, prompt, self._presenter, model),
            group="turn",
            exclusive=True,
            exit_on_error=False,
        )

    async def _run_turn(
        self, host: AgentHost, prompt: str | None, presenter: TurnPresenter, model: TurnModel | None = None
    ) -> None:
        sink = self._sink(presenter, model.label if model is not None else host.model_label)
        try:
            if prompt is None:
                await host.continue_turn(sink)
            else:
                await host.run_turn(prompt, sink, model=model)
        finally:
            self._chat.dialogs.close_all()

    async def _compact(self, host: AgentHost, presenter: TurnPresenter) -> None:
        from zett_tui.runtime.events import Notice, TurnFinished

        sink = self._sink(presenter, host.model_label)
        seen: list[UIEvent] = []

        def observe(event: UIEvent) -> None:
            seen.append(event)
            sink(event)

        applied = await host.compact(observe)
        quiet = not any(isinstance(event, Notice) for event in seen)
        completed = any(isinstance(event, TurnFinished) and event.status == "completed" for event in seen)
        if not applied and quiet and completed:
            self._chat.say(
                "Nothing to compact yet: the latest turn is always kept word for word, and there is "
                "no older one."
            )

    def _sink(self, presenter: TurnPresenter, model: str) -> Callable[[UIEvent], None]:
        """Where the events of a turn (or of ``/compact``) go; ``model`` is the one answering."""
        from zett_tui.runtime.events import (
            ContextMeasured,
            DecisionRequested,
            PlanModeChanged,
            SteeringDelivered,
            ToolFinished,
            TurnFinished,
        )

        chat = self._chat

        def sink(event: UIEvent) -> None:
            chat.dialogs.observe(event)
            if isinstance(event, DecisionRequested):
                presenter.flush()
                call_id = event.payload.get("tool_call_id")
                if isinstance(call_id, str) and event.asker:  # a subagent's call: its row under the task
                    presenter.subagent_waiting(call_id, True)
                elif isinstance(call_id, str):
                    presenter.waiting_for_user(call_id, event.call)
                chat.dialogs.request(event)
            elif isinstance(event, PlanModeChanged):
                chat.call_later(chat.sync_mode)  # the host updates its mode right after the sink
            elif isinstance(event, ContextMeasured):
                chat.show_context(event)
            else:
                if isinstance(event, SteeringDelivered):
                    self.queue.steer_delivered(event.text)
                presenter.handle(event)
                if isinstance(event, ToolFinished):  # a read's "yes, for this session" may change
                    chat.refresh_attachments()
                if isinstance(event, TurnFinished):
                    self._ended = event.status
                    chat.show_tokens(presenter.stats.input_tokens, presenter.stats.output_tokens)
                    if presenter.answered:
                        self.answer_model = model

        return sink
