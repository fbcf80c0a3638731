"""Commands about stored sessions: open the browser, name this session, export it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

from zett_tui.core import paths
from zett_tui.sessions.export_file import EXPORT_WRITERS, export_to_file, format_for, free_export_path
from zett_tui.sessions.ids import short_ids
from zett_tui.sessions.index import SessionSummary
from zett_tui.sessions.meta import set_title
from zett_tui.sessions.naming import InvalidSessionId, session_path
from zett_tui.sessions.scan import list_all_sessions
from zett_tui.ui.app_messages import OpenSessionBrowser
from zett_tui.ui.chat.commands.registry import slash_command

if TYPE_CHECKING:
    from zett_tui.ui.chat.command_context import CommandContext


@slash_command("sessions", "Browse, search, resume, delete or export past sessions (also Ctrl+O)")
def open_browser(ctx: CommandContext, arguments: str) -> None:
    ctx.post(OpenSessionBrowser())


def _sessions_dir(ctx: CommandContext) -> Path:
    directory = ctx.launch.host_overrides.get("sessions_dir")
    return Path(directory) if directory is not None else paths.sessions_dir()


def _current_file(ctx: CommandContext) -> tuple[str, Path] | None:
    """This chat's session id and JSONL file, when at least one turn has been recorded."""
    session_id = ctx.host.session_id if ctx.host is not None else ctx.launch.session_id
    if not session_id:
        return None
    try:
        path = session_path(_sessions_dir(ctx), session_id)
    except InvalidSessionId:
        return None
    try:
        recorded = path.stat().st_size > 0
    except OSError:
        recorded = False
    return (session_id, path) if recorded else None


@slash_command("rename", "Give this session a title (shown in the session browser)", arguments="TITLE")
def rename(ctx: CommandContext, arguments: str) -> None:
    if not arguments.strip():
        ctx.say("Usage: /rename TITLE: the title the session browser shows for this session.", "warning")
        return
    current = _current_file(ctx)
    if current is None:
        ctx.say("This session has no recorded turn yet; send a prompt first, then /rename it.", "warning")
        return
    try:
        title = set_title(current[1], arguments)
    except OSError as error:
        ctx.say(f"Could not save the title: {error.strerror or error}", "error")
        return
    ctx.say(f"This session is now called “{title}”.")


def _export_request(ctx: CommandContext, arguments: str) -> tuple[str, Path | None]:
    """(format, file or folder, or None for the default name) from ``[md|json] [FILE]``."""
    words = arguments.split(maxsplit=1)
    fmt = words.pop(0).lower() if words and words[0].lower() in EXPORT_WRITERS else None
    if not words:
        return fmt or "md", None
    target = Path(words[0].strip()).expanduser()
    if not target.is_absolute():
        target = ctx.cwd / target
    return fmt or format_for(target), target


@slash_command(
    "export",
    "Save this session as Markdown or JSON (a new file: an existing one is never replaced)",
    arguments="[md|json] [FILE]",
)
async def export(ctx: CommandContext, arguments: str) -> None:
    fmt, target = _export_request(ctx, arguments)
    current = _current_file(ctx)
    if current is None:
        ctx.say("This session has no recorded turn yet; there is nothing to export.", "warning")
        return
    session_id, path = current
    try:
        written, unreadable, where = await asyncio.to_thread(
            _export, _sessions_dir(ctx), session_id, path, fmt, target, ctx.cwd
        )
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        ctx.say(f"Could not export the session: {reason}", "error")
        return
    plural = "s" if written != 1 else ""
    note = f" ({unreadable} unreadable part(s) noted at the end)" if unreadable else ""
    ctx.say(f"Exported {written} turn{plural} to {where}{note}.")


def _export(
    directory: Path, session_id: str, path: Path, fmt: str, target: Path | None, cwd: Path
) -> tuple[int, int, Path]:
    """Blocking: find the session's summary, pick the file name, write the export."""
    summaries, _notices = list_all_sessions(directory)
    summary = next((item for item in summaries if item.path == path), None)
    if summary is None:
        raise ValueError(f"session {session_id} is not in {directory}")
    if target is not None:
        _refuse_a_link_out_of(cwd, target)
    if target is None or target.is_dir():
        folder = target if target is not None else cwd
        target = free_export_path(folder, _short_id(summaries, summary), fmt)
    written, notices = export_to_file(summary, fmt, target)
    return written, len(notices), target


def _refuse_a_link_out_of(cwd: Path, target: Path) -> None:
    """A name inside the project must not lead out of it through a link (``docs`` made a link to
    ``~/.config/autostart`` by a command): raises ``ValueError``. A path the user gives outside
    the project is theirs to choose."""
    project = Path(os.path.realpath(cwd))
    lexical = Path(os.path.normpath(target))
    if not lexical.is_relative_to(cwd) and not lexical.is_relative_to(project):
        return
    real = Path(os.path.realpath(lexical if lexical.is_dir() else lexical.parent))
    if real != project and not real.is_relative_to(project):
        raise ValueError(
            f"{target} leads outside the project through a link (to {real}); nothing was written. "
            "Give the full path of the folder if you mean it."
        )


def _short_id(summaries: list[SessionSummary], summary: SessionSummary) -> str:
    return short_ids(summaries).get(summary.session_id, summary.session_id)
