"""A turn's "N files changed" line in the chat: made from the live notice or the recorded turn,
and its diff read from the checkpoint store (in a thread) when the user first expands it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from zett_tui.ui.widgets.changes_block import ChangesBlock
from zett_tui.ui.widgets.transcript_blocks import Block, NoticeBlock

if TYPE_CHECKING:
    from zett_tui.checkpoints.store import CheckpointStore
    from zett_tui.runtime.events import Notice
    from zett_tui.sessions.turn_views import NoteBlock
    from zett_tui.ui.widgets.transcript import Transcript

log = logging.getLogger(__name__)


def notice_block(notice: Notice) -> Block:
    """The block a notice is shown as: a turn's changes line expands, any other notice is a line."""
    if notice.files or notice.changes is not None:
        return ChangesBlock(notice.text, notice.files, notice.changes)
    return NoticeBlock(notice.text, notice.level)


def recorded_changes_block(note: NoteBlock, *, expanded: bool = False) -> ChangesBlock:
    """A resumed or previewed turn's changes line (``expanded``: its files listed at once)."""
    block = ChangesBlock(note.text, note.files, note.checkpoints)
    block.expanded = expanded
    return block


def read_diffs_when_expanded(
    transcript: Transcript,
    store_of: Callable[[], CheckpointStore | None],
    run: Callable[[Coroutine[Any, Any, None]], object],
) -> None:
    """When a changes line of ``transcript`` is first expanded, read its diff from ``store_of()``
    with ``run`` (a worker), and show it; a diff that cannot be read is one line in its place."""

    def expanded(block: Block) -> None:
        if not isinstance(block, ChangesBlock) or not block.wants_diff:
            return
        store = store_of()
        if store is None:  # the model is still starting: expanding it again later reads it
            return
        block.begin_reading()
        transcript.refresh_block(block)
        run(_read(transcript, store, block))

    transcript.on_expand = expanded


async def _read(transcript: Transcript, store: CheckpointStore, block: ChangesBlock) -> None:
    assert block.checkpoints is not None
    before, after = block.checkpoints
    try:
        diff = await asyncio.to_thread(store.diff_text, before, after)
    except Exception as error:  # git gone, the store removed, the checkpoint collected
        log.warning("a turn's diff could not be read", exc_info=True)
        block.set_failed(str(error).splitlines()[0] if str(error) else type(error).__name__)
    else:
        block.set_diff(diff)
    transcript.refresh_block(block)
