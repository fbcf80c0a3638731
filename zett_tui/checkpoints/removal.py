"""Forgetting a session's checkpoints (``zett sessions rm``) and collecting what nobody needs."""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from zett_tui.checkpoints.git_env import GitFailed, GitMissing
from zett_tui.checkpoints.journal import session_key
from zett_tui.checkpoints.store import CheckpointStore

log = logging.getLogger(__name__)


def remove_session_checkpoints(session_id: str, root: Path) -> int:
    """Drop the session's checkpoints from every project store under ``root`` and collect the
    objects no other session needs; how many checkpoints were dropped.

    The stores are searched by the session's record, not by its folder: a project that was moved
    or deleted since still has its store cleaned.
    """
    key = session_key(session_id)
    dropped = 0
    try:
        folders = [entry for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False)]
    except FileNotFoundError:
        return 0
    for folder in folders:
        record = Path(folder.path) / "sessions" / f"{key}.jsonl"
        if not record.exists():
            continue
        store = CheckpointStore.at(Path(folder.path))
        try:
            dropped += store.drop_refs(key)
            store.collect_garbage()
        except (GitFailed, GitMissing, OSError):
            log.warning("checkpoints of a removed session could not be collected", exc_info=True)
        with contextlib.suppress(OSError):
            record.unlink()
    return dropped
