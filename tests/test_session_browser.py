"""The session browser through the real app: listing, search, preview, resume, delete, export, rename."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.fakes.host import Collector, make_host
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from tests.ui_helpers import (
    dialog_armed,
    idle,
    make_app,
    prompts,
    ready_app,
    screen_text,
    submit,
    wait_for,
    wait_ready,
)
from zett_tui.core import paths
from zett_tui.sessions.naming import meta_path
from zett_tui.ui.app import ZettApp
from zett_tui.ui.browser.screen import SessionBrowser
from zett_tui.ui.widgets.session_list import SessionList
from zett_tui.ui.widgets.transcript import AnswerBlock, ToolBlock, UserBlock

SECRET_OUTPUT = "the llama named zebracorn lives here\n"


async def record(cwd: Path, *steps: Any, prompts_to_send: list[str]) -> str:
    """Run real turns through the agent host (as zett does) in ``cwd``; returns the session id."""
    host = await make_host(ScriptedModel(*steps), cwd=cwd)
    for prompt in prompts_to_send:
        await host.run_turn(prompt, Collector())
    await host.aclose()
    return host.session_id


async def three_sessions(project: Path, elsewhere: Path) -> dict[str, str]:
    """Two sessions in ``project`` (one with a tool whose output holds a rare word) and one elsewhere."""
    notes = project / "notes.txt"
    notes.write_text(SECRET_OUTPUT)
    (elsewhere / ".git").mkdir(parents=True)
    (elsewhere / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    return {
        "tool": await record(
            project,
            tool_step("c1", "read_file", {"path": str(notes)}),
            text_step("The file talks about an animal."),
            prompts_to_send=["what is in notes.txt?"],
        ),
        "plain": await record(
            project,
            text_step("Use a quaternion for rotations."),
            text_step("Yes, normalise it first."),
            prompts_to_send=["how do I rotate a vector", "and keep it stable?"],
        ),
        "other": await record(elsewhere, text_step("Paris."), prompts_to_send=["capital of France?"]),
    }


async def open_browser(pilot: Pilot[Any]) -> SessionBrowser:
    app = pilot.app
    assert isinstance(app, ZettApp)
    await wait_ready(pilot)
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser) and app.screen.summaries is not None)
    browser = app.screen
    assert isinstance(browser, SessionBrowser)
    return browser


async def browser_showing_a_session(pilot: Pilot[Any]) -> SessionBrowser:
    """The browser open on ``three_sessions``, the selected one's preview drawn, its search field's
    cursor not blinking (a blink's frame still on its way would count as a stale row)."""
    browser = await open_browser(pilot)
    browser.search_input.cursor_blink = False
    await wait_for(pilot, lambda: "Use a quaternion for rotations." in preview_text(browser))
    return browser


def titles(browser: SessionBrowser) -> list[str]:
    return [row.summary.title for row in browser.query_one(SessionList).rows]


def preview_text(browser: SessionBrowser) -> list[str]:
    return [block.plain_text() for block in browser.preview.blocks]


async def test_lists_this_folders_sessions_and_all_with_ctrl_a(project_dir: Path, tmp_path: Path) -> None:
    ids = await three_sessions(project_dir, tmp_path / "elsewhere")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(140, 40)) as pilot:
        browser = await open_browser(pilot)
        await pilot.pause()
        assert titles(browser) == ["how do I rotate a vector", "what is in notes.txt?"]
        shown = screen_text(app)
        assert "how do I rotate a vector" in shown and "✓" in shown and "2 sessions in" in shown
        await pilot.press("ctrl+a")
        await pilot.pause()
        assert titles(browser) == ["capital of France?", "how do I rotate a vector", "what is in notes.txt?"]
        [other] = [row.summary for row in browser.session_list.rows if row.summary.session_id == ids["other"]]
        assert other.branch == "feature-x"
        shown = screen_text(app)
        assert "feature-x" in shown and "all folders" in shown and "just now" in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.chat)


async def test_typing_finds_a_word_that_is_only_in_a_tool_output(project_dir: Path, tmp_path: Path) -> None:
    ids = await three_sessions(project_dir, tmp_path / "elsewhere")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(140, 40)) as pilot:
        browser = await open_browser(pilot)
        await pilot.press(*"zebracorn")
        await wait_for(pilot, lambda: browser.finished_query == "zebracorn")
        [row] = browser.session_list.rows
        assert row.summary.session_id == ids["tool"]
        assert row.hit is not None and row.hit.where.startswith("output")
        start, end = row.hit.match_spans[0]
        assert row.hit.snippet[start:end] == "zebracorn"
        shown = screen_text(app)
        assert "zebracorn lives here" in shown and "1 session matches" in shown
        # The preview ends at the matching turn, which is marked.
        await wait_for(pilot, lambda: any("Match in turn 1" in text for text in preview_text(browser)))
        assert any(isinstance(block, ToolBlock) for block in browser.preview.blocks)

        for _ in "zebracorn":
            await pilot.press("backspace")
        await pilot.press(*"QUATERNION")
        await wait_for(pilot, lambda: browser.finished_query == "QUATERNION")
        assert [row.summary.session_id for row in browser.session_list.rows] == [ids["plain"]]
        assert browser.session_list.rows[0].hit.where == "answer"  # type: ignore[union-attr]

        await pilot.press("ctrl+u")  # clears the search box: the full listing is back
        await wait_for(pilot, lambda: len(browser.session_list.rows) == 2)


async def test_the_preview_shows_the_selected_session_as_the_chat_showed_it(
    project_dir: Path, tmp_path: Path
) -> None:
    await three_sessions(project_dir, tmp_path / "elsewhere")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(140, 40)) as pilot:
        browser = await open_browser(pilot)
        await wait_for(pilot, lambda: "Use a quaternion for rotations." in preview_text(browser))
        blocks = browser.preview.blocks
        assert [block.plain_text() for block in blocks if isinstance(block, UserBlock)] == [
            "how do I rotate a vector",
            "and keep it stable?",
        ]
        assert [block.text for block in blocks if isinstance(block, AnswerBlock)] == [
            "Use a quaternion for rotations.",
            "Yes, normalise it first.",
        ]
        await pilot.press("down")
        await wait_for(pilot, lambda: "what is in notes.txt?" in preview_text(browser))
        [tool] = [block for block in browser.preview.blocks if isinstance(block, ToolBlock)]
        assert "zebracorn" in tool.plain_text() or tool.state == "done"


async def test_enter_resumes_the_selected_session(project_dir: Path, tmp_path: Path) -> None:
    ids = await three_sessions(project_dir, tmp_path / "elsewhere")
    model = ScriptedModel(text_step("Right."))
    app = make_app(model)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_browser(pilot)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.chat.host is not None and app.chat.host.session_id == ids["tool"])
        assert isinstance(app.screen, type(app.chat)) and app.screen is app.chat
        assert prompts(app) == ["what is in notes.txt?"]
        await submit(pilot, "thanks")
        await wait_for(pilot, lambda: idle(app) and prompts(app)[-1] == "thanks")


async def test_delete_asks_first_keeps_by_default_and_removes_transcript_title_and_history(
    project_dir: Path, tmp_path: Path
) -> None:
    from zett_agent.extensions.sqlite import SQLiteSessionExtension

    ids = await three_sessions(project_dir, tmp_path / "elsewhere")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(140, 40)) as pilot:
        browser = await open_browser(pilot)
        [target] = [
            row.summary for row in browser.session_list.rows if row.summary.session_id == ids["plain"]
        ]
        meta_path(target.path).write_text('{"title": "rotations"}')
        await pilot.press("tab")  # from the search box to the list: letters are commands there
        assert browser.focused is browser.session_list
        await pilot.press("d")
        await dialog_armed(pilot)
        assert "This removes its transcript and history." in screen_text(app)
        await pilot.press("enter")  # the first, focused choice is Keep
        await wait_for(pilot, lambda: app.screen is browser)
        assert target.path.exists()

        await pilot.press("d")
        await dialog_armed(pilot)
        await pilot.press("2")
        await wait_for(
            pilot, lambda: ids["plain"] not in [row.summary.session_id for row in browser.session_list.rows]
        )
        assert not target.path.exists() and not meta_path(target.path).exists()
        assert titles(browser) == ["what is in notes.txt?"]

    history = SQLiteSessionExtension(paths.history_db())
    try:
        remaining = {summary.session_id for summary in await history.list_sessions()}
    finally:
        await history.close()
    assert ids["plain"] not in remaining and ids["tool"] in remaining


async def test_the_open_session_cannot_be_deleted(project_dir: Path) -> None:
    app = make_app(ScriptedModel(text_step("hello")))
    async with ready_app(app, size=(140, 40)) as pilot:
        await submit(pilot, "first prompt here")
        await wait_for(pilot, lambda: idle(app) and bool(prompts(app)))
        browser = await open_browser(pilot)
        await wait_for(pilot, lambda: titles(browser) == ["first prompt here"])
        await pilot.press("tab", "d")
        await pilot.pause()
        assert app.screen is browser
        assert browser.session_list.rows[0].summary.path.exists()


async def test_export_writes_markdown_in_the_current_folder(project_dir: Path, tmp_path: Path) -> None:
    ids = await three_sessions(project_dir, tmp_path / "elsewhere")
    app = make_app(ScriptedModel())
    async with app.run_test(size=(140, 40)) as pilot:
        await open_browser(pilot)
        await pilot.press("tab", "e")
        await wait_for(pilot, lambda: any(project_dir.glob("zett-session-*.md")))
        [exported] = project_dir.glob("zett-session-*.md")
        await wait_for(pilot, lambda: any(str(exported) in note.message for note in app._notifications))
    assert ids["plain"].startswith(exported.stem.removeprefix("zett-session-"))
    text = exported.read_text()
    assert "# how do I rotate a vector" in text and "Use a quaternion for rotations." in text


async def test_rename_changes_the_title_in_the_list(project_dir: Path) -> None:
    app = make_app(ScriptedModel(text_step("done")))
    async with ready_app(app, size=(140, 40)) as pilot:
        await submit(pilot, "/rename too early")
        await pilot.pause()
        assert any("no recorded turn yet" in block.plain_text() for block in app.chat.transcript.blocks)
        await submit(pilot, "fix the flaky test")
        await wait_for(pilot, lambda: idle(app) and bool(prompts(app)))
        await submit(pilot, "/rename Flaky test hunt")
        await pilot.pause()
        browser = await open_browser(pilot)
        assert titles(browser) == ["Flaky test hunt"]
        assert "Flaky test hunt" in screen_text(app)


async def test_export_command_writes_the_current_session(project_dir: Path, command_host: Any) -> None:
    chat = await command_host(ScriptedModel(text_step("an answer")))
    [nothing_yet] = await chat.command("/export")
    await chat.turn("a question")
    [refused] = await chat.command("/export json out/session.json")
    (project_dir / "out").mkdir()
    [as_json] = await chat.command("/export json out/session.json")
    [as_markdown] = await chat.command("/export")
    assert nothing_yet == "This session has no recorded turn yet; there is nothing to export."
    assert refused.startswith("Could not export")
    assert as_json.startswith("Exported 1 turn to") and "session.json" in as_json
    assert '"a question"' in (project_dir / "out" / "session.json").read_text()
    [markdown] = project_dir.glob("zett-session-*.md")
    assert as_markdown == f"Exported 1 turn to {markdown}."
    assert "# a question" in markdown.read_text() and "an answer" in markdown.read_text()


async def test_a_damaged_file_is_reported_once_and_the_rest_still_works(
    project_dir: Path, tmp_path: Path
) -> None:
    ids = await three_sessions(project_dir, tmp_path / "elsewhere")
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(140, 40)) as pilot:
        from zett_tui.sessions.index import SessionIndex

        [damaged] = [s for s in SessionIndex().list_sessions() if s.session_id == ids["plain"]]
        with damaged.path.open("ab") as stream:
            stream.write(b"this is not json {{{\n")
        browser = await open_browser(pilot)
        assert len(browser.session_list.rows) == 2
        shown = screen_text(app)
        assert "cannot be read" in shown
        await wait_for(pilot, lambda: any("line 3" in text for text in preview_text(browser)))
        assert "Use a quaternion for rotations." in preview_text(browser)
        await pilot.press(*"quaternion")
        await wait_for(pilot, lambda: browser.finished_query == "quaternion")
        assert browser.session_list.rows[0].summary.session_id == ids["plain"]


async def test_the_sessions_command_opens_the_browser(project_dir: Path) -> None:
    app = make_app(ScriptedModel())
    async with ready_app(app, size=(140, 40)) as pilot:
        await submit(pilot, "/sessions")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser))
        browser = app.screen
        assert isinstance(browser, SessionBrowser)
        await wait_for(pilot, lambda: browser.summaries is not None)
        assert "No sessions yet" in screen_text(app)


# -- the row layout, without a screen ---------------------------------------------------------


def summary(title: str, cwd: str | None = "/home/ann/src/zett", branch: str | None = None) -> Any:
    from datetime import UTC, datetime

    from zett_tui.sessions.index import SessionSummary

    when = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    return SessionSummary(
        "id-" + title, title, cwd, branch, "anthropic:claude", when, when, 3, "failed", Path("/x"), 1
    )


def test_relative_times_and_home_folders() -> None:
    from datetime import UTC, datetime, timedelta

    from zett_tui.ui.widgets.session_rows import relative_time, short_folder

    now = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)
    assert relative_time(now - timedelta(seconds=20), now) == "just now"
    assert relative_time(now - timedelta(minutes=12), now) == "12 min ago"
    assert relative_time(now - timedelta(hours=3, minutes=5), now) == "3 h ago"
    assert relative_time(now - timedelta(days=2), now) == "2 d ago"
    assert relative_time(now - timedelta(days=90), now) == "2026-02-09"
    assert short_folder("/home/ann/src/zett", home="/home/ann") == "~/src/zett"
    assert short_folder("/home/annie/x", home="/home/ann") == "/home/annie/x"
    assert short_folder(None) == "?"


def test_columns_give_way_to_the_title_on_narrow_rows() -> None:
    from zett_tui.ui.widgets.session_rows import MIN_TITLE, SessionRow, plan_columns, row_pieces

    rows = [SessionRow(summary("fix the parser", branch="feature-x"))]
    wide = plan_columns(160, rows, home="/home/ann")
    assert wide.folder == len("~/src/zett") and wide.branch == len("feature-x") and wide.model
    narrow = plan_columns(50, rows, home="/home/ann")
    assert narrow.title >= MIN_TITLE and narrow.activity and not narrow.model and not narrow.branch
    pieces = row_pieces(rows[0], wide, rows[0].summary.last_activity, home="/home/ann")
    line = "".join(text for text, _ in pieces)
    assert line.startswith(" ✗ fix the parser") and "~/src/zett" in line and "feature-x" in line
    assert len(line) == 160


def test_a_snippet_is_cut_so_that_its_match_shows() -> None:
    from zett_tui.ui.widgets.session_rows import fit_snippet

    snippet = "x" * 100 + "needle" + "y" * 100
    pieces = fit_snippet(snippet, ((100, 106),), 40)
    assert ("needle", "match") in pieces
    assert sum(len(text) for text, _ in pieces) == 40
    assert pieces[0][0].startswith("…") and pieces[-1] == ("…", "snippet")
