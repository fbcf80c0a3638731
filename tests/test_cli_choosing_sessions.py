"""``zett sessions`` with no subcommand lists the sessions, and ``zett --resume`` with no id opens
the session browser (as Claude Code's and Codex's pickers do), instead of two usage errors."""

from __future__ import annotations

import pytest

from tests.fakes.scripted_model import ScriptedModel
from tests.ui_helpers import make_app, wait_for
from zett_tui import cli
from zett_tui.ui.app import ZettApp
from zett_tui.ui.browser.screen import SessionBrowser


def test_sessions_without_a_subcommand_is_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["sessions", "list"]) == 0
    listed = capsys.readouterr()
    assert cli.main(["sessions"]) == 0
    assert capsys.readouterr() == listed


def test_resume_without_an_id_where_no_browser_can_open_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--resume", "-p", "hello"]) == cli.EXIT_USAGE
    assert "--resume needs a session id here" in capsys.readouterr().err


def test_the_parser_takes_resume_with_or_without_an_id() -> None:
    parser = cli.build_parser()
    assert parser.parse_args(["--resume"]).resume == ""
    assert parser.parse_args(["--resume", "01ab"]).resume == "01ab"
    assert parser.parse_args(["-r", "01ab", "--fork"]).open_as == "fork"


async def test_the_app_opens_on_the_session_browser_when_asked() -> None:
    launch = make_app(ScriptedModel()).launch
    app = ZettApp(launch, open_sessions=True)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))
