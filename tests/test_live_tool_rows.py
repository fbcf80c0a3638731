"""Tool rows from the user's side: "waiting for you" while a dialog asks, a running command's time
and last lines live, durations that leave the wait out, and one word for each way a call can end."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step, tools_step
from tests.test_dialogs import dialog_closed, open_dialog
from tests.ui_helpers import dialog_armed, idle, make_app, ready_app, screen_text, submit, tools, wait_for
from zett_tui.entry.startup import find_session_to_resume
from zett_tui.runtime.shell import live_output
from zett_tui.ui.modals.ask_user import AskUserDialog

#: Prints two lines, then waits for the test to create ``go`` before it ends.
WAITING_COMMAND = "echo first line; echo second line; until test -e go; do sleep 0.05; done; echo finished"


def shows(app: Any, pattern: str) -> bool:
    """The screen (its text runs joined, padding dropped) matches ``pattern``."""
    return re.search(pattern, screen_text(app)) is not None


async def test_a_row_waits_for_you_then_runs_live_and_its_duration_leaves_the_wait_out(
    project_dir: Path,
) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": WAITING_COMMAND}), text_step("Ran."))
    app = make_app(model)
    async with ready_app(app, size=(120, 30)) as pilot:
        await submit(pilot, "run it")
        dialog = await dialog_armed(pilot)
        [row] = tools(app)
        assert row.state == "waiting"
        await pilot.pause(1.3)  # the user reads the dialog: not part of the run
        answered = time.monotonic()
        await pilot.press("enter")
        await dialog_closed(pilot, dialog)
        await wait_for(pilot, lambda: row.state == "running" and "second line" in row.live_lines)
        assert row.live_lines == ("first line", "second line")
        # under the row (after a second the row also says for how long: a loaded machine gets there)
        await wait_for(pilot, lambda: shows(app, r"running(?: \d+s)?\s*│ first line\s*│ second line"))
        await wait_for(pilot, lambda: shows(app, r"running [12]s"), timeout=5)
        (project_dir / "go").touch()
        await wait_for(pilot, lambda: idle(app))
        ran_for = time.monotonic() - answered
        assert row.state == "done" and row.live_lines == ()
        # it ran for about ``ran_for``; with the 1.8 s the dialog was open it would be far more
        assert row.duration_s is not None and 1.0 <= row.duration_s < ran_for + 0.5
        assert "finished" in row.plain_text()
        assert "│ second line" not in screen_text(app)  # collapsed again: the output is one Enter away


async def test_a_busy_command_shows_only_its_last_lines(project_dir: Path) -> None:
    command = "seq 1 200000; until test -e go; do sleep 0.05; done"
    model = ScriptedModel(tool_step("c1", "bash", {"command": command}), text_step("Counted."))
    app = make_app(model)
    async with ready_app(app, size=(120, 30)) as pilot:
        await submit(pilot, "count")
        await dialog_armed(pilot)
        await pilot.press("enter")
        [row] = tools(app)
        await wait_for(pilot, lambda: "200000" in row.live_lines)
        assert row.live_lines == ("199997", "199998", "199999", "200000")
        (project_dir / "go").touch()
        await wait_for(pilot, lambda: idle(app))


def test_the_tail_reads_a_bounded_end_of_the_file(tmp_path: Path) -> None:
    out = tmp_path / "stdout.txt"
    out.write_text("".join(f"line {n}\n" for n in range(100_000)) + "50%\r75%\r100%\n")
    assert live_output.tail_lines(out, 3) == ["line 99998", "line 99999", "100%"]
    out.write_text("x" * 10_000)
    assert live_output.tail_lines(out, 3, tail_bytes=100) == []  # one cut line: nothing whole to show


async def test_declined_failed_and_refused_are_different_words(project_dir: Path) -> None:
    calls = [("a", "bash", {"command": "touch nope.txt"}), ("b", "bash", {"command": "exit 3"})]
    model = ScriptedModel(
        tools_step(calls),
        text_step("One declined, one failed."),
        tool_step("w1", "write_file", {"path": "src.py", "content": "x = 1\n"}),
        text_step("Plan Mode stopped it."),
    )
    app = make_app(model)
    async with ready_app(app, size=(120, 30)) as pilot:
        await submit(pilot, "two commands")
        first = await open_dialog(pilot)
        await pilot.press("escape")  # declines `touch nope.txt`
        await dialog_closed(pilot, first)
        await open_dialog(pilot)
        await pilot.press("enter")  # runs `exit 3`
        await wait_for(pilot, lambda: idle(app))
        await submit(pilot, "/plan on")
        await submit(pilot, "write it")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 4)
        assert [row.state for row in tools(app)] == ["declined", "failed", "refused"]
        assert shows(app, r"⊘ bash  touch nope\.txt\s*declined")
        assert shows(app, r"✗ bash  exit 3\s*failed")
        assert shows(app, r"⊘ write_file  src\.py\s*refused")
        assert not (project_dir / "nope.txt").exists()


async def test_ask_user_shows_the_answer_on_its_row() -> None:
    question = {"question": "Which format?", "options": ["Markdown", "HTML"]}
    model = ScriptedModel(tool_step("q1", "ask_user", question), text_step("HTML it is."))
    app = make_app(model)
    async with ready_app(app, size=(120, 30)) as pilot:
        await submit(pilot, "export it")
        await open_dialog(pilot, AskUserDialog)
        assert tools(app)[0].state == "waiting"
        await pilot.press("2")
        await wait_for(pilot, lambda: idle(app))
        assert tools(app)[0].state == "done"
        assert shows(app, r"ask_user  Which format\?  → chose: HTML\s*done")


async def test_a_bad_argument_is_one_line_on_the_row() -> None:
    model = ScriptedModel(tool_step("r1", "read_file", {"path": "x", "start_line": 0}), text_step("Oops."))
    app = make_app(model)
    async with ready_app(app, size=(120, 30)) as pilot:
        await submit(pilot, "read")
        await wait_for(pilot, lambda: idle(app))
        [row] = tools(app)
        assert row.state == "failed"
        assert row.plain_text() == (
            "Invalid arguments for read_file: start_line should be greater than or equal to 1 (got 0)."
        )


async def test_a_declined_call_still_says_declined_when_the_session_is_resumed(project_dir: Path) -> None:
    calls = [("a", "bash", {"command": "touch nope.txt"}), ("b", "bash", {"command": "exit 3"})]
    model = ScriptedModel(tools_step(calls), text_step("One declined, one failed."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "two commands")
        first = await open_dialog(pilot)
        await pilot.press("escape")
        await dialog_closed(pilot, first)
        await open_dialog(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        session = app.chat.host.session_id
    found = find_session_to_resume(project_dir, session[:12], continue_last=False)
    again = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(again) as pilot:
        await wait_for(pilot, lambda: len(tools(again)) == 2)
        assert [row.state for row in tools(again)] == ["declined", "failed"]


async def test_why_a_call_failed_or_was_refused_stays_in_sight_under_its_row(project_dir: Path) -> None:
    """A failing command's last lines stay under its collapsed row (they used to vanish the moment
    it failed), and a refusal's reason shows without expanding the row."""
    failing = "echo step one; echo step two; echo 'error: the widget is broken' >&2; exit 1"
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": failing}),
        text_step("It failed."),
        tool_step("w1", "write_file", {"path": "src.py", "content": "x = 1\n"}),
        text_step("Plan Mode stopped it."),
    )
    app = make_app(model)
    async with ready_app(app, size=(120, 30)) as pilot:
        await submit(pilot, "run it")
        await dialog_armed(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app))
        [row] = tools(app)
        assert row.state == "failed" and not row.expanded
        assert shows(app, r"✗ bash .*failed.*│ .*error: the widget is broken")
        await submit(pilot, "/plan on")
        await submit(pilot, "write it")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 4)
        refused = tools(app)[-1]
        assert refused.state == "refused" and not refused.expanded
        reason = next(line for line in refused.plain_text().splitlines() if line.strip())
        assert reason and reason[:40] in screen_text(app)
