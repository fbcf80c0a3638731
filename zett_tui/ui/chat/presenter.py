"""Puts one turn's UI events on the transcript.

Text and reasoning deltas are buffered and written to their block at most ``FLUSH_HZ`` times a
second; any other event first flushes what is buffered, so the order on screen is the order the
runtime produced. Handling an event never waits: the agent stream has back-pressure.

A tool row says "waiting for you" while a dialog asks about its call, and its clock stops
meanwhile: the duration is the time it ran. A running row shows its time so far (once a second)
and a shell command its last lines of output (as the tool sends them, a few times a second).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from zett_tui.checkpoints.recording import CHANGES_LEVEL
from zett_tui.runtime.events import (
    ModelCallStarted,
    ModelStopped,
    Notice,
    ReasoningChunk,
    SteeringDelivered,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    TextChunk,
    TodoChanged,
    ToolCallInfo,
    ToolFinished,
    ToolOutputLive,
    ToolsStarted,
    TurnFinished,
    UIEvent,
    UsageReported,
)
from zett_tui.ui.chat.changes_lines import notice_block
from zett_tui.ui.widgets.steer_block import SteerBlock
from zett_tui.ui.widgets.task_block import TaskBlock
from zett_tui.ui.widgets.todo_panel import TodoBlock
from zett_tui.ui.widgets.transcript import AnswerBlock, NoticeBlock, ReasoningBlock, ToolBlock, Transcript

#: Each flush of a fast stream costs a full transcript frame (about 15 ms at 160x45 on a 2-core
#: machine). 15 a second keeps text flowing smoothly and, against 30, cuts the CPU of a 58 KB
#: answer at full speed from 1.85x to 1.6x the runtime's own (``benchmarks/bench_app.py``).
FLUSH_HZ = 15
#: How often the blocks of running subagents are redrawn at most: four subagents stepping at once
#: redrawn at FLUSH_HZ took key echo from 27 ms to 48 ms (``benchmarks/bench_subagent_echo.py``).
SUBAGENT_HZ = 4
#: How often the time of a running tool is redrawn.
TICK_SECONDS = 1.0

Scheduler = Callable[[float, Callable[[], None]], object]


def tool_block(call: ToolCallInfo) -> ToolBlock:
    """A tool's row: a ``task`` call's carries its subagent (``TaskBlock``)."""
    if call.name == "task":
        kind = call.arguments.get("subagent_type")
        return TaskBlock(
            call.call_id, call.name, call.key_argument, kind if isinstance(kind, str) and kind else "general"
        )
    return ToolBlock(call.call_id, call.name, call.key_argument)


@dataclass
class TurnStats:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class _ToolClock:
    """One tool row and the time it has run: from its start, less the waits for the user."""

    block: ToolBlock
    started: float
    waited: float = 0.0
    waiting_since: float | None = None

    def running_for(self, now: float) -> float:
        waiting = now - self.waiting_since if self.waiting_since is not None else 0.0
        return max(0.0, now - self.started - self.waited - waiting)


@dataclass
class TurnPresenter:
    """Owns the blocks of the turn being shown; ``schedule(delay, callback)`` runs a flush later."""

    transcript: Transcript
    schedule: Scheduler
    #: Shown over the turn's first answer (the chat passes it when the model changed); None: no label.
    model_label: str | None = None
    #: The model changed its checklist (``runtime.todo``): the pinned panel follows.
    on_todos: Callable[[TodoChanged], None] = lambda changed: None
    stats: TurnStats = field(default_factory=TurnStats)
    _answer: AnswerBlock | None = None
    _reasoning: ReasoningBlock | None = None
    _text: list[str] = field(default_factory=list)
    _thinking: list[str] = field(default_factory=list)
    _flush_pending: bool = False
    _tools: dict[str, _ToolClock] = field(default_factory=dict)
    #: Calls the user said no to in a dialog: a failure of theirs is "declined".
    _declined: set[str] = field(default_factory=set)
    _ticking: bool = False
    #: Subagent blocks changed since their last redraw, and whether that redraw is scheduled.
    _stale_tasks: set[TaskBlock] = field(default_factory=set)
    _tasks_pending: bool = False
    #: The block each running subagent's session shows in: its own ``task`` row's, or, for a
    #: subagent's own subagent (``[subagents] max_depth`` above 1), its top ancestor's.
    _subagent_blocks: dict[str, TaskBlock] = field(default_factory=dict)
    #: The sessions of subagents started by another subagent (their rows join the ancestor's,
    #: their names after the nested subagent's job and ``›``).
    _nested: dict[str, str] = field(default_factory=dict)
    #: Subagents' calls the user said no to, by session and call id.
    _declined_in: set[tuple[str, str]] = field(default_factory=set)
    _finished: bool = False
    #: An answer block was shown in this turn.
    answered: bool = False

    def handle(self, event: UIEvent) -> None:
        if self._finished:
            return
        if isinstance(event, TextChunk):
            self._text.append(event.text)
            self._request_flush()
            return
        if isinstance(event, ReasoningChunk):
            self._thinking.append(event.text)
            self._request_flush()
            return
        self.flush()
        if isinstance(event, ModelCallStarted):
            self._close_segments()
        elif isinstance(event, ToolsStarted):
            self._close_segments()
            for call in event.calls:
                if call.call_id in self._tools:
                    continue  # its dialog came first (``ask_user``): the row is there, waiting
                self._add_tool(call).block.set_running()
            self._start_ticking()
        elif isinstance(event, ToolFinished):
            self._finish_tool(event.call_id, event.state, event.output)
        elif isinstance(event, ToolOutputLive):
            clock = self._tools.get(event.call_id)
            if clock is not None:
                clock.block.show_progress(clock.running_for(time.monotonic()), event.lines)
                self.transcript.refresh_block(clock.block)
        elif isinstance(event, UsageReported):
            self.stats.input_tokens += event.input_tokens
            self.stats.output_tokens += event.output_tokens
        elif isinstance(event, ModelStopped):
            reason = event.sentence or event.message or f"The model stopped early ({event.reason})."
            self.notice(reason, "warning")
        elif isinstance(event, Notice) and event.level == CHANGES_LEVEL:
            self.flush()
            self._close_segments()
            self.transcript.add(notice_block(event))
        elif isinstance(event, Notice) and event.preview:
            from zett_tui.ui.widgets.image_preview_block import ImagePreviewBlock

            self.notice(event.text, event.level)
            self.transcript.add(ImagePreviewBlock(event.preview))
        elif isinstance(event, Notice):
            self.notice(event.text, event.level)
        elif isinstance(event, SteeringDelivered):
            self._close_segments()
            self.transcript.add(SteerBlock(event.text))
        elif isinstance(event, SubagentStarted | SubagentActivity | SubagentFinished):
            self._subagent(event)
        elif isinstance(event, TodoChanged):
            self._close_segments()
            self.transcript.add(TodoBlock(event.items))
            self.on_todos(event)
        elif isinstance(event, TurnFinished):
            self.finish(event)

    def _subagent_block(
        self, event: SubagentStarted | SubagentActivity | SubagentFinished
    ) -> TaskBlock | None:
        """The block a subagent's event shows in. Call ids are unique only within a session: a
        nested subagent's ``task`` call may have the id of one of the main agent's."""
        if isinstance(event, SubagentStarted):
            ancestor = self._subagent_blocks.get(event.parent_session_id)
            if ancestor is not None:
                self._nested[event.session_id] = " ".join(event.description.split())
                self._subagent_blocks[event.session_id] = ancestor
                return ancestor
            clock = self._tools.get(event.call_id)
            if clock is None or not isinstance(clock.block, TaskBlock):
                return None
            self._subagent_blocks[event.session_id] = clock.block
            return clock.block
        if event.session_id:
            return self._subagent_blocks.get(event.session_id)
        clock = self._tools.get(event.call_id)  # an event that names no session
        return clock.block if clock is not None and isinstance(clock.block, TaskBlock) else None

    def _subagent(self, event: SubagentStarted | SubagentActivity | SubagentFinished) -> None:
        """A subagent's progress, on its task row (``ui.widgets.task_block``). A subagent's own
        subagent's rows and tokens go to the same block; its start and end change nothing else."""
        block = self._subagent_block(event)
        if block is None:
            return
        nested = self._nested.get(event.session_id) if event.session_id else None
        if isinstance(event, SubagentStarted):
            if nested is not None:
                return
            block.child_started(event.agent_type, event.model)
        elif isinstance(event, SubagentFinished):
            self._subagent_blocks.pop(event.session_id, None)
            if nested is not None:
                del self._nested[event.session_id]
                return
            # Its own tokens, or more: the block also counted its nested subagents' as they came.
            block.child_finished(event.status, max(block.tokens, event.input_tokens + event.output_tokens))
        else:
            inner = event.event
            if isinstance(inner, ToolsStarted):
                prefix = f"{nested} › " if nested else ""
                block.child_tools_started(
                    [
                        (self._row_id(event.session_id, c.call_id), prefix + c.name, c.key_argument)
                        for c in inner.calls
                    ]
                )
            elif isinstance(inner, ToolFinished):
                declined = self._declined_by_user(event.session_id, inner.call_id) and inner.state in (
                    "failed",
                    "done",
                )
                block.child_tool_finished(
                    self._row_id(event.session_id, inner.call_id), "declined" if declined else inner.state
                )
            elif isinstance(inner, UsageReported):
                block.child_tokens(inner.input_tokens + inner.output_tokens)
            elif isinstance(inner, TextChunk):
                if nested is not None:
                    return  # the nested subagent's report reaches its parent, whose text shows
                block.child_text(inner.text)
            elif isinstance(inner, ModelCallStarted):
                if nested is not None:
                    return
                if not block.said:
                    return
                block.child_step()
            else:
                return
        # Several subagents can step many times a second: their blocks are redrawn together at
        # most SUBAGENT_HZ times a second (each redraw costs a transcript frame).
        self._stale_tasks.add(block)
        if not self._tasks_pending:
            self._tasks_pending = True
            self.schedule(1 / SUBAGENT_HZ, self._refresh_tasks)

    def _refresh_tasks(self) -> None:
        self._tasks_pending = False
        stale, self._stale_tasks = self._stale_tasks, set()
        for block in stale:
            self.transcript.refresh_block(block)

    def _add_tool(self, call: ToolCallInfo) -> _ToolClock:
        self._close_segments()
        block = self.transcript.add(tool_block(call))
        self.transcript.refresh_block(block)
        clock = self._tools[call.call_id] = _ToolClock(block, time.monotonic())
        return clock

    def waiting_for_user(self, call_id: str, call: ToolCallInfo | None = None) -> None:
        """A dialog about this call is open (or queued): the row waits, its clock stops. A
        question asked before its tool is reported started (``ask_user``) gets its row now."""
        clock = self._tools.get(call_id)
        if clock is None and call is not None and not self._finished:
            self.flush()
            clock = self._add_tool(call)
        if clock is None or clock.waiting_since is not None:
            return
        clock.waiting_since = time.monotonic()
        clock.block.set_waiting()
        self.transcript.refresh_block(clock.block)

    def _declined_by_user(self, session_id: str, call_id: str) -> bool:
        """Whether the user said no to a subagent's call (its session's, when the event names it)."""
        if session_id:
            return (session_id, call_id) in self._declined_in
        return call_id in self._declined

    def _row_id(self, session_id: str, call_id: str) -> str:
        """A subagent's row's id in its block: a nested subagent's calls share the block with its
        parent's, so theirs carry the session (call ids are unique only within one)."""
        return f"{session_id}/{call_id}" if session_id in self._nested else call_id

    def user_answered(
        self, call_id: str, *, declined: bool = False, outcome: str = "", session_id: str = ""
    ) -> None:
        """The user answered the dialog about this call (of the session ``session_id``, when a
        subagent's): it runs again (or ends as declined)."""
        if session_id in self._subagent_blocks:
            if declined:
                self._declined_in.add((session_id, call_id))
            self.subagent_waiting(call_id, False, session_id)
            return
        if declined:
            self._declined.add(call_id)
        clock = self._tools.get(call_id)
        if clock is None:
            self.subagent_waiting(call_id, False)
            return
        if clock.waiting_since is not None:
            clock.waited += time.monotonic() - clock.waiting_since
            clock.waiting_since = None
        clock.block.set_running()
        if outcome:
            clock.block.set_outcome(outcome)
        self.transcript.refresh_block(clock.block)

    def subagent_waiting(self, call_id: str, waiting: bool, session_id: str = "") -> None:
        """A dialog asks about (or was answered about) a subagent's call ``call_id``: its row under
        the task says so, and the task's row waits with it (its clock stops meanwhile). With the
        subagent's ``session_id``, only its own block's row (several subagents' calls may share
        an id); without, every block's row of that id."""
        now = time.monotonic()
        only = self._subagent_blocks.get(session_id) if session_id else None
        row = self._row_id(session_id, call_id) if only is not None else call_id
        for clock in self._tools.values():
            block = clock.block
            if not isinstance(block, TaskBlock) or (only is not None and block is not only):
                continue
            if not block.child_waiting(row, waiting):
                continue
            if waiting and clock.waiting_since is None:
                clock.waiting_since = now
                block.set_waiting()
            elif not waiting and clock.waiting_since is not None:
                clock.waited += now - clock.waiting_since
                clock.waiting_since = None
                block.set_running()
            self.transcript.refresh_block(block)
            return

    def notice(self, text: str, level: str = "info") -> None:
        self.flush()
        self._close_segments()
        self.transcript.add(NoticeBlock(text, level))

    def finish(self, event: TurnFinished) -> None:
        """Close every open block with the turn's outcome; later events are ignored."""
        self.flush()
        if self._answer is not None:
            self._answer.finish(event.status)
            self.transcript.refresh_block(self._answer)
        elif event.status == "cancelled":
            self.transcript.add(NoticeBlock("⏹ cancelled", "warning"))
        if self._reasoning is not None:
            self._reasoning.finish()
            self.transcript.refresh_block(self._reasoning)
        for call_id in list(self._tools):
            self._finish_tool(call_id, "cancelled" if event.status == "cancelled" else "failed", "")
        if event.status == "failed" and event.error:
            self.transcript.add(NoticeBlock(event.error, "error"))
        self._answer = self._reasoning = None
        self._finished = True

    def flush(self) -> None:
        self._flush_pending = False
        if self._thinking:
            if self._reasoning is None:
                self._reasoning = self.transcript.add(ReasoningBlock())
            self._reasoning.append("".join(self._thinking))
            self._thinking.clear()
            self.transcript.refresh_block(self._reasoning)
        if self._text:
            if self._answer is None:
                if self._reasoning is not None:
                    self._reasoning.finish()
                    self.transcript.refresh_block(self._reasoning)
                    self._reasoning = None
                self._answer = self.transcript.add(AnswerBlock(None if self.answered else self.model_label))
                self.answered = True
            self._answer.append("".join(self._text))
            self._text.clear()
            self.transcript.refresh_block(self._answer)

    def _request_flush(self) -> None:
        if not self._flush_pending:
            self._flush_pending = True
            self.schedule(1 / FLUSH_HZ, self._scheduled_flush)

    def _scheduled_flush(self) -> None:
        if self._flush_pending:
            self.flush()

    def _close_segments(self) -> None:
        """A tool row or a notice ends the current answer and reasoning segments."""
        if self._answer is not None:
            self._answer.finish("completed")
            self.transcript.refresh_block(self._answer)
            self._answer = None
        if self._reasoning is not None:
            self._reasoning.finish()
            self.transcript.refresh_block(self._reasoning)
            self._reasoning = None

    def _finish_tool(self, call_id: str, state: str, output: str) -> None:
        clock = self._tools.pop(call_id, None)
        if clock is None:
            return
        if state == "skipped":
            state = "cancelled"
        elif state in ("failed", "done") and call_id in self._declined:
            state = "declined"
        clock.block.finish(state, output, clock.running_for(time.monotonic()))
        self.transcript.refresh_block(clock.block)

    def _start_ticking(self) -> None:
        if not self._ticking:
            self._ticking = True
            self.schedule(TICK_SECONDS, self._tick)

    def _tick(self) -> None:
        """Once a second while tools run: their time so far (a waiting row keeps its words)."""
        self._ticking = False
        if self._finished or not self._tools:
            return
        now = time.monotonic()
        for clock in self._tools.values():
            if clock.waiting_since is None and clock.running_for(now) >= 1:
                clock.block.show_progress(clock.running_for(now))
                self.transcript.refresh_block(clock.block)
        self._start_ticking()
