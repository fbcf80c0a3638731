"""Exporting a stored session to a file, shared by the session browser and ``/export``. No Textual.

Blocking (it reads the whole session and writes the export): both callers run it in a thread.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from zett_tui.core import paths
from zett_tui.sessions.export import ImageLinks, write_export, write_json, write_markdown
from zett_tui.sessions.image_files import images_folder
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.read_notices import ReadNotices

EXPORT_WRITERS = {"md": write_markdown, "json": write_json}


def export_file_name(short_id: str, fmt: str = "md") -> str:
    """``zett-session-<short id>.md`` (or ``.json``)."""
    return f"zett-session-{short_id}.{fmt}"


def free_export_path(folder: Path, short_id: str, fmt: str = "md") -> Path:
    """``folder/zett-session-<short id>.md``, or ``-2``, ``-3``... when that name is taken."""
    first = folder / export_file_name(short_id, fmt)
    candidate, number = first, 1
    while os.path.lexists(candidate):
        number += 1
        candidate = first.with_name(f"zett-session-{short_id}-{number}.{fmt}")
    return candidate


def format_for(path: Path) -> str:
    """The export format a file name asks for: JSON for ``.json``, Markdown otherwise."""
    return "json" if path.suffix.lower() == ".json" else "md"


def export_to_file(summary: SessionSummary, fmt: str, target: Path) -> tuple[int, ReadNotices]:
    """Write the whole session to ``target`` (atomically, 0600); returns (turns written, what was
    unreadable: ``len()`` counts it all). Raises ``OSError`` when the file cannot be written,
    ``FileExistsError`` when something (a file, a folder, a symlink, even a dangling one) is already
    there: nothing is ever overwritten, and no symlink is followed to a file elsewhere;
    ``ValueError`` for an unknown format."""
    writer = EXPORT_WRITERS.get(fmt)
    if writer is None:
        raise ValueError(f"unknown export format {fmt!r}; use one of: {', '.join(EXPORT_WRITERS)}")
    if os.path.lexists(target):
        raise FileExistsError(
            errno.EEXIST, f"{target} already exists; nothing was overwritten (give another file name)"
        )
    notices = ReadNotices()
    if fmt != "md":
        return write_export(target, lambda stream: writer(summary, stream, notices)), notices
    links = ImageLinks(images_folder(summary.path), f"{target.stem}-images")
    count = write_export(target, lambda stream: write_markdown(summary, stream, notices, images=links))
    copy_images(links, target.parent)
    return count, notices


def copy_images(links: ImageLinks, beside: Path) -> None:
    """The images an exported Markdown file links to, copied into its image folder (0600 files)."""
    if not links.used:
        return
    folder = beside / links.folder_name
    paths.ensure_private_dir(folder)
    for source in links.used:
        target = folder / source.name
        if not os.path.lexists(target):
            shutil.copyfile(source, target, follow_symlinks=False)
            os.chmod(target, 0o600)
