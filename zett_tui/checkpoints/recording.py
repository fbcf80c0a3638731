"""Taking a session's checkpoints around its turns, off the event loop.

Before each turn a checkpoint starts in a thread and the turn goes on (the model's answer streams
meanwhile); before each tool call that may change files (an edit, a shell command: anything not
known to only read) the call waits for it if it must, then another checkpoint is taken; when the
turn ends one more records what it left. The turn's record (``journal.TurnRecord``) says which
checkpoints came before and after it, and which files changed with +/- counts.

A checkpoint that fails (no git, disk full, the project gone) is said in one line, once per
reason, the turn goes on, and the record says the checkpoint is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import AgentExtension
from zett_agent.messages import AssistantMessage, ToolCall, UserMessage

from zett_tui.checkpoints.bounds import CheckpointBounds, TooMuchToRecord
from zett_tui.checkpoints.git_env import GitFailed, GitMissing
from zett_tui.checkpoints.journal import CheckpointJournal, TurnRecord, session_key
from zett_tui.checkpoints.rewind import (
    RewindPlan,
    RewindRefused,
    apply_code_rewind,
    conversation_change,
    plan_code_rewind,
    rewind_record,
)
from zett_tui.checkpoints.store import (
    Checkpoint,
    CheckpointStore,
    FileChange,
    RestoreReport,
)
from zett_tui.checkpoints.summary import turn_changes_text

log = logging.getLogger(__name__)

Notify = Callable[[str, str], None]
#: ``(the "N files changed" line, the turn's record)``: a turn that changed files ended.
ChangesNotify = Callable[[str, TurnRecord], None]

#: Tools that only read: no checkpoint before them. Every other tool may change files.
READ_ONLY_TOOLS = frozenset(
    {"read_file", "read", "view_image", "glob", "grep", "ls", "list_dir", "todo_write", "ask_user"}
    | {"web_fetch"}
)
#: The prompt is kept (redacted) so a conversation rewind can put it back in the composer.
PROMPT_CHARS = 20_000
#: The level of the "N files changed" notice (shown as info; ``zett -p`` leaves it out of its text).
CHANGES_LEVEL = "changes"
#: At most this many files of a turn are listed in its line of the session file (all are counted).
LISTED_FILES = 200


@dataclass
class _OpenTurn:
    turn: str
    prompt: str
    at: str
    first: asyncio.Future[Checkpoint | None]
    request: str | None = None
    steps: int = 0
    missing: list[str] = field(default_factory=list)
    #: Files a checkpoint of the turn could not read.
    unreadable: set[str] = field(default_factory=set)


class SessionCheckpoints:
    """One session's checkpoints in its project's store (``CheckpointStore``)."""

    def __init__(
        self,
        project: Path,
        session_id: str,
        *,
        root: Path,
        bounds: CheckpointBounds | None = None,
        notify: Notify | None = None,
        redact: Callable[[str], str] | None = None,
        on_changes: ChangesNotify | None = None,
        on_conversation_rewind: Callable[[TurnRecord], Awaitable[None]] | None = None,
    ) -> None:
        self.store = CheckpointStore(project, root, bounds=bounds)
        self.session_id = session_id
        self.key = session_key(session_id)
        self.journal = CheckpointJournal(self.store.folder, session_id)
        self._notify: Notify = notify or (lambda text, level: None)
        #: Told of each rewind that took turns out of the model's context or put them back (the
        #: host marks it in the session file: ``sessions.rewind_marks``).
        self._on_conversation_rewind = on_conversation_rewind
        self._on_changes: ChangesNotify = on_changes or (
            lambda text, record: self._notify(text, CHANGES_LEVEL)
        )
        self._redact = redact or (lambda text: text)
        self._turn: _OpenTurn | None = None
        self._said: set[str] = set()
        #: Why checkpoints are off for good (no git, a folder over the bounds); None while they work.
        self.off: str | None = None
        #: The last turn's record, once it ended.
        self.last_record: TurnRecord | None = None

    # -- the turn --------------------------------------------------------------------------------

    def begin_turn(self, turn: str, prompt: str, request: str | None = None) -> None:
        """Start the turn's first checkpoint in a thread; return at once."""
        first = asyncio.ensure_future(self._take(f"{turn}/before", "before the turn"))
        text = self._redact(prompt)[:PROMPT_CHARS]
        self._turn = _OpenTurn(turn, text, datetime.now(UTC).isoformat(), first, request)

    async def before_change(self) -> None:
        """A tool that may change files is about to run: the turn's checkpoint first, then this one."""
        turn = self._turn
        if turn is None:
            return
        await asyncio.shield(turn.first)
        turn.steps += 1
        step = await self._take(f"{turn.turn}/step-{turn.steps}", "before a change")
        turn.unreadable |= self._unreadable_paths(step)

    async def end_turn(self) -> TurnRecord | None:
        """Record what the turn left (once): its record, or None when no turn was open."""
        return await self.close_turn(self.detach_turn())

    def detach_turn(self) -> _OpenTurn | None:
        """The open turn, no longer open (a next turn may begin while it is being recorded)."""
        turn, self._turn = self._turn, None
        return turn

    async def close_turn(self, turn: _OpenTurn | None) -> TurnRecord | None:
        """Take ``turn``'s last checkpoint and write its record."""
        if turn is None:
            return None
        before = await asyncio.shield(turn.first)
        after = await self._take(f"{turn.turn}/after", "after the turn")
        record = TurnRecord(
            kind="turn",
            turn=turn.turn,
            at=turn.at,
            prompt=turn.prompt,
            request=turn.request,
            before=before.commit if before else None,
            after=after.commit if after else None,
            too_large=list(before.too_large) if before else [],
            unreadable=sorted(turn.unreadable | self._unreadable_paths(before, after)),
            ended=datetime.now(UTC).isoformat(),
        )
        if before is None or after is None:
            record.missing = self._last_problem or "the checkpoint could not be taken"
        else:
            try:
                changes = await self._changes(before.commit, after.commit)
                record.changes = [[c.path, c.added, c.removed, c.status] for c in changes]
            except (GitFailed, OSError) as error:
                record.missing = f"the turn's changes could not be read: {error}"
        await self._append(record)
        self.last_record = record
        if record.changes:
            text = turn_changes_text(len(record.changes), record.added, record.removed)
            self._on_changes(text, record)
        return record

    async def _changes(self, before: str, after: str) -> list[FileChange]:
        """What differs between two checkpoints (nothing, without asking git, when they are one:
        a turn that changed no file ends on the checkpoint it began with)."""
        if before == after:
            return []
        return await asyncio.to_thread(self.store.changes, before, after)

    def metadata(self, record: TurnRecord | None) -> dict[str, Any]:
        """What the turn's line in the session file says of its checkpoints."""
        if record is None:
            return {}
        return {
            "store": self.store.folder.name,
            "before": record.before,
            "after": record.after,
            "missing": record.missing,
            "files": len(record.changes),
            "added": record.added,
            "removed": record.removed,
            "changed": record.changes[:LISTED_FILES],
        }

    # -- taking and recording, never raising -----------------------------------------------------

    _last_problem: str | None = None

    async def take(self, name: str, message: str) -> Checkpoint | None:
        """A checkpoint under this session's refs (``None``, said once, when it cannot be taken)."""
        return await self._take(name, message)

    async def _take(self, name: str, message: str) -> Checkpoint | None:
        if self.off is not None:
            return None
        try:
            taken = await asyncio.to_thread(self.store.take, f"{self.key}/{name}", message)
            if taken.unreadable:
                self._say_unreadable(taken.unreadable)
            return taken
        except GitMissing:
            self.off = "git is not installed"
            self._say("Checkpoints are off: git is not installed, so this session cannot be rewound.")
        except TooMuchToRecord as error:
            # Off for the session: every later checkpoint would list the same folder again.
            self.off = str(error)
            self._say(
                f"Checkpoints are off for this session: {error}. /rewind cannot take this "
                "session's changes back; start zett in the project's own folder, or list what is "
                "not the project in .zett/ignore."
            )
        except FileNotFoundError as error:
            self._say(f"No checkpoint: {error}.")
        except (GitFailed, OSError) as error:
            line = f"A checkpoint could not be taken ({_short(error)}); the turn goes on."
            if _data_folder_unwritable(self.store.root):
                # zett's data folder itself is broken: the session's files say so, once.
                log.warning("checkpoint not taken: the data folder cannot be written")
                self._last_problem = line
            else:
                self._say(line)
        except Exception as error:  # never into the turn
            log.warning("checkpoint failed", exc_info=True)
            self._say(f"A checkpoint could not be taken ({type(error).__name__}); the turn goes on.")
        return None

    def _say_unreadable(self, unreadable: tuple[str, ...]) -> None:
        """One line for the files a checkpoint could not read (once for the same files)."""
        path, _, reason = unreadable[0].rpartition(": ")
        first = f"{path} ({reason})"
        more = f" and {len(unreadable) - 1} more" if len(unreadable) > 1 else ""
        self._say(
            f"A checkpoint could not read {first}{more}; it keeps what it last read of "
            f"{'them' if more else 'it'}, and a rewind leaves {'them' if more else 'it'} as "
            f"{'they are' if more else 'it is'}. The turn goes on."
        )

    @staticmethod
    def _unreadable_paths(*checkpoints: Checkpoint | None) -> set[str]:
        return {item.rpartition(": ")[0] for c in checkpoints if c is not None for item in c.unreadable}

    async def _append(self, record: TurnRecord) -> None:
        try:
            await asyncio.to_thread(self.journal.append, record)
        except OSError as error:
            if _data_folder_unwritable(self.store.root):
                log.warning("checkpoint record not written: the data folder cannot be written")
            else:
                self._say(f"The checkpoint record could not be written ({_short(error)}).")

    def _say(self, line: str) -> None:
        self._last_problem = line
        if line not in self._said:
            self._said.add(line)
            self._notify(line, "warning")

    def records(self) -> list[TurnRecord]:
        """This session's turns and rewinds, oldest first (reads a file: call it in a thread)."""
        return self.journal.records()

    def hidden_requests(self) -> frozenset[str]:
        """The requests a conversation rewind took out of the model's context (read once, kept)."""
        if self._hidden is None:
            try:
                self._hidden = self.journal.hidden_requests()
            except OSError:
                self._hidden = frozenset()
        return self._hidden

    _hidden: frozenset[str] | None = None

    # -- rewinding -------------------------------------------------------------------------------

    async def plan_rewind(self, target: TurnRecord) -> RewindPlan:
        """Record the files as they are now and work out what a code rewind to ``target`` does.

        Raises ``RewindRefused`` (one line) when it cannot be done.
        """
        if self.off is not None:
            raise RewindRefused(f"checkpoints are off: {self.off}")
        records = await asyncio.to_thread(self.records)
        target = _same_record(records, target)
        now = await self._take(f"rewind-{time.time_ns()}/before", "before the rewind")
        if now is None:
            raise RewindRefused(self._last_problem or "the files as they are now could not be recorded")
        others = await asyncio.to_thread(self.journal.other_sessions_records)
        return await asyncio.to_thread(plan_code_rewind, self.store, records, target, now.commit, others)

    async def rewind(
        self,
        target: TurnRecord,
        *,
        plan: RewindPlan | None,
        take_checkpoints: Collection[str] = (),
        conversation: bool,
    ) -> RewindOutcome:
        """Rewind the code (when ``plan`` is given) and/or the conversation to before ``target``."""
        records = await asyncio.to_thread(self.records)
        target = _same_record(records, target)
        outcome = RewindOutcome(prompt=target.prompt)
        before = plan.now if plan is not None else None
        after = before
        changes: list[list[Any]] = []
        if plan is not None:
            outcome.report = await asyncio.to_thread(apply_code_rewind, self.store, plan, take_checkpoints)
            outcome.kept = [p for p in plan.conflicts if p not in take_checkpoints]
            outcome.too_large = plan.too_large
            outcome.unreadable = plan.unreadable
            taken = await self._take(f"rewind-{time.time_ns()}/after", "after the rewind")
            after = taken.commit if taken is not None else None
            if before is not None and after is not None:
                found = await self._changes(before, after)
                changes = [[c.path, c.added, c.removed, c.status] for c in found]
        hidden, restored = conversation_change(records, target) if conversation else ([], [])
        if conversation and target.kind == "turn" and target.request is None:
            outcome.problems.append("this turn's messages are not known; the conversation stays as it is")
        record = rewind_record(
            target,
            before=before,
            after=after,
            changes=changes,
            hidden_requests=hidden,
            restored_requests=restored,
            missing=None if plan is None or after is not None else (self._last_problem or "not taken"),
        )
        await self._append(record)
        if hidden or restored:
            self._hidden = (self.hidden_requests() | frozenset(hidden)) - frozenset(restored)
            if self._on_conversation_rewind is not None:
                await self._on_conversation_rewind(record)
        outcome.record = record
        return outcome


@dataclass
class RewindOutcome:
    """What a rewind did: the files, the conflicts kept as the user has them, the prompt to edit."""

    prompt: str
    report: RestoreReport | None = None
    kept: list[str] = field(default_factory=list)
    too_large: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    record: TurnRecord | None = None


def _same_record(records: list[TurnRecord], target: TurnRecord) -> TurnRecord:
    """``target`` as read again now (records are compared by their turn id)."""
    for record in records:
        if record.turn == target.turn and record.kind == target.kind:
            return record
    raise RewindRefused("that turn is no longer in this session's record")


def _data_folder_unwritable(root: Path) -> bool:
    """True when the nearest existing folder of ``root`` cannot take one byte (read-only, full)."""
    probe_dir = root
    try:
        while not probe_dir.exists() and probe_dir.parent != probe_dir:
            probe_dir = probe_dir.parent
    except OSError:  # a dead mount, say
        return True
    probe = probe_dir / f".zett-probe-{os.getpid()}"
    try:
        with open(probe, "wb") as stream:
            stream.write(b"x")
            stream.flush()
            os.fsync(stream.fileno())
    except OSError:
        return True
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
    return False


def _short(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error).splitlines()[0] if str(error) else type(error).__name__


class CheckpointExtension(AgentExtension):
    """Takes the checkpoints of each turn (``SessionCheckpoints``) from the runtime's hooks.

    It sits inside the approval gates: a checkpoint is taken before a call that is going to run.
    Its ``on_success`` runs before the transcript's, so the turn's line carries the record.
    """

    name = "ZettCheckpoints"

    def __init__(self, checkpoints: SessionCheckpoints) -> None:
        self.checkpoints = checkpoints
        #: Further tools known to only read, by name (an MCP tool its server marks readOnlyHint).
        self._also_read_only: Callable[[str], bool] = lambda name: False
        #: The records of cancelled turns still being made.
        self._closing: set[asyncio.Future[TurnRecord | None]] = set()

    def treat_as_read_only(self, is_read_only: Callable[[str], bool]) -> None:
        """Take no checkpoint before a call ``is_read_only(name)`` says only reads."""
        self._also_read_only = is_read_only

    async def before_run(self, context: AgentRunContext) -> None:
        if _is_subagent(context):
            return  # its changes belong to the parent's turn: a rewind of it takes them back
        zett = _notes(context)
        turn = str(zett.get("turn") or context.config.request_id or "turn")
        prompt = context.input_message or next(
            (item for item in reversed(context.state.messages) if isinstance(item, UserMessage)), None
        )
        self.checkpoints.begin_turn(
            turn, _text(prompt.content) if prompt is not None else "", context.config.request_id
        )

    async def on_tool_call(
        self, context: AgentRunContext, call: ToolCall, call_next: Callable[[], Awaitable[Any]]
    ) -> Any:
        if call.name not in READ_ONLY_TOOLS and not self._also_read_only(call.name):
            await self.checkpoints.before_change()
        return await call_next()

    async def on_success(self, context: AgentRunContext, result: AssistantMessage) -> None:
        if not _is_subagent(context):
            await self._finish(context)

    async def on_error(self, context: AgentRunContext, error: Exception) -> None:
        if not _is_subagent(context):
            await self._finish(context)

    async def on_event(self, context: AgentRunContext, event: Any) -> None:
        from zett_agent.extensions.events import RunCancelledEvent

        if isinstance(event, RunCancelledEvent) and not _is_subagent(context):
            # A cancelled turn is being torn down: nothing may wait here (the transcript's line
            # comes after this hook). Its last checkpoint and record are made in the background.
            checkpoints = self.checkpoints
            task = asyncio.ensure_future(checkpoints.close_turn(checkpoints.detach_turn()))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def _finish(self, context: AgentRunContext) -> None:
        record = await self.checkpoints.end_turn()
        if record is not None:
            _notes(context)["checkpoint"] = self.checkpoints.metadata(record)


def _is_subagent(context: AgentRunContext) -> bool:
    """A subagent's request (``runtime.subagents``): it runs inside its parent's turn."""
    return context.config.parent_session_id is not None


def _notes(context: AgentRunContext) -> dict[str, Any]:
    zett = context.metadata.get("zett")
    if not isinstance(zett, dict):
        zett = context.metadata["zett"] = {}
    return zett


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") for part in content or ())
