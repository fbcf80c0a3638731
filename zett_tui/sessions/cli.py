"""``zett sessions list|show|rm|export``: pure functions that write to the streams they are given.

Exit codes: 0 done, 1 nothing done (unknown or ambiguous id, session in use, refused, I/O error;
the reason goes to ``err``), 2 wrong usage.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TextIO

from zett_tui.core.inert_text import one_line
from zett_tui.core.paths import history_db, sessions_dir
from zett_tui.sessions.export import write_export, write_json, write_markdown
from zett_tui.sessions.file_modes import tighten_session_storage
from zett_tui.sessions.ids import SessionLookupError, resolve_session_id, short_ids
from zett_tui.sessions.index import SessionIndex, SessionSummary, same_folder
from zett_tui.sessions.lock import SessionBusy, lock_holder
from zett_tui.sessions.manage import delete_session
from zett_tui.sessions.naming import lock_path
from zett_tui.sessions.read_notices import ReadNotices, report_lines
from zett_tui.sessions.reader import ReadNotice
from zett_tui.sessions.recorded_turns import iter_turns

OK, FAILED, USAGE = 0, 1, 2
EXPORT_FORMATS = ("md", "json")


def _local_time(value: datetime) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M")


def _size(size: int) -> str:
    amount = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if amount < 1024 or unit == "GB":
            return f"{amount:.0f} {unit}" if unit == "B" else f"{amount:.1f} {unit}"
        amount /= 1024
    return f"{size} B"


def _home_short(path: str | None) -> str:
    if not path:
        return "?"
    home = os.path.expanduser("~")
    if path == home or path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path


def _status(summary: SessionSummary) -> str:
    return "in use" if summary.in_use else _status_word(summary.last_status)


def _status_word(status: str) -> str:
    """A turn's status as the lists show it (``interrupted`` fits the column as "cut off")."""
    return "cut off" if status == "interrupted" else status


def _report_damage(notices: list[ReadNotice], err: TextIO) -> None:
    files = {notice.path for notice in notices}
    if files:
        err.write(
            f"note: {len(files)} session file(s) have parts that cannot be read; "
            "`zett sessions show ID` lists them\n"
        )


def _load(directory: Path | None, err: TextIO) -> tuple[SessionIndex, list[SessionSummary]]:
    root = directory if directory is not None else sessions_dir()
    notices: list[ReadNotice] = []
    tighten_session_storage(root, history_db() if directory is None else None, notices)
    index = SessionIndex(root)
    summaries = index.list_sessions()
    for notice in notices:
        err.write(f"warning: {notice}\n")
    return index, summaries


def _resolve(id_prefix: str, directory: Path | None, err: TextIO) -> SessionSummary | None:
    _index, summaries = _load(directory, err)
    try:
        return resolve_session_id(id_prefix, summaries)
    except SessionLookupError as error:
        err.write(f"zett: {error}\n")
        return None


def list_sessions(
    all: bool,
    as_json: bool,
    cwd: str | Path | None,
    out: TextIO,
    *,
    err: TextIO | None = None,
    directory: Path | None = None,
    width: int | None = None,
) -> int:
    """List the sessions started in ``cwd`` (default: the current folder), or every one with ``all``."""
    err = err if err is not None else sys.stderr
    index, summaries = _load(directory, err)
    try:
        folder = Path(cwd) if cwd is not None else Path.cwd()
    except OSError:
        err.write("zett: the current folder no longer exists; use --all\n")
        return FAILED
    shorts = short_ids(summaries)  # unique among every session: --resume looks in all of them
    if not all:
        summaries = [summary for summary in summaries if same_folder(summary.cwd, folder)]
    if as_json:
        rows = [{**summary.to_json(), "short_id": shorts[summary.session_id]} for summary in summaries]
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    elif not summaries:
        where = "" if all else f" started in {folder}"
        hint = "" if all else " (`zett sessions list --all` shows every folder)"
        out.write(f"No sessions{where}{hint}.\n")
    else:
        _write_table(summaries, shorts, all, out, width or shutil.get_terminal_size((100, 24)).columns)
    _report_damage(index.notices, err)
    return OK


def _write_table(
    summaries: list[SessionSummary], shorts: dict[str, str], with_folder: bool, out: TextIO, width: int
) -> None:
    id_width = max(len("ID"), *(len(shorts[summary.session_id]) for summary in summaries))
    branch_width = min(16, max(len("BRANCH"), *(len(summary.branch or "-") for summary in summaries)))
    headers = ["ID".ljust(id_width), "LAST ACTIVITY   ", "TURNS", "STATUS   ", "BRANCH".ljust(branch_width)]
    if with_folder:
        headers.append("FOLDER".ljust(24))
    fixed = len("  ".join(headers)) + 2
    title_width = max(20, width - fixed)
    out.write("  ".join([*headers, "TITLE"]).rstrip() + "\n")
    for summary in summaries:
        cells = [
            shorts[summary.session_id].ljust(id_width),
            _local_time(summary.last_activity).ljust(16),
            str(summary.turns).rjust(5),
            _status(summary).ljust(9),
            one_line(summary.branch or "-", branch_width).ljust(branch_width),
        ]
        if with_folder:
            folder = _home_short(summary.cwd)
            cells.append((folder if len(folder) <= 24 else "…" + folder[-23:]).ljust(24))
        cells.append(one_line(summary.title, title_width))
        out.write("  ".join(cells).rstrip() + "\n")


def show_session(
    id_prefix: str, out: TextIO, *, err: TextIO | None = None, directory: Path | None = None
) -> int:
    """Print one session's details and a line per turn."""
    err = err if err is not None else sys.stderr
    summary = _resolve(id_prefix, directory, err)
    if summary is None:
        return FAILED
    branch = f" (branch {summary.branch})" if summary.branch else ""
    out.write(f"Session   {summary.session_id}\n")
    out.write(f"Title     {summary.title}\n")
    out.write(f"Folder    {summary.cwd or '?'}{branch}\n")
    out.write(f"Model     {summary.model or '?'}\n")
    started, last = _local_time(summary.started_at), _local_time(summary.last_activity)
    out.write(f"Started   {started}    Last activity  {last}\n")
    out.write(
        f"Turns     {_turn_count(summary)} · {_size(summary.size_bytes)} · last turn {_status_word(summary.last_status)}\n"
    )
    out.write(f"File      {summary.path}\n")
    holder = lock_holder(lock_path(summary.path))
    if holder is not None:
        out.write(f"In use    by {holder.describe()}\n")
    notices = ReadNotices()
    turns = list(iter_turns(summary.path, notices))
    if turns:
        out.write("\n")
    number_width = len(str(turns[-1].index + 1)) if turns else 1
    for turn in turns:
        when = _local_time(turn.started_at) if turn.started_at else "?".ljust(16)
        tools = f"  ({len(turn.tools)} tool{'s' if len(turn.tools) != 1 else ''})" if turn.tools else ""
        prompt = "(/continue)" if turn.continues else one_line(turn.prompt, 70) or "(no text)"
        prompt += "  (rewound: not in the model's context)" if turn.rewound else ""
        out.write(
            f"  #{str(turn.index + 1).rjust(number_width)}  {when}  {_status_word(turn.status).ljust(9)}  {prompt}{tools}\n"
        )
    _warn_unread(notices, err)
    return OK


def _turn_count(summary: SessionSummary) -> str:
    """``12`` or ``12 (3 rewound)``: the turns, and how many a rewind took out of the model's context."""
    return f"{summary.turns} ({summary.rewound} rewound)" if summary.rewound else str(summary.turns)


def _warn_unread(notices: ReadNotices, err: TextIO) -> None:
    """What could not be read, on ``err``: at most a dozen lines, however damaged the file."""
    for line in report_lines(notices):
        err.write(f"warning: {line}\n")


def remove_session(
    id_prefix: str,
    out: TextIO,
    err: TextIO,
    yes: bool,
    *,
    confirm: Callable[[str], bool] | None = None,
    directory: Path | None = None,
    history_database: Path | None = None,
) -> int:
    """Delete a session: its transcript, title, lock file and model-history rows.

    Without ``yes`` it asks ``confirm(question)``; with neither it refuses (exit 1).
    """
    summary = _resolve(id_prefix, directory, err)
    if summary is None:
        return FAILED
    if summary.in_use:
        err.write(f"zett: session {summary.session_id} is open in a running zett; close it there first\n")
        return FAILED
    question = f"Delete session {summary.session_id} ({summary.title!r}, {summary.turns} turns)?"
    if not yes:
        if confirm is None:
            err.write(f"zett: not deleting without confirmation: {question} Pass --yes to delete.\n")
            return FAILED
        if not confirm(question):
            out.write("Nothing deleted.\n")
            return FAILED
    history = (
        history_database if history_database is not None else (history_db() if directory is None else None)
    )
    try:
        deletion = asyncio.run(delete_session(summary, history))
    except SessionBusy as error:
        err.write(f"zett: {error}\n")
        return FAILED
    except Exception as error:  # database or file system errors: report, never a traceback
        err.write(f"zett: could not delete session {summary.session_id}: {error}\n")
        return FAILED
    history_note = " and its model history" if deletion.history_rows_removed else ""
    if deletion.checkpoints_removed:
        history_note += f", with its {deletion.checkpoints_removed} checkpoints"
    if deletion.images_removed:
        count = len(deletion.images_removed)
        history_note += f", and {count} stored image{'s' if count != 1 else ''} no other session uses"
    out.write(f"Deleted session {summary.session_id} ({summary.title}){history_note}.\n")
    return OK


def export_session(
    id_prefix: str,
    fmt: str,
    output: Path | None,
    out: TextIO,
    *,
    err: TextIO | None = None,
    directory: Path | None = None,
) -> int:
    """Export a session as Markdown (``md``) or JSON to ``output`` (a file, written atomically) or ``out``."""
    err = err if err is not None else sys.stderr
    if fmt not in EXPORT_FORMATS:
        err.write(f"zett: unknown export format {fmt!r}; use one of: {', '.join(EXPORT_FORMATS)}\n")
        return USAGE
    summary = _resolve(id_prefix, directory, err)
    if summary is None:
        return FAILED
    notices = ReadNotices()
    writer = write_markdown if fmt == "md" else write_json
    if output is None:
        writer(summary, out, notices)
    else:
        if output.is_dir():
            err.write(f"zett: {output} is a folder; give a file name\n")
            return FAILED
        try:
            if fmt == "md":  # the images beside the Markdown, in <name>-images/
                from zett_tui.sessions.export import ImageLinks
                from zett_tui.sessions.export_file import copy_images
                from zett_tui.sessions.image_files import images_folder

                links = ImageLinks(images_folder(summary.path), f"{output.stem}-images")
                count = write_export(
                    output, lambda stream: write_markdown(summary, stream, notices, images=links)
                )
                copy_images(links, output.parent)
            else:
                count = write_export(output, lambda stream: writer(summary, stream, notices))
        except OSError as error:
            err.write(f"zett: cannot write {output}: {error.strerror or error}\n")
            return FAILED
        out.write(f"Exported {count} turns of session {summary.session_id} to {output}\n")
    _warn_unread(notices, err)
    return OK
