"""Session file names, damage-tolerant reading, titles and private modes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from zett_agent.extensions.jsonl import JSONLExtension
from zett_agent.messages import AssistantMessage, UserMessage

from zett_tui.sessions import line_blocks, reader
from zett_tui.sessions.file_modes import tighten_session_storage
from zett_tui.sessions.meta import one_line, read_title, set_title
from zett_tui.sessions.naming import (
    InvalidSessionId,
    lock_path,
    meta_path,
    session_id_from_file_name,
    session_path,
    validate_session_id,
)
from zett_tui.sessions.reader import (
    ReadNotice,
    iter_records,
    read_last_records,
    repair_torn_tail,
)


def record(prompt: str, *, status: str = "completed", answer: str = "ok", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "version": 1,
        "session_id": "s1",
        "request_id": f"r-{prompt}",
        "parent_session_id": None,
        "started_at": "2026-01-02T10:00:00+00:00",
        "completed_at": "2026-01-02T10:01:00+00:00",
        "status": status,
        "metadata": {
            "zett": {"cwd": "/work/p", "branch": "main", "model": "anthropic:m", "version": "0.1.0"}
        },
        "tags": {},
        "messages": [
            {
                "kind": 2,
                "data": {"attributes": {}, "persist": True, "include_in_messages": True, "content": prompt},
            },
            {"kind": 3, "data": {"attributes": {}, "content": answer, "tool_calls": []}},
        ],
    }
    data.update(extra)
    return data


def line(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, separators=(",", ":")) + "\n").encode()


def read_all(path: Path) -> tuple[list[reader.TurnRecord], list[ReadNotice]]:
    notices: list[ReadNotice] = []
    return list(iter_records(path, notices)), notices


# --- naming -----------------------------------------------------------------------------------


@pytest.mark.parametrize("session_id", ["sess-A", "0190a1b2-7e1c-7000-8000-000000000001", "é ünï", "a..b"])
def test_file_names_match_zett_agent(tmp_path: Path, session_id: str) -> None:
    expected = JSONLExtension(tmp_path).session_path(session_id)
    assert session_path(tmp_path, session_id) == expected
    assert session_id_from_file_name(expected.name) == session_id
    assert meta_path(expected).name == expected.name.removesuffix(".jsonl") + ".meta.json"
    assert lock_path(expected).name == expected.name.removesuffix(".jsonl") + ".lock"


@pytest.mark.parametrize(
    "bad", ["", " x", "../etc/passwd", "a/b", "a\\b", "/abs", "..", ".", "nul\x00", "tab\tid"]
)
def test_unsafe_session_ids_are_refused(bad: str) -> None:
    with pytest.raises(InvalidSessionId):
        validate_session_id(bad)
    with pytest.raises(InvalidSessionId):
        session_path(Path("/tmp"), bad)


def test_overlong_session_id_is_refused() -> None:
    with pytest.raises(InvalidSessionId, match="bytes long"):
        validate_session_id("x" * 181)


@pytest.mark.parametrize(
    "name",
    [
        "../c2Vzcy1B.jsonl",
        "a/c2Vzcy1B.jsonl",
        "/c2Vzcy1B.jsonl",
        "c2Vzcy1B.txt",
        "c2Vz=.jsonl",
        "cx.jsonl",
        "\x00.jsonl",
    ],
)
def test_unsafe_or_foreign_file_names_are_refused(name: str) -> None:
    # "cx" decodes to "s" but is not how "s" is encoded ("cw"): not a name zett-agent writes.
    with pytest.raises(InvalidSessionId):
        session_id_from_file_name(name)


# --- reader: every kind of damage --------------------------------------------------------------


def test_torn_last_line_is_reported_and_the_rest_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(record("one")) + line(record("two")) + line(record("three"))[:40])
    records, notices = read_all(path)
    assert [r.messages[0]["data"]["content"] for r in records] == ["one", "two"]
    assert [(n.line_no, "incomplete last line" in n.reason) for n in notices] == [(3, True)]


def test_garbage_lines_are_skipped_with_their_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(record("one")) + b"this is not json\n" + b"\n" + line(record("two")) + b"{]\n")
    records, notices = read_all(path)
    assert [r.line_no for r in records] == [1, 4]
    assert [n.line_no for n in notices] == [2, 5]
    assert all("not valid JSON" in n.reason for n in notices)


def test_a_torn_line_merged_with_the_next_append_keeps_the_second_record(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(record("one")) + line(record("torn"))[:60] + line(record("after")))
    records, notices = read_all(path)
    assert [r.messages[0]["data"]["content"] for r in records] == ["one", "after"]
    assert len(notices) == 1 and "merged" in notices[0].reason


def test_future_version_lines_are_skipped_not_misread(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(record("one")) + line(record("future", version=2)) + line(record("three")))
    records, notices = read_all(path)
    assert [r.line_no for r in records] == [1, 3]
    assert notices[0].line_no == 2 and "newer zett" in notices[0].reason and "version 2" in notices[0].reason


def test_empty_file_reads_as_no_turns(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    records, notices = read_all(path)
    assert records == [] and [(n.line_no, n.reason) for n in notices] == [(0, "the file is empty (no turns)")]
    assert read_last_records(path, 5, []).records == []


def test_non_utf8_line_is_decoded_with_replacement_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    raw = line(record("caf\u00e9 PLACEHOLDER")).replace(b"PLACEHOLDER", b"\xff\xfe bytes")
    path.write_bytes(raw + line(record("two")))
    records, notices = read_all(path)
    assert len(records) == 2
    assert "\ufffd" in records[0].messages[0]["data"]["content"]
    assert [(n.line_no, "UTF-8" in n.reason) for n in notices] == [(1, True)]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"[1, 2, 3]", "not a turn record"),
        (b'"just a string"', "not a turn record"),
        (b'{"hello": "world"}', "no integer 'version'"),
        (b'{"version": "1", "messages": []}', "no integer 'version'"),
        (b'{"version": 1, "messages": "nope"}', "'messages' list"),
        (b'{"version": 0, "messages": []}', "unknown format version"),
        (b'{"version": 1, "status": 5, "messages": []}', "non-text 'status'"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_valid_json_of_the_wrong_shape_is_skipped(tmp_path: Path, payload: bytes, reason: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(payload + b"\n" + line(record("kept")))
    records, notices = read_all(path)
    assert [r.line_no for r in records] == [2]
    assert len(notices) == 1 and notices[0].line_no == 1
    assert reason in notices[0].reason


def test_malformed_messages_are_dropped_but_the_turn_kept(tmp_path: Path) -> None:
    data = record("one")
    data["messages"].append({"kind": 99, "data": {}})
    data["messages"].append("nonsense")
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(data))
    records, notices = read_all(path)
    assert len(records) == 1 and len(records[0].messages) == 2
    assert [n.reason for n in notices] == [
        "message 3 has an unknown shape; skipped",
        "message 4 has an unknown shape; skipped",
    ]


def test_overlong_line_is_skipped_without_loading_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(line_blocks, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(record("x" * 5000)) + line(record("small")))
    records, notices = read_all(path)
    assert [r.line_no for r in records] == [2]
    assert notices[0].line_no == 1 and "longer than" in notices[0].reason
    tail_notices: list[ReadNotice] = []
    tail = read_last_records(path, 5, tail_notices)
    assert [r.line_no for r in tail.records] == [2]
    assert [n.line_no for n in tail_notices] == [1]


def test_unreadable_path_is_a_notice(tmp_path: Path) -> None:
    records, notices = read_all(tmp_path / "missing.jsonl")
    assert records == [] and notices[0].line_no == 0 and "cannot open" in notices[0].reason


def test_decoded_messages_are_zett_agent_objects(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    data = record("hello")
    data["messages"].append({"kind": 3, "data": {"content": 5}})
    path.write_bytes(line(data))
    (found,), _ = read_all(path)
    notices: list[ReadNotice] = []
    messages = found.decoded_messages(notices, path)
    assert isinstance(messages[0], UserMessage) and messages[0].content == "hello"
    assert isinstance(messages[1], AssistantMessage)
    assert len(messages) == 2 and "does not decode" in notices[0].reason


# --- reading from the end ----------------------------------------------------------------------


def test_last_records_with_line_numbers_and_paging(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [line(record(f"p{n}")) for n in range(1, 11)]
    lines[6] = b"garbage\n"
    path.write_bytes(b"".join(lines) + b'{"version":1,"tor')
    notices: list[ReadNotice] = []
    page = read_last_records(path, 3, notices)
    assert [r.line_no for r in page.records] == [8, 9, 10]
    assert [n.line_no for n in notices] == [11]
    assert page.has_earlier and page.start_line == 8
    notices.clear()
    earlier = read_last_records(path, 3, notices, before_offset=page.start_offset)
    assert [r.line_no for r in earlier.records] == [4, 5, 6]
    assert [n.line_no for n in notices] == [7]
    rest = read_last_records(path, 100, [], before_offset=earlier.start_offset)
    assert [r.line_no for r in rest.records] == [1, 2, 3] and not rest.has_earlier
    forward, _ = read_all(path)
    assert [r.offset for r in forward[-3:]] == [r.offset for r in page.records]


def test_long_lines_read_backwards_across_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(line_blocks, "BACK_BLOCK_BYTES", 64)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(line(record(f"p{n}", answer="word " * (n * 50))) for n in range(5)))
    page = read_last_records(path, 5, [])
    assert [r.messages[1]["data"]["content"].count("word") for r in page.records] == [0, 50, 100, 150, 200]


def test_repair_torn_tail_lets_the_next_append_stand_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(record("one")) + line(record("torn"))[:50])
    assert repair_torn_tail(path) is True
    assert repair_torn_tail(path) is False
    with path.open("ab") as stream:
        stream.write(line(record("next")))
    records, notices = read_all(path)
    assert [r.messages[0]["data"]["content"] for r in records] == ["one", "next"]
    assert [n.line_no for n in notices] == [2]
    assert repair_torn_tail(tmp_path / "missing.jsonl") is False


# --- titles and modes ---------------------------------------------------------------------------


def test_titles_are_one_clean_line_stored_privately(tmp_path: Path) -> None:
    session = tmp_path / "c2Vzcy1B.jsonl"
    session.write_bytes(line(record("x")))
    stored = set_title(session, "  Fix\nthe \x1b[31mbug\u202e  ")
    assert stored == "Fix the [31mbug"
    assert read_title(session) == stored
    assert stat.S_IMODE(meta_path(session).stat().st_mode) == 0o600
    assert set_title(session, "  ") is None and not meta_path(session).exists()
    assert one_line("x" * 500).endswith("…") and len(one_line("x" * 500)) == 200


def test_damaged_title_file_is_ignored_with_a_notice(tmp_path: Path) -> None:
    session = tmp_path / "c2Vzcy1B.jsonl"
    meta_path(session).write_text("{not json")
    notices: list[ReadNotice] = []
    assert read_title(session, notices) is None
    assert "not a JSON object" in notices[0].reason


def test_storage_modes_are_tightened(tmp_path: Path) -> None:
    data = tmp_path / "data"
    sessions = data / "sessions"
    sessions.mkdir(parents=True)
    os.chmod(data, 0o755)
    os.chmod(sessions, 0o775)
    transcript = sessions / "c2Vzcy1B.jsonl"
    transcript.write_bytes(line(record("x")))
    os.chmod(transcript, 0o644)
    history = data / "history.sqlite3"
    history.write_bytes(b"")
    wal = data / "history.sqlite3-wal"
    wal.write_bytes(b"")
    os.chmod(history, 0o666)
    os.chmod(wal, 0o640)
    tighten_session_storage(sessions, history)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE(sessions.stat().st_mode) == 0o700
    assert stat.S_IMODE(transcript.stat().st_mode) == 0o600
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    assert stat.S_IMODE(wal.stat().st_mode) == 0o600


def test_the_session_layer_does_not_import_textual() -> None:
    code = (
        "import sys, zett_tui.sessions.cli, zett_tui.sessions.search, zett_tui.sessions.lock;"
        "print('textual' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
