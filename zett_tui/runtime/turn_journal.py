"""Keeps the turn in progress on disk, so a zett killed mid-turn loses at most one second of it.

:class:`TurnJournal` writes the two sidecars ``sessions.live_turn`` describes: the prompt as the
turn starts, every message the turn finishes (an answer with its tool calls, a tool's result) as
soon as it is finished, and the text streaming now at least once a second. When the turn's real
line is written, the sidecars are removed; when zett is stopped before that, the next zett that
opens or lists the session adds them to it as an ``interrupted`` turn.

Each line is redacted whole before it is written, and the streaming text is rewritten whole each
time, so a credential split across two deltas is still one string when it is redacted. Of the
streaming text only what ends in whitespace is written (:func:`settled`): a credential that is
still streaming would not match a redaction rule yet, and its first 19 characters are as good as
all 20. So a kill loses at most the last second, and the word being streamed.

The turn's state is kept on the event loop (``begin``, ``observe``); the files are written in a
thread, one write at a time: each write is a batch (check the generation, append, replace the
partial file) that must not be split by ``end``, so it is one hop to a thread holding the lock, not
a row of awaited ``aiofiles`` steps. ``end`` may be called from the recorder's writing thread: a
generation number, changed under a lock, makes a write that was already under way for the
ended turn write nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import string
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.messages import AnyMessage, UserMessage
from zett_agent.storage import encode_messages

from zett_tui.core import paths
from zett_tui.core.line_append import append_whole
from zett_tui.core.redact import redact_json_line
from zett_tui.core.thread_lock import held_off_loop
from zett_tui.sessions import live_turn
from zett_tui.sessions.image_files import externalized_line, images_folder
from zett_tui.sessions.naming import live_path, partial_path
from zett_tui.sessions.recorded_decisions import SUBAGENT_SESSION

log = logging.getLogger(__name__)

#: What keys, tokens and URLs with secrets are made of (``settled`` holds back a run of them).
_CREDENTIAL_CHARACTERS = frozenset(string.ascii_letters + string.digits + "_-./+=:~%@$&?#")
#: The longest the streaming text goes unwritten, in seconds.
INTERVAL = 1.0
#: Events after which what the turn has so far is written at once.
_WRITE_NOW = frozenset(
    {
        AgentEventType.MODEL_COMPLETED,
        AgentEventType.TOOL_STARTED,
        AgentEventType.TOOL_COMPLETED,
        AgentEventType.TOOL_FAILED,
        AgentEventType.TOOL_SKIPPED,
    }
)


class _Turn:
    """What the loop knows of the turn in progress."""

    def __init__(self, context: AgentRunContext, prompt: UserMessage, session_file: Path) -> None:
        self.context = context
        self.prompt = prompt
        self.session_file = session_file
        #: The messages written to the journal (by identity), in order.
        self.written: list[AnyMessage] = []
        #: The deltas streamed since the last finished message (joined only when written: a
        #: string grown by ``+=`` would be copied whole at every delta of a long answer).
        self.text_parts: list[str] = []
        self.reasoning_parts: list[str] = []
        #: A write failed in this turn already (said once in the log).
        self.failed = False
        #: The notes changed since they were last written.
        self.notes_changed = False
        #: The turn's subagent runs so far (``SubagentRunner.live_records``), as last written.
        self.subagents: dict[str, Any] = {}
        #: A subagent finished a step since they were last written.
        self.subagents_changed = False
        #: Model calls finished so far in the turn (a note's place among its answers).
        self.steps = 0

    def settled(self) -> tuple[str, str]:
        """The streamed text and reasoning, as much of each as may be written (:func:`settled`)."""
        return settled("".join(self.text_parts)), settled("".join(self.reasoning_parts))

    @property
    def notes(self) -> dict[str, Any]:
        """``metadata["zett"]`` of the run: what zett adds to the turn's line besides messages."""
        metadata = self.context.metadata
        zett = metadata.get("zett")
        if not isinstance(zett, dict):
            zett = metadata["zett"] = {}
        return zett


class TurnJournal:
    """The sidecars of the turn in progress (one turn at a time: one host runs one session)."""

    def __init__(
        self,
        session_file_of: Callable[[str], Path],
        redact: Callable[[str], str],
        *,
        interval: float | None = None,
    ) -> None:
        self._session_file_of = session_file_of
        self._redact = redact
        self.interval = INTERVAL if interval is None else interval
        self._turn: _Turn | None = None
        self._generation = 0
        self._files = threading.Lock()
        self._wake = asyncio.Event()
        self._dirty = False
        self._task: asyncio.Task[None] | None = None
        #: The subagent runs the turn of a session started so far (``SubagentRunner.live_records``).
        self.subagent_records: Callable[[str], dict[str, Any]] = lambda session_id: {}

    # -- on the event loop ------------------------------------------------------------------------

    async def begin(self, context: AgentRunContext, prompt: UserMessage, started_at: datetime) -> None:
        """The turn starts: its prompt is on disk when this returns (if the disk can take it)."""
        self._stop_writer()
        session_file = self._session_file_of(context.session_id)
        async with held_off_loop(self._files):  # a write under way in a thread may hold it a while
            self._generation += 1
            generation = self._generation
        self._turn = _Turn(context, prompt, session_file)
        header = {
            "version": 1,
            "session_id": context.session_id,
            "request_id": context.config.request_id,
            "parent_session_id": context.config.parent_session_id,
            "started_at": started_at.isoformat(),
            "metadata": context.metadata,
            "tags": context.tags,
        }
        first = live_turn.start_line(header)
        await asyncio.to_thread(self._start_files, generation, session_file, first)
        await self._write_once(generation)
        self._task = asyncio.get_running_loop().create_task(self._keep_written(generation))

    def observe(self, event: AgentEvent) -> None:
        """One runtime event of the turn: streamed text is kept; a finished step is written now."""
        turn = self._turn
        if turn is None:
            return
        if event.type is AgentEventType.TEXT_DELTA and event.delta:
            turn.text_parts.append(event.delta)
            self._dirty = True
        elif event.type is AgentEventType.REASONING_DELTA and event.delta:
            turn.reasoning_parts.append(event.delta)
            self._dirty = True
        elif event.type in _WRITE_NOW:
            if event.type is AgentEventType.MODEL_COMPLETED:
                turn.text_parts, turn.reasoning_parts = [], []  # the step's message holds them now
                turn.steps += 1
            self._dirty = True
            self._wake.set()

    def note_decision(
        self, text: str, call_id: str | None, *, declined: bool = False, subagent_session: str | None = None
    ) -> None:
        """The line the user's answer (or a rule that answered for them) left in the transcript:
        kept with the turn, so a resumed session shows it under its tool row (and ``declined``:
        the row says the user said no). ``subagent_session``: the subagent's session that asked
        (None: the main agent), as call ids repeat across agents (``sessions.recorded_decisions``)."""
        turn = self._turn
        if turn is None:
            return
        decisions = turn.notes.setdefault("decisions", [])
        item: dict[str, Any] = {"text": text, "call_id": call_id, SUBAGENT_SESSION: subagent_session}
        decisions.append(item | ({"declined": True} if declined else {}))
        turn.notes_changed = self._dirty = True

    def note_subagents(self) -> None:
        """A subagent of the turn finished a step (or its run): what the turn's subagents did so
        far is written with the turn within ``interval`` (not at once: each write encodes every
        subagent's messages so far, and four of them step several times a second). Their runs
        are not in the request's metadata while it runs (the history stores that with every
        message), so the journal asks for them."""
        turn = self._turn
        if turn is None:
            return
        turn.subagents_changed = self._dirty = True

    def note_search(self, text: str) -> None:
        """A hosted web search's rows (its query and sources): kept with the turn, with the model
        call they came from, so a resumed session shows them above that call's answer."""
        turn = self._turn
        if turn is None:
            return
        turn.notes.setdefault("searches", []).append({"text": text, "step": turn.steps})
        turn.notes_changed = self._dirty = True

    def note_todos_cleared(self, writes: int) -> bool:
        """``/todo clear`` while the turn runs, after its ``writes`` first ``todo_write`` calls
        that succeeded: its line says so, so those do not bring the list back on resume. False
        when no turn runs."""
        turn = self._turn
        if turn is None:
            return False
        turn.notes["todos_cleared_after"] = writes
        turn.notes_changed = self._dirty = True
        return True

    def note_context(self, tokens: int, window: int, estimated: bool) -> None:
        """How full the context was after the turn's last model call, as the status line said."""
        turn = self._turn
        if turn is None:
            return
        turn.notes["context"] = {"tokens": tokens, "window": window, "estimated": estimated}
        turn.notes_changed = self._dirty = True

    def streamed_envelope(self) -> dict[str, Any] | None:
        """The text streamed since the last finished message, as a message envelope (None if none).

        The turn's real line lacks it when the turn is cancelled or fails mid-stream; the recorder
        adds it, so a resumed session shows what the live screen showed, to its last word
        (:func:`up_to_last_word`). Safe from any thread.
        """
        turn = self._turn
        text, reasoning = (
            (up_to_last_word("".join(turn.text_parts)), up_to_last_word("".join(turn.reasoning_parts)))
            if turn is not None
            else ("", "")
        )
        if not (text or reasoning):
            return None
        return live_turn.partial_envelope(text, reasoning)

    async def _keep_written(self, generation: int) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.interval):
                    await self._wake.wait()
            self._wake.clear()
            if self._dirty:
                await self._write_once(generation)

    async def _write_once(self, generation: int) -> None:
        turn = self._turn
        if turn is None:
            return
        self._dirty = False
        messages = _turn_messages(turn)
        done = len(turn.written)
        kept = messages[:done]
        rewrite = len(kept) < done or any(a is not b for a, b in zip(kept, turn.written, strict=True))
        new = messages if rewrite else messages[done:]
        envelopes = json.loads(encode_messages(new)) if new else []
        lines = [live_turn.message_line(envelope) for envelope in envelopes]
        notes_changed = turn.notes_changed or turn.subagents_changed
        if turn.subagents_changed:
            turn.subagents_changed = False
            try:
                turn.subagents = self.subagent_records(turn.context.session_id)
            except Exception:  # a copy of the runs; the turn goes on
                log.warning("the subagents' runs so far could not be read", exc_info=True)
        if notes_changed or rewrite:
            turn.notes_changed = False
            notes = {**turn.notes, "subagents": turn.subagents} if turn.subagents else turn.notes
            lines.append(live_turn.notes_line(notes))
        after = len(messages)
        partial = live_turn.partial_document(after, *turn.settled())
        try:
            written = await asyncio.to_thread(
                self._write, generation, turn.session_file, lines, rewrite, partial
            )
        except Exception as error:  # the disk: the storage retry tells the user; the turn goes on
            if not turn.failed:
                turn.failed = True
                log.warning("the turn in progress could not be written: %s", error, exc_info=True)
            self._dirty = True
            turn.notes_changed = turn.notes_changed or notes_changed
            return
        if written:
            turn.written = messages

    def _stop_writer(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    # -- any thread -----------------------------------------------------------------------------

    def end(self, *, remove: bool) -> None:
        """The turn's real line is written (``remove``) or waits in memory for the disk (the
        sidecars are then kept, in case zett is stopped before it is written)."""
        turn, self._turn = self._turn, None
        with self._files:
            self._generation += 1
            if turn is not None and remove:
                for path in (live_path(turn.session_file), partial_path(turn.session_file)):
                    try:
                        path.unlink(missing_ok=True)
                    except OSError as error:
                        log.warning("turn journal %s not removed: %s", path, error)
        loop_task = self._task
        if loop_task is not None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nothing runs there now
                loop_task.get_loop().call_soon_threadsafe(self._stop_writer)

    # -- in a thread ----------------------------------------------------------------------------

    def _start_files(self, generation: int, session_file: Path, first: str) -> None:
        with self._files:
            if generation != self._generation:
                return
            try:
                first = externalized_line(first, images_folder(session_file))
                paths.write_private_text(live_path(session_file), self._redacted(first) + "\n", sync=False)
                partial_path(session_file).unlink(missing_ok=True)
            except OSError as error:
                log.warning("the turn in progress could not be started on disk: %s", error)

    def _write(
        self, generation: int, session_file: Path, lines: list[str], rewrite: bool, partial: str
    ) -> bool:
        with self._files:
            if generation != self._generation:
                return False
            live = live_path(session_file)
            folder = images_folder(session_file)
            data = "".join(self._redacted(externalized_line(line, folder)) + "\n" for line in lines)
            if rewrite:  # the runtime replaced messages of this turn (compaction): start again
                head = live.read_text(encoding="utf-8").split("\n", 1)[0]
                paths.write_private_text(live, head + "\n" + data, sync=False)
            elif data:
                append_whole(live, data.encode("utf-8"))
            paths.write_private_text(partial_path(session_file), self._redacted(partial), sync=False)
            return True

    def _redacted(self, line: str) -> str:
        return redact_json_line(line, self._redact)


def settled(text: str) -> str:
    """What is written of ``text`` while it streams: up to its last character that no credential
    holds (whitespace, most punctuation, any non-ASCII letter), so a key still streaming is left
    out whole and a Chinese answer without spaces is still written."""
    end = len(text)
    while end and text[end - 1] in _CREDENTIAL_CHARACTERS:
        end -= 1
    return text[:end]


#: A last word this long, of credential characters only, may be the start of a key cut off mid-stream.
_KEY_PREFIX_LENGTH = 12


def up_to_last_word(text: str) -> str:
    """``text`` for the turn's final line: whole, its last word too ("Hello there", not "Hello "),
    unless that word is a run of credential characters long enough to be a key cut off while it
    streamed, which no redaction rule would recognise in part (then as :func:`settled`)."""
    kept = settled(text)
    return text if len(text) - len(kept) < _KEY_PREFIX_LENGTH else kept


def _turn_messages(turn: _Turn) -> list[AnyMessage]:
    """The turn's messages now: from its prompt to the end of the context."""
    messages = turn.context.state.messages
    for index, message in enumerate(messages):
        if message is turn.prompt:
            return list(messages[index:])
    return list(turn.written) or [turn.prompt]
