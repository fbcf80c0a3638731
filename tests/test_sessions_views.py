"""Transcript views, search and Markdown export on hand-made lines (edge cases the agent rarely writes)."""

from __future__ import annotations

import io
import json
import random
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from zett_tui.sessions import search as search_module
from zett_tui.sessions.export import fence, turn_markdown, write_export, write_markdown
from zett_tui.sessions.index import SessionIndex, SessionSummary
from zett_tui.sessions.naming import session_path
from zett_tui.sessions.reader import ReadNotice
from zett_tui.sessions.recorded_turns import load_last_turns, load_transcript
from zett_tui.sessions.search import SearchHit, search_sessions
from zett_tui.sessions.turn_views import NoteBlock, ToolView


def user(content: Any) -> dict[str, Any]:
    return {"kind": 2, "data": {"attributes": {}, "content": content}}


def assistant(content: str = "", calls: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"kind": 3, "data": {"attributes": {}, "content": content, "tool_calls": calls or [], **extra}}


def tool_result(call_id: str, name: str, content: Any, success: bool = True) -> dict[str, Any]:
    data = {"attributes": {}, "tool_call_id": call_id, "name": name, "content": content, "success": success}
    return {"kind": 4, "data": data}


def line(messages: list[dict[str, Any]], *, status: str = "completed", **extra: Any) -> str:
    data = {
        "version": 1,
        "session_id": "s",
        "started_at": "2026-01-01T00:00:00+00:00",
        "completed_at": "2026-01-01T00:01:00+00:00",
        "status": status,
        "metadata": {},
        "tags": {},
        "messages": messages,
        **extra,
    }
    return json.dumps(data, ensure_ascii=False) + "\n"


def session(path: Path, *lines: str, session_id: str = "s") -> SessionSummary:
    path.write_text("".join(lines), encoding="utf-8")
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    return SessionSummary(session_id, "t", None, None, None, moment, moment, len(lines), "completed", path, 0)


# --- transcript ---------------------------------------------------------------------------------


def test_notes_images_interrupted_tools_and_stops(tmp_path: Path) -> None:
    image = {"source": {"url": "https://example.com/a.png"}, "detail": "auto", "alt_text": None}
    messages = [
        user([{"text": "look at this"}, image]),
        assistant("", [{"id": "c1", "name": "edit", "arguments": {"path": "a.py", "edits": []}}]),
        user("actually, stop"),
        {"kind": 6, "data": {"attributes": {}, "content": "plan mode is on"}},
        {"kind": 5, "data": {"attributes": {}, "content": "summary of earlier work"}},
        assistant(
            "cut off",
            stop={"reason": "max_output", "message": "limit reached"},
            provider="openai",
            model="gpt",
        ),
    ]
    (turn,) = load_transcript(session(tmp_path / "s.jsonl", line(messages, status="interrupted")).path, [])
    assert (turn.prompt, turn.prompt_images) == ("look at this", 1)
    assert turn.tools == (ToolView("edit", "a.py", None, "", "c1", '{"path": "a.py", "edits": []}', None),)
    notes = [(block.kind, block.text) for block in turn.blocks if isinstance(block, NoteBlock)]
    assert notes == [
        ("steer", "actually, stop"),
        ("agent", "plan mode is on"),
        ("checkpoint", "summary of earlier work"),
        ("stop", "The model hit the output token limit, so the answer is cut off: limit reached."),
    ]
    assert turn.model == "openai:gpt" and turn.status == "interrupted"
    markdown = turn_markdown(turn)
    assert "*(1 image attached)*" in markdown and "no result (interrupted)" in markdown
    assert (
        "> **You, during the turn:** actually, stop" in markdown
        and "**Turn cut off:** zett was stopped before this turn ended." in markdown
    )


def test_odd_fields_do_not_break_the_view(tmp_path: Path) -> None:
    messages = [
        user(None),
        assistant(calls=["not a call", {"id": 5, "arguments": "nope"}]),
        {"kind": 3, "data": {"content": ["x"], "reasoning": 7, "tool_calls": "many"}},
        tool_result("missing", "x", {"weird": True}),
    ]
    (turn,) = load_transcript(session(tmp_path / "s.jsonl", line(messages, error="boom")).path, [])
    assert turn.prompt == "" and turn.answer_text == "" and turn.error is None
    assert [(tool.name, tool.key_arg, tool.ok) for tool in turn.tools] == [("?", "", None)]
    assert "(no text)" in turn_markdown(turn)


def test_tool_output_with_backticks_gets_a_longer_fence() -> None:
    assert fence("a ```` b") == "`````\na ```` b\n`````\n"
    assert fence("plain\n", "text") == "```text\nplain\n```\n"


def test_markdown_export_lists_unreadable_lines(tmp_path: Path) -> None:
    summary = session(tmp_path / "s.jsonl", line([user("hello")]), "garbage\n")
    out = io.StringIO()
    notices: list[ReadNotice] = []
    assert write_markdown(summary, out, notices) == 1
    assert "- line 2: not valid JSON" in out.getvalue()


# --- search -------------------------------------------------------------------------------------


def test_search_is_case_insensitive_with_spans_in_the_snippet(tmp_path: Path) -> None:
    long_text = "x" * 300 + " The NEEDLE and a needle " + "y" * 300
    summary = session(tmp_path / "s.jsonl", line([user("q"), assistant(long_text)]))
    (hit,) = search_sessions("needle", [summary])
    assert hit.where == "answer" and hit.matches == 2
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert [hit.snippet[a:b] for a, b in hit.match_spans] == ["NEEDLE", "needle"]


def test_search_matches_text_json_escapes(tmp_path: Path) -> None:
    text = 'she said "hi"\nthen two\nlines \\ back'
    summary = session(tmp_path / "s.jsonl", line([user(text)]))
    for query in ['SAID "HI"', "two\nlines", "\\ back"]:
        (hit,) = search_sessions(query, [summary])
        assert hit.where == "prompt"
        assert "\n" not in hit.snippet


def test_search_non_ascii_queries(tmp_path: Path) -> None:
    summary = session(tmp_path / "s.jsonl", line([user("Grüße aus KÖLN")]), line([user("nothing")]))
    assert [h.turn_index for h in search_sessions("köln", [summary])] == [0]
    assert list(search_sessions("ÜSSE", [summary])) == []
    assert [h.snippet for h in search_sessions("GRÜ", [summary])] == ["Grüße aus KÖLN"]


def test_keys_and_metadata_are_not_hits(tmp_path: Path) -> None:
    summary = session(tmp_path / "s.jsonl", line([user("hi")]))
    assert list(search_sessions("content", [summary])) == []
    assert list(search_sessions("include_in", [summary])) == []
    assert list(search_sessions("   ", [summary])) == []


def test_hits_follow_session_order_and_turn_indexes_skip_nothing(tmp_path: Path) -> None:
    newer = session(tmp_path / "a.jsonl", line([user("alpha word")]), session_id="newer")
    older = session(
        tmp_path / "b.jsonl",
        line([user("word one")]),
        "word in garbage\n",
        line([user("x")], version=7),
        line([user("two"), tool_result("c", "bash", "WORD out")]),
        session_id="older",
    )
    progress: list[tuple[int, int]] = []
    hits = list(search_sessions("word", [newer, older], on_progress=lambda *p: progress.append(p)))
    assert [(h.session_id, h.turn_index, h.where) for h in hits] == [
        ("newer", 0, "prompt"),
        ("older", 0, "prompt"),
        ("older", 3, "output bash"),
    ]
    assert [t.index for t in load_transcript(older.path, [])] == [0, 3]
    assert progress == [(1, 2), (2, 2)]


def test_lines_split_across_read_blocks_are_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "BLOCK_BYTES", 50)
    lines = [
        line([user(f"turn {number} " + "pad " * 40 + ("target" if number % 3 == 0 else ""))])
        for number in range(10)
    ]
    summary = session(tmp_path / "s.jsonl", *lines)
    assert [h.turn_index for h in search_sessions("TARGET", [summary])] == [0, 3, 6, 9]


def test_search_can_be_cancelled_and_limited(tmp_path: Path) -> None:
    summaries = [
        session(tmp_path / f"{n}.jsonl", *(line([user(f"common {i}")]) for i in range(5)), session_id=str(n))
        for n in range(3)
    ]
    assert len(list(search_sessions("common", summaries, per_session_limit=2))) == 6
    cancel = threading.Event()
    seen: list[SearchHit] = []
    for hit in search_sessions("common", summaries, cancel=cancel):
        seen.append(hit)
        cancel.set()
    assert len(seen) == 1
    assert list(search_sessions("common", summaries, cancel=cancel)) == []


def test_a_missing_file_is_a_notice_not_an_error(tmp_path: Path) -> None:
    summary = session(tmp_path / "gone.jsonl", line([user("x")]))
    summary.path.unlink()
    notices: list[ReadNotice] = []
    assert list(search_sessions("x", [summary], notices=notices)) == []
    assert "cannot open" in notices[0].reason


def test_mangled_files_never_raise(tmp_path: Path) -> None:
    """Truncated, bit-flipped and spliced copies of a real-looking file: notices, never exceptions."""
    good = "".join(
        line(
            [
                user(f"prompt {n} é"),
                assistant("answer", [{"id": "c", "name": "bash", "arguments": {"command": "ls"}}]),
            ]
        )
        + line(
            [user("x"), tool_result("c", "bash", "out")], status="failed", error={"type": "E", "message": "m"}
        )
        for n in range(4)
    ).encode()
    rng = random.Random(1234)
    directory = tmp_path / "sessions"
    directory.mkdir()
    for case in range(60):
        data = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            position = rng.randrange(len(data))
            action = rng.choice(["flip", "cut", "insert", "newline"])
            if action == "flip":
                data[position] = rng.randrange(256)
            elif action == "cut":
                del data[position : position + rng.randint(1, 200)]
            elif action == "insert":
                data[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
            else:
                data[position:position] = b"\n"
        path = session_path(directory, f"case-{case}")
        path.write_bytes(bytes(data[: rng.randint(0, len(data))] if case % 3 == 0 else data))
    summaries = SessionIndex(directory).list_sessions()
    assert len(summaries) == 60
    for summary in summaries:
        notices: list[ReadNotice] = []
        load_transcript(summary.path, notices)
        load_last_turns(summary.path, 3, notices)
        write_markdown(summary, io.StringIO(), notices)
        list(search_sessions("prompt", [summary]))
        list(search_sessions("é", [summary]))


def test_lone_surrogate_escapes_are_replaced_so_output_can_be_written(tmp_path: Path) -> None:
    directory = tmp_path / "sessions"
    directory.mkdir()
    path = session_path(directory, "s")
    # A lone surrogate can only come from a \uXXXX escape in the file (a hand edit, another writer).
    raw = line([user("bad LONE prompt"), tool_result("c", "bash", "out LONE")]).replace("LONE", "\\ud800")
    path.write_text(raw)
    (summary,) = SessionIndex(directory).list_sessions()
    assert summary.title == "bad \ufffd prompt"
    notices: list[ReadNotice] = []
    (turn,) = load_transcript(path, notices)
    assert turn.prompt == "bad \ufffd prompt" and "invalid UTF-16" in notices[0].reason
    target = tmp_path / "out.md"
    write_export(target, lambda stream: write_markdown(summary, stream, []))
    assert "bad \ufffd prompt" in target.read_text(encoding="utf-8")
