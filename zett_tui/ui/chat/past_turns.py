"""Paints recorded turns on the transcript as they were shown: prompts, reasoning (collapsed),
tool rows, answers, and cancelled or failed turns marked."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zett_tui.core import paths
from zett_tui.core.todo_items import TODO_TOOL, todos_from_arguments
from zett_tui.runtime.files.attachments import typed_part
from zett_tui.sessions.read_notices import ReadNotices
from zett_tui.sessions.recorded_turns import load_last_turns
from zett_tui.sessions.turn_views import NoteBlock, TextBlock, ToolView, TranscriptPage, TurnView
from zett_tui.sessions.turn_views import ReasoningBlock as PastReasoning
from zett_tui.ui.chat.changes_lines import recorded_changes_block
from zett_tui.ui.widgets.steer_block import SteerBlock
from zett_tui.ui.widgets.task_block import TaskBlock
from zett_tui.ui.widgets.todo_panel import TodoBlock
from zett_tui.ui.widgets.transcript import (
    AnswerBlock,
    NoticeBlock,
    ReasoningBlock,
    ToolBlock,
    Transcript,
    UserBlock,
)
from zett_tui.ui.widgets.transcript_blocks import REWOUND

if TYPE_CHECKING:
    from zett_tui.core.image_thumbnail import Cells

#: Under a turn zett never finished (``sessions.live_turn``): it was killed or crashed.
CUT_OFF = "✂ cut off here: zett was stopped before this turn ended"
#: Under a turn a conversation rewind took out of the model's context (it stays in the session).
#: How many of the latest turns a resumed session paints at once.
RESUME_TURNS = 60

log = logging.getLogger(__name__)


def show_turn(
    transcript: Transcript,
    turn: TurnView,
    *,
    previous_model: str | None = None,
    list_changes: bool = False,
    previews: Mapping[str, Cells] | None = None,
) -> str | None:
    """Paint one turn. Its first answer is labelled with its model when that differs from
    ``previous_model``; returns the model of the answers now shown last (``previous_model`` if none).
    ``list_changes``: the files the turn changed are listed under its changes line at once.
    ``previews``: small previews of stored images by file name (``[ui] image_previews``)."""
    if turn.continues:  # as the live screen showed /continue
        transcript.add(NoticeBlock("Continuing…", "info"))
    else:
        transcript.add(UserBlock(typed_part(turn.prompt)))  # as typed: the attached files are not repeated
        for name, stored in turn.prompt_image_files:
            transcript.add(NoticeBlock(f"🖼 {name}", "info"))  # as the live turn's line per image
            preview = previews.get(stored) if previews is not None and stored is not None else None
            if preview is not None:
                from zett_tui.ui.widgets.image_preview_block import ImagePreviewBlock

                transcript.add(ImagePreviewBlock(preview))
    label = turn.model if turn.model != previous_model else None
    answered = False
    status = "completed" if turn.status == "completed" else turn.status
    last_answer: AnswerBlock | None = None
    for block in turn.blocks:
        if isinstance(block, PastReasoning):
            reasoning = transcript.add(ReasoningBlock())
            reasoning.append(block.text)
            reasoning.finish()
        elif isinstance(block, TextBlock):
            last_answer = transcript.add(AnswerBlock(None if answered else label))
            answered = True
            last_answer.append(block.text)
            last_answer.finish("completed")
        elif isinstance(block, ToolView):
            _show_tool(transcript, block, turn.status)
        elif isinstance(block, NoteBlock) and block.kind == "changes":
            transcript.add(recorded_changes_block(block, expanded=list_changes))
        elif isinstance(block, NoteBlock) and block.kind == "steer":
            transcript.add(SteerBlock(block.text))  # as the live turn showed it
        elif isinstance(block, NoteBlock):
            transcript.add(NoticeBlock(block.text, "decision" if block.kind == "decision" else "info"))
    if turn.rewound:
        transcript.add(NoticeBlock(REWOUND, "info"))
    if status == "cancelled":
        if last_answer is not None and last_answer is transcript.blocks[-1]:
            last_answer.status = "cancelled"  # the answer block marks itself
        else:
            transcript.add(NoticeBlock("⏹ cancelled", "warning"))
    elif status == "interrupted":
        transcript.add(NoticeBlock(CUT_OFF, "warning"))
    elif status == "failed":
        transcript.add(NoticeBlock(turn.error or "This turn failed.", "error"))
    elif status not in ("completed",):
        transcript.add(NoticeBlock(f"This turn ended as: {status}", "warning"))
    return turn.model if answered else previous_model


def _show_tool(transcript: Transcript, tool: ToolView, turn_status: str) -> None:
    if tool.name == TODO_TOOL and tool.ok:  # the checklist, as the live turn showed it
        items = todos_from_arguments(tool.arguments_json)
        if items is not None:
            transcript.add(TodoBlock(items))
            return
    row = transcript.add(_past_row(tool))
    if tool.ok is None:
        state = "cancelled" if turn_status in ("cancelled", "interrupted") else "failed"
    else:
        state = "done" if tool.ok else "failed"
    if tool.declined and tool.ok is not None:
        state = "declined"
    if "Request cancelled before tool completion" in tool.output:
        state = "cancelled"
    row.finish(state, tool.output)


def _past_row(tool: ToolView) -> ToolBlock:
    """A recorded tool's row; a ``task`` call's with its subagent's rows (``TaskBlock``)."""
    child = tool.subagent
    if tool.name != "task" or child is None:
        return ToolBlock(tool.call_id, tool.name, tool.key_arg)
    block = TaskBlock(tool.call_id, tool.name, child.description or tool.key_arg, child.agent_type)
    block.child_tools_started(
        [(f"{index}", name, key_arg) for index, (name, key_arg, _) in enumerate(child.tools)]
    )
    for index, (_, _, ok) in enumerate(child.tools):
        state = "done" if ok else ("failed" if ok is False else "cancelled")
        block.child_tool_finished(f"{index}", "declined" if index in child.declined else state)
    block.child_finished(child.status, child.tokens)
    return block


@dataclass(frozen=True, slots=True)
class PastSession:
    """The last turns of a recorded session as read from its file, ready to paint."""

    page: TranscriptPage
    #: What could not be read: counted, a few kept (the details went to the log).
    notices: ReadNotices
    #: Small previews of the turns' stored images, by file name (``[ui] image_previews``).
    previews: Mapping[str, Cells] = field(default_factory=dict)


def read_past_session(path: Path, *, previews: bool = False) -> PastSession:
    """Read the last :data:`RESUME_TURNS` turns of ``path``. Blocking (it reads the file, and counts
    the lines before those turns): use :func:`load_past_session` on the event loop. What could
    not be read is logged in detail here; the screen says it in a line or two. ``previews``: the
    stored images of those turns are read and made small too."""
    notices = ReadNotices()
    page = load_last_turns(path, RESUME_TURNS, notices)
    notices.log(log)
    return PastSession(page, notices, _previews(path, page.turns) if previews else {})


async def load_past_session(path: Path, *, previews: bool = False) -> PastSession:
    """:func:`read_past_session` in a thread, so a long session file never holds up the screen."""
    return await asyncio.to_thread(read_past_session, path, previews=previews)


def _previews(path: Path, turns: Iterable[TurnView]) -> dict[str, Cells]:
    from zett_tui.core.image_thumbnail import thumbnail_cells
    from zett_tui.sessions.image_files import image_path, images_folder

    found: dict[str, Cells] = {}
    for turn in turns:
        for _name, stored in turn.prompt_image_files:
            file = image_path(images_folder(path), stored)
            if file is None or stored in found:
                continue
            try:
                cells = thumbnail_cells(file.read_bytes())
            except OSError:  # deleted by hand: the line alone
                continue
            if cells is not None:
                found[str(stored)] = cells
    return found


def paint_past_session(transcript: Transcript, past: PastSession, session_id: str) -> ReadNotices:
    """Paint what :func:`read_past_session` read; returns what could not be read."""
    page, notices = past.page, past.notices
    if page.has_earlier:
        transcript.add(
            NoticeBlock(
                f"Earlier turns are not shown here; `zett sessions export {session_id}` has them all.",
                "info",
            )
        )
    show_turns(transcript, page.turns, past.previews)
    for line in notices.lines(details_in=str(paths.log_file())):
        transcript.add(NoticeBlock(line, "warning"))
    return notices


def last_labelled_model(transcript: Transcript) -> str | None:
    """The label of the last answer that has one: answers are labelled where the model changed, so
    this is the model of the last answer shown."""
    for block in reversed(transcript.blocks):
        if isinstance(block, AnswerBlock) and block.label:
            return block.label
    return None


def show_turns(
    transcript: Transcript, turns: Iterable[TurnView], previews: Mapping[str, Cells] | None = None
) -> str | None:
    """Paint ``turns``, labelling an answer only where the model changed; returns the last model."""
    model: str | None = None
    for turn in turns:
        model = show_turn(transcript, turn, previous_model=model, previews=previews)
    return model
