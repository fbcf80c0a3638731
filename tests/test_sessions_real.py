"""The session layer on files written by a real zett-agent Agent (scripted model, real extensions)."""

from __future__ import annotations

import asyncio
import io
import json
import stat
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.extensions.jsonl import JSONLExtension
from zett_agent.extensions.sqlite import SQLiteSessionExtension
from zett_agent.messages import AssistantMessage
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse
from zett_agent.tools import tool

from tests.fakes.scripted_model import ScriptedModel, failing_step, tools_step, usage
from zett_tui.core.paths import history_db, sessions_dir
from zett_tui.sessions.cli import export_session, list_sessions, remove_session, show_session
from zett_tui.sessions.export import write_json, write_markdown
from zett_tui.sessions.index import SessionIndex, SessionSummary
from zett_tui.sessions.lock import SessionLock
from zett_tui.sessions.naming import meta_path
from zett_tui.sessions.reader import ReadNotice
from zett_tui.sessions.recorded_turns import load_last_turns, load_transcript
from zett_tui.sessions.search import search_sessions
from zett_tui.sessions.turn_views import ReasoningBlock, TextBlock, ToolView

SESSION = "0190aaaa-real-session"
ZETT: dict[str, Any] = {
    "zett": {"cwd": "/work/project", "branch": "main", "model": "anthropic:claude-x", "version": "0.1.0"}
}


@tool(guidelines="Read a file before editing it.")
def read_file(path: str) -> str:
    """Read a file.

    Args:
        path: The file.
    """
    return "".join(f"line {number} of {path}\n" for number in range(1, 61))


@tool(guidelines="Run tests with it.")
def bash(command: str) -> str:
    """Run a command.

    Args:
        command: The command.
    """
    raise RuntimeError("exit status 1: 2 tests FAILED")


def answer_step(text: str, reasoning: str) -> Callable[[ModelRequest], AsyncIterator[ModelEvent]]:
    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        yield ModelEvent.reasoning(reasoning)
        yield ModelEvent.text(text)
        message = AssistantMessage(content=text, reasoning=reasoning, provider="anthropic", model="claude-x")
        yield ModelEvent.completed(ModelResponse(message, finish_reason="stop", usage=usage()))

    return step


async def record_session(directory: Path, database: Path) -> None:
    started = asyncio.Event()
    never = asyncio.Event()

    async def slow(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        yield ModelEvent.text("partial")
        started.set()
        await never.wait()
        yield ModelEvent.completed(ModelResponse(AssistantMessage(content="unreachable")))

    model = ScriptedModel(
        tools_step(
            [("c1", "read_file", {"path": "src/app.py"}), ("c2", "bash", {"command": "pytest -q"})],
            text="Let me look.",
        ),
        answer_step("The flaky **Widget** test is fixed.", "app.py shows a race in the Widget timer"),
        failing_step(RuntimeError("provider overloaded")),
        slow,
    )
    history = SQLiteSessionExtension(database)
    try:
        agent = await Agent.create(
            model,
            config=AgentRunConfig(session_id=SESSION),
            tools=[read_file, bash],
            extensions=[history, JSONLExtension(directory)],
        )
        await agent.run("Fix the flaky widget test", metadata=ZETT)
        with pytest.raises(RuntimeError, match="overloaded"):
            await agent.run("And the docs?", metadata=ZETT)
        task = asyncio.create_task(agent.run("One more thing", metadata=ZETT))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        await history.close()


async def history_rows(database: Path) -> int:
    history = SQLiteSessionExtension(database)
    try:
        return len(await history.list_raw_messages(SESSION))
    finally:
        await history.close()


@pytest.fixture
def recorded() -> SessionSummary:
    asyncio.run(record_session(sessions_dir(), history_db()))
    (summary,) = SessionIndex().list_sessions()
    return summary


def test_index_reads_the_real_format(recorded: SessionSummary) -> None:
    assert recorded.session_id == SESSION
    assert recorded.title == "Fix the flaky widget test"
    assert (recorded.cwd, recorded.branch, recorded.model) == ("/work/project", "main", "anthropic:claude-x")
    assert (
        recorded.turns == 3
        and recorded.last_status == "cancelled"
        and recorded.last_prompt == "One more thing"
    )


def test_transcript_shows_tools_reasoning_and_outcomes(recorded: SessionSummary) -> None:
    notices: list[ReadNotice] = []
    first, failed, cancelled = load_transcript(recorded.path, notices)
    assert notices == []
    assert first.prompt == "Fix the flaky widget test" and first.status == "completed"
    assert [(t.name, t.key_arg, t.ok) for t in first.tools] == [
        ("read_file", "src/app.py", True),
        ("bash", "pytest -q", False),
    ]
    assert first.tools[0].output.count("\n") == 60 and "2 tests FAILED" in first.tools[1].output
    assert first.reasoning_text == "app.py shows a race in the Widget timer"
    assert first.answer_text == "Let me look.\n\nThe flaky **Widget** test is fixed."
    kinds = [type(block).__name__ for block in first.blocks]
    assert kinds == ["TextBlock", "ToolView", "ToolView", "ReasoningBlock", "TextBlock"]
    assert isinstance(first.blocks[0], TextBlock) and isinstance(first.blocks[1], ToolView)
    assert isinstance(first.blocks[3], ReasoningBlock)
    assert first.model == "anthropic:claude-x"
    assert failed.failed and failed.error == "RuntimeError: provider overloaded"
    assert cancelled.cancelled and cancelled.prompt == "One more thing" and cancelled.answer_text == ""
    page = load_last_turns(recorded.path, 2, [])
    assert [t.index for t in page.turns] == [1, 2] and page.has_earlier
    assert [
        t.index for t in load_last_turns(recorded.path, 5, [], before_offset=page.start_offset).turns
    ] == [0]


def test_search_finds_prompts_answers_and_tool_output(recorded: SessionSummary) -> None:
    hits = list(search_sessions("widget", [recorded]))
    assert [(h.turn_index, h.where) for h in hits] == [(0, "prompt")]
    assert hits[0].matches == 3
    (output_hit,) = search_sessions("LINE 42 OF", [recorded])
    assert output_hit.where == "output read_file"
    start, end = output_hit.match_spans[0]
    assert output_hit.snippet[start:end] == "line 42 of"
    assert [h.turn_index for h in search_sessions("overloaded", [recorded])] == [1]


def test_markdown_export_is_readable(recorded: SessionSummary) -> None:
    out = io.StringIO()
    assert write_markdown(recorded, out, []) == 3
    text = out.getvalue()
    assert text.startswith("# Fix the flaky widget test\n")
    assert text.count("## You") == 3 and "## zett (anthropic:claude-x)" in text
    assert "**Tool** `read_file` `src/app.py` — ok" in text
    assert "**Tool** `bash` `pytest -q` — failed" in text
    assert "line 40 of src/app.py" in text and "<details><summary>… 20 more lines</summary>" in text
    assert "<details><summary>Reasoning</summary>" in text
    assert "**Turn failed:** RuntimeError: provider overloaded" in text
    assert "**Turn cancelled**" in text


def test_json_export_keeps_the_turns_as_stored(recorded: SessionSummary) -> None:
    out = io.StringIO()
    assert write_json(recorded, out, []) == 3
    exported = json.loads(out.getvalue())
    on_disk = [json.loads(line) for line in recorded.path.read_text().splitlines()]
    assert exported["turns"] == on_disk
    assert exported["summary"]["session_id"] == SESSION and exported["notices"] == []


def test_cli_list_show_and_export(recorded: SessionSummary, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert list_sessions(False, False, "/work/project", out, err=err, width=120) == 0
    assert "0190aaaa" in out.getvalue() and "Fix the flaky widget test" in out.getvalue()
    out = io.StringIO()
    assert list_sessions(False, False, "/somewhere/else", out, err=err) == 0
    assert "No sessions started in /somewhere/else" in out.getvalue()
    out = io.StringIO()
    assert list_sessions(True, True, None, out, err=err) == 0
    (row,) = json.loads(out.getvalue())
    assert row["session_id"] == SESSION and row["turns"] == 3 and row["short_id"] == "0190aaaa"
    out = io.StringIO()
    assert show_session("0190", out, err=err) == 0
    shown = out.getvalue()
    assert "completed  Fix the flaky widget test  (2 tools)" in shown and "cancelled  One more thing" in shown
    target = tmp_path / "export.md"
    out = io.StringIO()
    assert export_session("0190aaaa", "md", target, out, err=err) == 0
    assert "Exported 3 turns" in out.getvalue() and target.read_text().startswith("# Fix the flaky")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    out = io.StringIO()
    assert export_session("0190aaaa", "json", None, out, err=err) == 0
    assert len(json.loads(out.getvalue())["turns"]) == 3
    assert err.getvalue() == ""


def test_cli_errors_have_messages_and_exit_codes(recorded: SessionSummary, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert export_session("0190aaaa", "pdf", None, out, err=err) == 2
    assert "unknown export format" in err.getvalue()
    err = io.StringIO()
    assert show_session("nope", out, err=err) == 1
    assert "no session matches 'nope'" in err.getvalue()
    err = io.StringIO()
    assert export_session("0190aaaa", "md", tmp_path, out, err=err) == 1
    assert "is a folder" in err.getvalue()


def test_rm_deletes_transcript_title_and_history_rows(recorded: SessionSummary) -> None:
    database = history_db()
    assert asyncio.run(history_rows(database)) > 0
    meta_path(recorded.path).write_text('{"title": "Renamed"}')
    out, err = io.StringIO(), io.StringIO()
    assert remove_session("0190", out, err, yes=False) == 1
    assert "Pass --yes" in err.getvalue() and recorded.path.exists()
    assert remove_session("0190", out, err, yes=False, confirm=lambda question: False) == 1
    assert recorded.path.exists()
    questions: list[str] = []

    def agree(question: str) -> bool:
        questions.append(question)
        return True

    assert remove_session("0190", out, err, yes=False, confirm=agree) == 0
    assert "'Renamed', 3 turns" in questions[0]
    assert "and its model history" in out.getvalue()
    assert not recorded.path.exists() and not meta_path(recorded.path).exists()
    assert asyncio.run(history_rows(database)) == 0
    assert SessionIndex().list_sessions() == []
    assert remove_session("0190", out, err, yes=True) == 1


def test_rm_refuses_a_session_open_in_a_running_zett(recorded: SessionSummary) -> None:
    out, err = io.StringIO(), io.StringIO()
    with SessionLock.for_session(sessions_dir(), SESSION):
        assert remove_session(SESSION, out, err, yes=True) == 1
    assert "open in a running zett" in err.getvalue()
    assert recorded.path.exists()
