"""Deleting a session deletes its stored images that no remaining session names.

Images are stored once by content hash (``sessions.image_files``): the same screenshot in two
sessions is one file, and a fork's lines name its parent's files. So a deleted session's images
are only candidates: each one still named by another session's lines (finished turns, a turn in
progress, its streamed part) or by a history row (``runtime.history_images``) stays. When the
history cannot be read, every candidate stays: a file too many is better than an image lost.
A file touched in the last minute also stays: another zett may have just named it.
"""

from __future__ import annotations

import base64
import logging
import re
import sqlite3
import time
from collections.abc import Collection
from pathlib import Path

from zett_tui.sessions.image_files import IMAGE_KEY, image_path, images_in, reference_bytes
from zett_tui.sessions.naming import LOCK_SUFFIX, META_SUFFIX

__all__ = ["images_named_in", "remove_unreferenced_images"]

log = logging.getLogger(__name__)

_NAMED = re.compile(rb'"' + IMAGE_KEY.encode() + rb'"\s*:\s*"([0-9a-f]{64}\.[a-z]{3,4})"')
#: A file written or reused this recently may have just been named by another zett.
RECENT_SECONDS = 60.0


def images_named_in(path: Path) -> set[str]:
    """The stored image names a session file (or its live turn) names; empty when unreadable."""
    found: set[str] = set()
    try:
        with path.open("rb") as handle:
            for line in handle:
                if IMAGE_KEY.encode() in line:
                    found.update(match.decode() for match in _NAMED.findall(line))
    except OSError:
        return set()
    return found


def remove_unreferenced_images(
    candidates: Collection[str], sessions_dir: Path, history_db: Path | None
) -> list[Path]:
    """Delete the ``candidates`` (image file names) nothing in ``sessions_dir`` or ``history_db``
    names any more; returns the files removed."""
    left = {name for name in candidates if image_path(images_in(sessions_dir), name) is not None}
    if not left:
        return []
    for path in _session_files(sessions_dir):
        left -= images_named_in(path)
        if not left:
            return []
    left -= _named_in_history(left, history_db)
    removed: list[Path] = []
    now = time.time()
    for name in sorted(left):
        path = images_in(sessions_dir) / name
        try:
            if now - path.stat().st_mtime < RECENT_SECONDS:
                continue
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError:
            log.warning("stored image %s could not be removed", name, exc_info=True)
            continue
        removed.append(path)
    return removed


def _session_files(sessions_dir: Path) -> list[Path]:
    """Every file of the folder that may name an image: the sessions, their turns in progress,
    and whatever was set aside (a damaged journal): all but titles and locks."""
    try:
        return [
            path
            for path in sessions_dir.iterdir()
            if not path.name.endswith((META_SUFFIX, LOCK_SUFFIX)) and path.is_file()
        ]
    except OSError:
        return []


def _named_in_history(names: Collection[str], history_db: Path | None) -> set[str]:
    """The ``names`` a history row still references; all of them when the history is unreadable."""
    if history_db is None or not history_db.is_file():
        return set()
    try:
        connection = sqlite3.connect(f"{history_db.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return set(names)
    try:
        named: set[str] = set()
        for name in names:
            needle = base64.b64encode(reference_bytes(name)).decode("ascii")
            for table in ("raw_messages", "session_snapshots"):
                row = connection.execute(
                    f"SELECT 1 FROM {table} WHERE instr(message_json, ?) > 0 LIMIT 1", (needle,)
                ).fetchone()
                if row is not None:
                    named.add(name)
                    break
        return named
    except sqlite3.Error:
        log.warning("the history could not be searched for stored images; they are kept", exc_info=True)
        return set(names)
    finally:
        connection.close()
