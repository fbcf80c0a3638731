"""Small things a user hits: the session id on screen is one zett takes back, `zett --help` and
`zett sessions rm` say what to do, `/continue` with nothing cut off, Enter in a read-only session,
Ctrl+D during a turn."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import answers, idle, make_app, notices, ready_app, submit, wait_for
from zett_tui.entry.startup import find_session_to_resume
from zett_tui.sessions.index import SessionIndex


def zett(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """zett as a user runs it, standard input not a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "zett_tui", *arguments],
        cwd=cwd,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def recorded_session(cwd: Path) -> str:
    host = await make_host(ScriptedModel(text_step("earlier answer")), cwd=cwd)
    await host.run_turn("an earlier question", Collector())
    await host.aclose()
    return host.session_id


# --- one session id form ------------------------------------------------------------------------


async def test_the_id_in_the_status_line_resumes_this_session(project_dir: Path) -> None:
    """Sessions started within the same 65.5 s share their first 8 characters (UUIDv7: 32 bits of
    a millisecond time), so the status line shows as many as it takes to name this one."""
    for _ in range(2):  # the prefix changes every 65.5 s: two sessions may straddle that, not twice running
        earlier = await recorded_session(project_dir)
        shown, current = await _id_in_the_status_line()
        if earlier[:8] == current[:8]:
            break
    assert earlier[:8] == current[:8]  # what makes a fixed-length prefix ambiguous
    assert find_session_to_resume(project_dir, shown, continue_last=False).session_id == current


async def _id_in_the_status_line() -> tuple[str, str]:
    """A new session's turn in the app: the id its status line shows, and its whole id."""
    app = make_app(ScriptedModel(text_step("Hello.")))
    async with ready_app(app) as pilot:
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        await wait_for(pilot, lambda: "session " in str(app.chat.status.render()))
        shown = re.search(r"session (\S+)", str(app.chat.status.render()))
        assert shown is not None
        return shown.group(1), app.chat.host.session_id if app.chat.host else ""


async def test_sessions_list_shows_ids_that_resume_even_when_another_folder_shares_the_prefix(
    project_dir: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "other-project"
    elsewhere.mkdir()
    other = await recorded_session(elsewhere)
    here = await recorded_session(project_dir)
    if other[:8] != here[:8]:  # they straddled a 65.5 s step of the time prefix: the next one is in here's
        other = await recorded_session(elsewhere)
    assert other[:8] == here[:8]
    listed = zett("sessions", "list", cwd=project_dir)
    assert listed.returncode == 0, listed.stderr
    [shown] = [word for word in listed.stdout.split() if here.startswith(word) and len(word) >= 8]
    assert find_session_to_resume(project_dir, shown, continue_last=False).session_id == here
    shown_by_show = zett("sessions", "show", shown, cwd=project_dir)
    assert shown_by_show.returncode == 0 and here in shown_by_show.stdout


# --- the command line -------------------------------------------------------------------------


def test_help_mentions_the_sessions_command(project_dir: Path) -> None:
    result = zett("--help", cwd=project_dir)
    assert result.returncode == 0
    assert "zett sessions" in result.stdout


async def test_sessions_rm_without_a_terminal_says_to_add_yes(project_dir: Path) -> None:
    session_id = await recorded_session(project_dir)
    result = zett("sessions", "rm", session_id[:13], cwd=project_dir)
    assert result.returncode == 1
    assert "--yes" in result.stderr
    assert [summary.session_id for summary in SessionIndex().list_sessions()] == [session_id]
    removed = zett("sessions", "rm", session_id[:13], "--yes", cwd=project_dir)
    assert removed.returncode == 0, removed.stderr
    assert SessionIndex().list_sessions() == []


# --- in the app --------------------------------------------------------------------------------


async def test_continue_with_nothing_cut_off_says_so_and_sends_nothing() -> None:
    model = ScriptedModel(text_step("A whole answer."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "/continue")
        await wait_for(pilot, lambda: any("Nothing to continue" in text for text in notices(app)))
        await submit(pilot, "question")
        await wait_for(pilot, lambda: idle(app) and bool(answers(app)))
        await submit(pilot, "/continue")
        await wait_for(
            pilot, lambda: [text for text in notices(app) if "Nothing to continue" in text][1:] != []
        )
        await pilot.pause(0.1)
        assert "Continuing…" not in notices(app)
        assert len(model.requests) == 1


async def test_enter_in_a_read_only_session_says_why_and_the_spinner_stops(project_dir: Path) -> None:
    from zett_tui.core import paths
    from zett_tui.sessions.lock import claim_session

    session_id = await recorded_session(project_dir)
    lock = claim_session(paths.sessions_dir(), session_id)  # another zett is writing it
    try:
        busy = find_session_to_resume(project_dir, session_id, continue_last=False, allow_busy=True)
        viewer = make_app(ScriptedModel(), session_id=busy.session_id, resume_path=busy.path, read_only=True)
        async with viewer.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: viewer.chat.status.activity == "read-only")
            await submit(pilot, "may I?")
            await pilot.pause(0.1)
            told = [notification.message for notification in viewer._notifications]
            assert any("read-only" in message and "another zett" in message for message in told)
            assert not viewer.chat.status.spinner.running
            assert viewer.chat.composer.text == "may I?"  # kept, not lost
    finally:
        lock.release()


async def test_ctrl_d_during_a_turn_stops_it_and_does_not_quit() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("A long answer that never ends.", gate=gate))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "question")
        await wait_for(pilot, lambda: app.chat.turns.busy)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: idle(app))
        assert app.is_running and app.return_code is None
        assert not app.chat.turns.busy


async def test_export_says_where_it_wrote_and_never_replaces_a_file(
    project_dir: Path, tmp_path: Path, command_host: Any
) -> None:
    """/export on the real host (the app's wiring of a command's lines: test_session_browser)."""
    outside = tmp_path / "outside.md"
    (project_dir / "link.md").symlink_to(outside)  # dangling: writing through it would create outside.md
    (project_dir / "mine.md").write_text("my own notes\n")
    chat = await command_host(ScriptedModel(text_step("an answer")))
    await chat.turn("a question")
    said_lines = []
    for command in ("/export", "/export", "/export mine.md", "/export link.md"):
        [line] = await chat.command(command)
        said_lines.append(line)
    made = sorted(path.name for path in project_dir.glob("zett-session-*.md"))
    assert len(made) == 2 and made[0].endswith("-2.md")  # the second export did not replace the first
    for name, line in zip(reversed(made), said_lines[:2], strict=True):
        assert f"Exported 1 turn to {project_dir / name}" in line
    assert "mine.md already exists" in said_lines[2] and "nothing was overwritten" in said_lines[2]
    assert (project_dir / "mine.md").read_text() == "my own notes\n"
    assert "link.md already exists" in said_lines[3]
    assert not outside.exists()


async def test_export_into_a_folder_linked_out_of_the_project_writes_nothing(
    project_dir: Path, tmp_path: Path, command_host: Any
) -> None:
    """A command may have made ``docs`` a link to a folder elsewhere (``~/.config/autostart``)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project_dir / "docs").symlink_to(elsewhere)
    chat = await command_host(ScriptedModel(text_step("an answer")))
    await chat.turn("a question")
    said_lines = []
    for command in ("/export docs", "/export docs/notes.md", f"/export {elsewhere}"):
        [line] = await chat.command(command)
        said_lines.append(line)
    assert "leads outside the project through a link" in said_lines[0]
    assert "leads outside the project through a link" in said_lines[1]
    assert f"Exported 1 turn to {elsewhere}" in said_lines[2]  # a full path is the user's choice
    assert len(list(elsewhere.iterdir())) == 1


async def test_shift_tab_shows_the_mode_in_the_status_line_and_stacks_no_toasts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zett_tui.ui.widgets import status_line

    monkeypatch.setattr(status_line, "MODE_NOTE_SECONDS", 0.5)
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(160, 30)) as pilot:
        before = len(app._notifications)
        for _ in range(4):
            await pilot.press("shift+tab")
        await pilot.pause()
        line = str(app.chat.status.render())
        assert "│  ask  │  edits and shell commands ask first  │" in line  # round the cycle, once
        assert "nothing asks" not in line and "Plan Mode" not in line
        assert len(app._notifications) == before
        await wait_for(pilot, lambda: "ask first" not in str(app.chat.status.render()))
        assert "│  ask  │" in str(app.chat.status.render())


async def test_f1_help_is_two_columns_that_never_break_an_entry_at_80_columns() -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(80, 60)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: any(text.startswith("Commands:") for text in notices(app)))
        await pilot.pause()
        transcript = app.chat.transcript
        shown = [transcript.line_text(y).rstrip() for y in range(transcript.virtual_size.height)]
    rows = shown[shown.index("Commands:") :]
    rows = [
        row
        for row in rows[: rows.index("") if "" in rows else len(rows)]
        if row not in ("Commands:", "Keys:")
    ]

    def indent(row: str) -> int:
        return len(row) - len(row.lstrip())

    entries = [row for row in rows if indent(row) == 2]
    wrapped = [row for row in rows if indent(row) > 2]
    side_by_side = [row for row in entries if "   " in row.strip()]
    [column] = {len(row) - len(row.split("   ", 1)[1].lstrip()) for row in side_by_side if "   " in row}
    assert len(side_by_side) > 20 and wrapped
    for row in wrapped:  # a description's next line starts under the descriptions (or under its entry)
        assert indent(row) in (column, 6), row
    by_name = {row.split()[0]: row for row in entries}
    assert "Summarize older turns" in by_name["/compact"]  # entry and description on one row
    assert "Ctrl+P" in by_name and "Shift+Enter" in by_name and "F1" in by_name and "Esc" in by_name
    assert not any("^" in row or "⏎" in row for row in rows)
