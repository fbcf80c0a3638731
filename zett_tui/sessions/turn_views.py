"""What a recorded turn shows: prompts, answers, reasoning, tool rows, notes, in the order they came.

The display model that ``recorded_turns`` builds from a session file's lines, and that the past
transcript, the browser's preview, the export and the search read. ``TurnView.blocks`` keeps the
order things happened in (text, tool, text, ...); ``answer_text``/``reasoning_text``/``tools`` are
the same content flattened, for callers that only need those.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolView:
    """One tool call and its result."""

    name: str
    #: The argument that says what the call was about (command, path, pattern...), on one line.
    key_arg: str
    #: True/False from the tool result; None when no result was recorded (interrupted).
    ok: bool | None
    output: str
    call_id: str = ""
    arguments_json: str = "{}"
    #: Why the model's arguments could not be decoded, when they could not.
    argument_error: str | None = None
    #: The user said no to it in a dialog (its row says "declined").
    declined: bool = False
    #: A ``task`` call's subagent as the turn's line keeps it (``runtime.subagents``), if any.
    subagent: SubagentView | None = None


@dataclass(frozen=True, slots=True)
class SubagentView:
    """A subagent's run as recorded in its parent turn's line: its kind, job, outcome and rows."""

    agent_type: str
    description: str
    status: str
    tokens: int
    #: ``(name, key argument, ok)`` per tool call it made (ok None: no result recorded).
    tools: tuple[tuple[str, str, bool | None], ...] = ()
    #: Its messages' text (prompt, answers, tool output), for search and export.
    text: str = ""
    #: The indexes in ``tools`` of the calls the user said no to in a dialog.
    declined: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningBlock:
    text: str


@dataclass(frozen=True, slots=True)
class NoteBlock:
    """Something that is neither the model's answer nor a tool: a steering message typed during
    the turn (``steer``), an extension's instruction to the agent (``agent``), a context summary
    (``checkpoint``), a model step that stopped abnormally (``stop``), the line an answer to a
    question left (``decision``: "✓ You allowed: ...", shown under its tool), or a hosted web
    search's rows (``search``, shown before the answer of the model call that searched)."""

    kind: str
    text: str
    #: ``changes``: the turn's checkpoints (before, after), when both were taken.
    checkpoints: tuple[str, str] | None = None
    #: ``changes``: ``(path, added, removed, status)`` per file listed in the turn's line.
    files: tuple[tuple[Any, ...], ...] = ()


Block = TextBlock | ReasoningBlock | ToolView | NoteBlock


@dataclass(frozen=True, slots=True)
class TurnView:
    #: 0-based turn index (the line number minus one), shared with search hits.
    index: int
    prompt: str
    answer_text: str
    reasoning_text: str
    tools: tuple[ToolView, ...]
    #: completed, failed, cancelled, interrupted (or whatever a newer zett wrote).
    status: str
    error: str | None
    model: str | None
    blocks: tuple[Block, ...] = ()
    started_at: datetime | None = None
    completed_at: datetime | None = None
    #: Images attached to the prompt (shown as a marker; their bytes are not kept here).
    prompt_images: int = 0
    #: ``(name shown, stored file name or None)`` of each image of the prompt, in order
    #: (``sessions.image_files``: the file is in the sessions folder's ``images/``).
    prompt_image_files: tuple[tuple[str, str | None], ...] = ()
    #: Byte offset of the turn's line: pass it as ``before_offset`` to page back.
    offset: int = 0
    #: How full the context was after the turn, as the status line said: (tokens, estimated).
    context: tuple[int, bool] | None = None
    #: ``/continue`` carried on the turn before (its blocks hold only what was new).
    continues: bool = False
    #: A conversation rewind took it out of the model's context (``sessions.rewind_marks``).
    rewound: bool = False

    @property
    def cancelled(self) -> bool:
        return self.status == "cancelled"

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    @property
    def interrupted(self) -> bool:
        """zett was stopped (killed, crashed) before the turn ended (``sessions.live_turn``)."""
        return self.status == "interrupted"


@dataclass(frozen=True, slots=True)
class TranscriptPage:
    turns: list[TurnView]
    #: Whether earlier turns exist before ``turns[0]`` (load them with ``before_offset``).
    has_earlier: bool
    start_offset: int
