"""What a turn changed, and what a rewind took back, as the session file keeps it: the session
browser's preview and the Markdown export list each turn's files with their +/- counts."""

from __future__ import annotations

import io
from pathlib import Path

from tests.fakes.host import Collector, HostFactory
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.test_session_browser import open_browser
from tests.ui_helpers import make_app, screen_text, wait_for
from zett_tui.runtime.host import AgentHost
from zett_tui.runtime.modes import PermissionMode
from zett_tui.sessions.cli import export_session

CHANGE = "sed -i s/beta/gamma/ notes.txt && echo fresh > made.txt && rm gone.txt"


def change_steps() -> list:
    return [tool_step("b1", "bash", {"command": CHANGE}), text_step("Changed.")]


async def changed_session(project: Path, hosts: HostFactory, *more_steps) -> AgentHost:
    (project / "notes.txt").write_text("alpha\nbeta\n")
    (project / "gone.txt").write_text("bye\n")
    host = await hosts(ScriptedModel(*change_steps(), *more_steps), permission_mode=PermissionMode.AUTO)
    await host.run_turn("change the notes", Collector())
    return host


def exported(session_id: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert export_session(session_id, "md", None, out, err=err) == 0, err.getvalue()
    return out.getvalue()


async def test_the_markdown_export_lists_each_turns_files_with_their_counts(
    project_dir: Path, hosts: HostFactory
) -> None:
    host = await changed_session(project_dir, hosts)
    await host.aclose()
    text = exported(host.session_id)
    assert "**3 files changed, +2 -2**" in text
    assert "- `gone.txt` +0 -1 (deleted)" in text
    assert "- `made.txt` +1 -0 (new)" in text
    assert "- `notes.txt` +1 -1\n" in text
    assert "/rewind" not in text  # the chat's hint is not for a reader of the export


async def test_the_browser_preview_lists_each_turns_files(project_dir: Path, hosts: HostFactory) -> None:
    host = await changed_session(project_dir, hosts)
    await host.aclose()
    app = make_app(ScriptedModel())
    async with app.run_test(size=(140, 40)) as pilot:
        await open_browser(pilot)
        # the preview is drawn in parts, in no fixed order: wait until every expected line is there
        expected = (
            "3 files changed, +2 -2",
            "notes.txt  +1 -1",
            "made.txt  +1 -0  (new)",
            "gone.txt  +0 -1  (deleted)",
        )
        await wait_for(pilot, lambda: all(line in screen_text(app) for line in expected))
