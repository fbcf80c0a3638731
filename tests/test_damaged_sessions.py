"""Damaged session files of every kind: the good turns are read, the damage is counted, not listed.

Each kind of damage sits between good turns and is read forwards (show, export, history rebuild)
and backwards (resume, preview), once with the reasons wanted (a plain list, or a ``ReadNotices``
with room for details) and once counting only, where the reader sieves whole blocks
(``line_sieve``): both must keep exactly the good turns, at the same line numbers.
"""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.damaged_session import DAMAGE, truncated, write_damaged
from zett_tui.runtime.history_rebuild import rebuild_history
from zett_tui.sessions import line_blocks, reader
from zett_tui.sessions.export import write_json, write_markdown
from zett_tui.sessions.line_sieve import Candidate, Run, sieve
from zett_tui.sessions.read_notices import DETAIL_LIMIT, ReadNotice, ReadNotices, report_lines
from zett_tui.sessions.reader import iter_records, last_record_within, read_last_records


def record(prompt: str) -> dict[str, Any]:
    return {
        "version": 1,
        "session_id": "s1",
        "request_id": f"r-{prompt}",
        "status": "completed",
        "metadata": {"zett": {"model": "scripted"}},
        "messages": [
            {"kind": 2, "data": {"attributes": {}, "content": prompt}},
            {"kind": 3, "data": {"attributes": {}, "content": f"answer to {prompt}", "tool_calls": []}},
        ],
    }


def line(prompt: str) -> bytes:
    return (json.dumps(record(prompt), separators=(",", ":")) + "\n").encode()


KINDS = {**DAMAGE, "a turn cut in half": truncated(line("cut"))}


def prompts_of(records: list[reader.TurnRecord]) -> list[str]:
    return [r.messages[0]["data"]["content"] for r in records]


def sinks() -> list[Any]:
    return [[], ReadNotices(), ReadNotices(detail_limit=0)]


SINK_IDS = ["list", "details", "counting"]


@pytest.mark.parametrize("sink", range(3), ids=SINK_IDS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_damage_is_skipped_and_the_turns_around_it_kept(
    tmp_path: Path, kind: str, sink: int
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line("one") + KINDS[kind] + line("two") + KINDS[kind] * 3 + line("three"))
    forwards, backwards = sinks()[sink], sinks()[sink]
    read = list(iter_records(path, forwards))
    tail = read_last_records(path, 10, backwards)
    for records in (read, tail.records):
        assert prompts_of(records) == ["one", "two", "three"]
        assert [r.line_no for r in records] == [1, 3, 7]
        assert [r.offset for r in records] == [
            0,
            len(line("one") + KINDS[kind]),
            path.stat().st_size - len(line("three")),
        ]
    assert tail.start_offset == 0 and tail.start_line == 1
    for notices in (forwards, backwards):
        if isinstance(notices, ReadNotices):
            assert (notices.skipped_lines, notices.partial_lines) == (4, 0)
            assert (notices.first_line, notices.last_line) == (2, 6)
            wanted = {2, 4, 5, 6} if notices.detail_limit else set()
            assert {n.line_no for n in notices.details} == wanted and all(n.damage for n in notices)
        else:
            assert {n.line_no for n in notices} == {2, 4, 5, 6} and all(n.damage for n in notices)


@pytest.mark.parametrize("sink", range(3), ids=SINK_IDS)
def test_a_turn_torn_by_a_crash_at_the_end_is_skipped(tmp_path: Path, sink: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line("one") + line("two")[:40])
    for notices in (sinks()[sink], sinks()[sink]):
        assert prompts_of(list(iter_records(path, notices))) == ["one"]
    for notices in (sinks()[sink], sinks()[sink]):
        assert prompts_of(read_last_records(path, 5, notices).records) == ["one"]
        if isinstance(notices, ReadNotices):
            assert notices.skipped_lines == 1 and notices.first_line == 2


@pytest.mark.parametrize("sink", range(3), ids=SINK_IDS)
def test_a_line_longer_than_the_limit_with_no_newline_is_skipped_unloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sink: int
) -> None:
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 200_000)
    monkeypatch.setattr(line_blocks, "MAX_LINE_BYTES", 200_000)
    path = tmp_path / "s.jsonl"
    with path.open("wb") as stream:
        stream.write(line("one") + line("two"))
        stream.write(b"x" * 500_000)  # the block sizes are far smaller: read in many pieces
    for notices in (sinks()[sink], sinks()[sink]):
        assert prompts_of(list(iter_records(path, notices))) == ["one", "two"]
    notices = sinks()[sink]
    tail = read_last_records(path, 5, notices)
    assert prompts_of(tail.records) == ["one", "two"]
    if isinstance(notices, ReadNotices):
        assert notices.skipped_lines == 1 and notices.last_line == 3


@pytest.mark.parametrize("sink", range(3), ids=SINK_IDS)
def test_a_torn_line_merged_with_the_next_turn_keeps_that_turn(tmp_path: Path, sink: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line("one") + b"\x00" * 50 + line("two")[:30] + line("three"))
    for read in (
        list(iter_records(path, sinks()[sink])),
        read_last_records(path, 5, sinks()[sink]).records,
    ):
        assert prompts_of(read) == ["one", "three"]
        assert read[1].line_no == 2


@pytest.mark.parametrize(
    "good",
    [
        line("compact"),
        (json.dumps(record("spaced"), indent=None) + "\n").encode(),
        (json.dumps(record("crlf")) + "\r\n").encode(),
        (json.dumps(record("trailing")) + "  \t\n").encode(),
        (json.dumps({"messages": record("reordered")["messages"], **record("reordered")}) + "\n").encode(),
        (json.dumps(record("sans ascii ünï"), ensure_ascii=False) + "\n").encode(),
    ],
    ids=["compact", "spaced", "crlf", "trailing-space", "reordered-keys", "utf-8"],
)
def test_the_sieve_keeps_every_way_a_good_turn_can_be_written(tmp_path: Path, good: bytes) -> None:
    path = tmp_path / "s.jsonl"
    expected = json.loads(good)["messages"][0]["data"]["content"]
    write_damaged(path, [good] * 3, 50)
    for notices in (ReadNotices(detail_limit=0), ReadNotices()):
        assert prompts_of(list(iter_records(path, notices))) == [expected] * 3
        assert notices.skipped_lines == 150
    notices = ReadNotices(detail_limit=0)
    assert prompts_of(read_last_records(path, 5, notices).records) == [expected] * 3
    assert notices.skipped_lines == 150


def test_the_sieve_counts_blank_lines_as_lines_not_as_damage() -> None:
    region = b"garbage\n\n  \r\n" + line("one") + b"\n" + b"more garbage\n"
    found = sieve(region, 100, 1)
    assert [type(item) for item in found] == [Run, Candidate, Run]
    first, candidate, last = found
    assert first == Run(100, 3, 1)
    assert isinstance(candidate, Candidate) and candidate.offset == 100 + len(b"garbage\n\n  \r\n")
    assert last == Run(candidate.offset + len(line("one")), 2, 1)


def test_the_sieve_passes_only_lines_of_a_readable_version_with_a_message_list() -> None:
    lines = [
        b'{"version": 2, "messages": []}\n',  # newer than this zett: skipped by the reader too
        b'{"version": "1", "messages": []}\n',
        b'{"version": 1, "messages": "none"}\n',
        b'{"version": 10, "messages": []}\n',
        b'{"version": 1.5, "messages": []}\n',
        b'{"version": 1, "messages": []\n',
    ]
    assert sieve(b"".join(lines), 0, 1) == [Run(0, len(lines), len(lines))]
    assert [type(item) for item in sieve(b"".join(lines), 0, 2)] == [Candidate, Run]


def test_two_hundred_thousand_damaged_lines_keep_a_few_notices_and_count_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    damaged = write_damaged(path, [line(f"turn {n}") for n in range(5)], 200_000 // 5)
    for read in (
        lambda notices: list(iter_records(path, notices)),
        lambda notices: read_last_records(path, 60, notices).records,
    ):
        notices = ReadNotices()
        assert prompts_of(read(notices)) == [f"turn {n}" for n in range(5)]
        assert notices.skipped_lines == damaged
        assert len(notices.details) == DETAIL_LIMIT and not notices.file_notices
        [summary] = notices.lines()
        assert (
            summary
            == f"s.jsonl: {damaged:,} damaged lines skipped (lines 1 to {damaged + 4:,}); the rest is here"
        )


def test_the_log_gets_the_summary_and_the_first_reasons(caplog: pytest.LogCaptureFixture) -> None:
    notices = ReadNotices(detail_limit=2)
    path = Path("s.jsonl")
    for number in range(2, 50):
        notices.append(ReadNotice(path, number, f"reason {number}", "skipped"))
    notices.append(ReadNotice(path, 60, "undecodable bytes", "partial"))
    notices.append(ReadNotice(path, 0, "read error: disk on fire"))
    with caplog.at_level(logging.WARNING):
        notices.log(logging.getLogger("test"))
    logged = caplog.text
    assert "read error: disk on fire" in logged
    assert "48 damaged lines skipped and 1 damaged line read in part (lines 2 to 60)" in logged
    assert "line 2: reason 2; line 3: reason 3" in logged and "reason 4" not in logged
    assert len(notices) == 50


def test_a_line_read_in_part_then_skipped_counts_once_as_skipped() -> None:
    notices = ReadNotices()
    path = Path("s.jsonl")
    notices.append(ReadNotice(path, 4, "not valid UTF-8", "partial"))
    notices.append(ReadNotice(path, 4, "not valid JSON", "skipped"))
    notices.append(ReadNotice(path, 5, "message 2 has an unknown shape", "partial"))
    assert (notices.skipped_lines, notices.partial_lines) == (1, 1)


def test_exports_list_a_few_reasons_and_count_all(tmp_path: Path) -> None:
    from zett_tui.sessions.index import SessionIndex

    directory = tmp_path / "sessions"
    directory.mkdir()
    path = directory / "s1.jsonl"
    damaged = write_damaged(path, [line("one"), line("two")], 5_000)
    [summary] = SessionIndex(directory).list_sessions()
    markdown = io.StringIO()
    assert write_markdown(summary, markdown, ReadNotices(), redact=lambda text: text) == 2
    said = markdown.getvalue().split("could not be read:*")[1].strip().splitlines()
    assert len(said) == DETAIL_LIMIT + 1 and said[0].startswith(
        f"- s1.jsonl: {damaged:,} damaged lines skipped"
    )
    exported = io.StringIO()
    assert write_json(summary, exported, ReadNotices(), redact=lambda text: text) == 2
    document = json.loads(exported.getvalue())
    assert len(document["notices"]) == DETAIL_LIMIT
    assert document["damaged_lines"] == {"skipped": damaged, "read_in_part": 0}
    assert report_lines([ReadNotice(path, 3, "bad")]) == ["line 3: bad"]


def test_sessions_show_warns_in_a_dozen_lines_at_most(tmp_path: Path) -> None:
    from zett_tui.sessions.cli import show_session

    directory = tmp_path / "sessions"
    directory.mkdir()
    damaged = write_damaged(directory / "s1.jsonl", [line("one"), line("two")], 5_000)
    out, err = io.StringIO(), io.StringIO()
    assert show_session("s1", out, err=err, directory=directory) == 0
    assert "one" in out.getvalue() and "two" in out.getvalue()
    warnings = err.getvalue().splitlines()
    assert len(warnings) <= DETAIL_LIMIT + 1
    assert sum("damaged lines skipped" in text for text in warnings) == 1
    assert f"{damaged:,} damaged lines" in warnings[0] and warnings[1].startswith("warning: line 1: ")


class _History:
    def __init__(self) -> None:
        self.appended: list[tuple[str, Any]] = []

    async def count_messages(self, session_id: str) -> int:
        return 0

    async def append(self, session_id: str, request_id: str, message: Any) -> int:
        self.appended.append((request_id, message))
        return len(self.appended)


async def test_the_history_rebuild_skips_the_same_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s1.jsonl"
    damaged = write_damaged(path, [line(f"turn {n}") for n in range(4)], 20_000)
    history = _History()
    with caplog.at_level(logging.WARNING):
        assert await rebuild_history(history, "s1", path) == 4
    assert [request for request, _message in history.appended] == [
        f"r-turn {n}" for n in range(4) for _ in range(2)
    ]
    assert f"{damaged:,} damaged lines skipped" in caplog.text
    assert len([r for r in caplog.records if "damaged lines" in r.getMessage()]) == 1


def test_a_search_for_a_recent_turn_stops_within_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_damaged(path, [line("one")], 0, tail=b"".join(KINDS.values()) * 20)
    whole = path.stat().st_size - len(line("one"))
    assert last_record_within(path, whole // 2) is None
    found = last_record_within(path, path.stat().st_size)
    assert found is not None and prompts_of([found]) == ["one"] and found.offset == 0


def test_the_index_finds_a_session_whose_first_and_last_lines_are_all_damaged(tmp_path: Path) -> None:
    from zett_tui.sessions.index import SessionIndex

    directory = tmp_path / "sessions"
    directory.mkdir()
    path = directory / "s1.jsonl"
    # (not a turn cut in half: the index takes the facts of its first half)
    write_damaged(path, [line("first prompt"), line("last prompt")], 0, tail=b"".join(DAMAGE.values()) * 50)
    path.write_bytes(b"".join(DAMAGE.values()) * 50 + path.read_bytes())
    [summary] = SessionIndex(directory).list_sessions()
    assert summary.title == "first prompt"
    assert summary.cwd is None and summary.model == "scripted"  # the last turn's facts
    assert summary.session_id == "s1" and summary.last_status == "completed"


def test_the_browser_preview_of_a_damaged_session_says_one_line(tmp_path: Path) -> None:
    from zett_tui.sessions.index import SessionIndex
    from zett_tui.ui.browser.preview import load_preview

    directory = tmp_path / "sessions"
    directory.mkdir()
    damaged = write_damaged(directory / "s1.jsonl", [line(f"turn {n}") for n in range(3)], 4_000)
    [summary] = SessionIndex(directory).list_sessions()
    page = load_preview(summary, None)
    assert [turn.prompt for turn in page.turns] == ["turn 0", "turn 1", "turn 2"]
    assert page.notices.lines() == [
        f"s1.jsonl: {damaged:,} damaged lines skipped (lines 1 to {damaged + 2:,}); the rest is here"
    ]


@pytest.mark.parametrize("block", [512, 1000, 4096])
def test_turns_across_block_edges_are_found_at_their_line_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(reader, "BLOCK_BYTES", block)
    monkeypatch.setattr(line_blocks, "BLOCK_BYTES", block)
    monkeypatch.setattr(line_blocks, "BACK_BLOCK_BYTES", block // 2)
    path = tmp_path / "s.jsonl"
    turns = [line(f"turn {n}") for n in range(40)]
    write_damaged(path, turns, 7)
    expected_lines = [8 * (n + 1) for n in range(40)]
    for make in (lambda: ReadNotices(detail_limit=0), lambda: ReadNotices(detail_limit=3), list):
        forwards, backwards = make(), make()
        for records in (list(iter_records(path, forwards)), read_last_records(path, 100, backwards).records):
            assert prompts_of(records) == [f"turn {n}" for n in range(40)]
            assert [r.line_no for r in records] == expected_lines
            assert all(path.read_bytes()[r.offset :].startswith(turns[n]) for n, r in enumerate(records))
        for notices in (forwards, backwards):
            if isinstance(notices, ReadNotices):
                assert notices.skipped_lines == 7 * 40
