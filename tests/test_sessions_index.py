"""The session index (listing, cache, damage) and resolving ids typed by the user."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from zett_tui.core.paths import sessions_dir
from zett_tui.sessions import index as index_module
from zett_tui.sessions.ids import AmbiguousSession, UnknownSession, resolve_session_id, short_ids
from zett_tui.sessions.index import _CACHE_FORMAT, CACHE_NAME, SessionIndex, SessionSummary
from zett_tui.sessions.lock import SessionLock
from zett_tui.sessions.meta import set_title
from zett_tui.sessions.naming import lock_path, session_path

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def turn(
    session_id: str, prompt: str, minute: int, *, status: str = "completed", cwd: str = "/work/p"
) -> bytes:
    started = BASE + timedelta(minutes=minute)
    data: dict[str, Any] = {
        "version": 1,
        "session_id": session_id,
        "request_id": f"r{minute}",
        "parent_session_id": None,
        "started_at": started.isoformat(),
        "completed_at": (started + timedelta(seconds=30)).isoformat(),
        "status": status,
        "metadata": {"zett": {"cwd": cwd, "branch": "feature/x", "model": "openai:gpt", "version": "0.1.0"}},
        "tags": {},
        "messages": [
            {"kind": 2, "data": {"attributes": {}, "content": prompt}},
            {"kind": 3, "data": {"attributes": {}, "content": "done", "tool_calls": []}},
        ],
    }
    return (json.dumps(data, separators=(",", ":")) + "\n").encode()


def write(directory: Path, session_id: str, *turns: bytes) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = session_path(directory, session_id)
    path.write_bytes(b"".join(turns))
    return path


@pytest.fixture(params=["in memory", "from disk"])
def directory(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sessions folder; each test runs with small files read whole and read piece by piece."""
    if request.param == "from disk":
        monkeypatch.setattr(index_module, "_IN_MEMORY_BYTES", 0)
    return sessions_dir()


def test_sessions_listed_newest_first_with_their_facts(directory: Path) -> None:
    write(directory, "old", turn("old", "first question\nwith two lines", 0), turn("old", "later", 5))
    path = write(directory, "new", turn("new", "newest", 60, status="cancelled"))
    index = SessionIndex(directory)
    summaries = index.list_sessions()
    assert [s.session_id for s in summaries] == ["new", "old"]
    old = summaries[1]
    assert old.title == "first question with two lines" == old.first_prompt
    assert old.last_prompt == "later"
    assert (old.cwd, old.branch, old.model) == ("/work/p", "feature/x", "openai:gpt")
    assert old.turns == 2 and old.last_status == "completed"
    assert old.started_at == BASE and old.last_activity == BASE + timedelta(minutes=5, seconds=30)
    assert summaries[0].last_status == "cancelled" and summaries[0].path == path
    assert summaries[0].size_bytes == path.stat().st_size
    assert index.notices == []
    assert json.loads(json.dumps(old.to_json()))["path"] == str(old.path)


def test_filter_by_project_folder(directory: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    write(directory, "here", turn("here", "a", 0, cwd=str(real)))
    write(directory, "there", turn("there", "b", 1, cwd="/elsewhere"))
    index = SessionIndex(directory)
    assert [s.session_id for s in index.list_sessions(cwd=real)] == ["here"]
    assert [s.session_id for s in index.list_sessions(cwd=str(real) + "/")] == ["here"]
    assert [s.session_id for s in index.list_sessions(cwd=link)] == ["here"]
    assert len(index.list_sessions()) == 2


def test_damaged_files_are_still_listed(directory: Path) -> None:
    write(directory, "torn", turn("torn", "kept", 0), turn("torn", "lost", 1)[:30])
    write(directory, "empty")
    write(directory, "junk", b"\x00\x01 not json\n")
    write(directory, "future", turn("future", "ok", 3), b'{"version":9,"messages":[]}\n')
    index = SessionIndex(directory)
    by_id = {s.session_id: s for s in index.list_sessions()}
    torn = by_id["torn"]
    assert (
        torn.tail_torn and torn.turns == 1 and torn.last_prompt == "kept" and torn.last_status == "completed"
    )
    assert by_id["empty"].last_status == "empty" and by_id["empty"].turns == 0
    assert by_id["junk"].last_status == "unreadable"
    assert by_id["future"].last_prompt == "ok"
    reasons = {(n.path.name, n.reason.split(" (")[0]) for n in index.notices}
    assert (session_path(directory, "torn").name, "incomplete last line") in reasons
    assert (session_path(directory, "empty").name, "the file is empty") in reasons


def test_only_session_files_are_listed(directory: Path) -> None:
    path = write(directory, "real", turn("real", "x", 0))
    (directory / "notes.txt").write_text("hello")
    (directory / CACHE_NAME).write_text("{}")
    lock_path(path).write_text("")
    (directory / "foreign-name.jsonl").write_bytes(turn("from-record", "copied in", 1))
    (directory / "link.jsonl").symlink_to(path)
    index = SessionIndex(directory)
    ids = sorted(s.session_id for s in index.list_sessions())
    assert ids == ["from-record", "real"]
    assert any(n.path.name == "link.jsonl" and "not a regular file" in n.reason for n in index.notices)


def test_rename_title_wins_over_first_prompt(directory: Path) -> None:
    path = write(directory, "s", turn("s", "the prompt", 0))
    set_title(path, "My title")
    (summary,) = SessionIndex(directory).list_sessions()
    assert summary.title == "My title" and summary.first_prompt == "the prompt"


def test_listing_tightens_modes_and_writes_a_private_cache(directory: Path) -> None:
    path = write(directory, "s", turn("s", "x", 0))
    os.chmod(path, 0o644)
    os.chmod(directory, 0o755)
    SessionIndex(directory).list_sessions()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / CACHE_NAME).stat().st_mode) == 0o600


def test_cache_makes_reopening_skip_the_files(directory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(directory, "a", turn("a", "x", 0))
    write(directory, "b", turn("b", "y", 1))
    first = SessionIndex(directory).list_sessions()

    def no_scan(*args: object) -> None:
        raise AssertionError("a cached, unchanged file was read again")

    monkeypatch.setattr(index_module, "_scan", no_scan)
    assert SessionIndex(directory).list_sessions() == first


def test_an_appended_turn_updates_the_entry_from_the_new_bytes(
    directory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(directory, "s", turn("s", "first", 0))
    SessionIndex(directory).list_sessions()
    with path.open("ab") as stream:
        stream.write(turn("s", "second", 10, status="failed"))

    def no_head(*args: object) -> None:
        raise AssertionError("the head of a file that only grew was read again")

    monkeypatch.setattr(index_module, "_read_head", no_head)
    (summary,) = SessionIndex(directory).list_sessions()
    assert (summary.turns, summary.last_status, summary.last_prompt) == (2, "failed", "second")
    assert summary.title == "first"


def test_a_rewritten_file_is_scanned_again(directory: Path) -> None:
    path = write(directory, "s", turn("s", "aaaa", 0))
    SessionIndex(directory).list_sessions()
    before = path.stat()
    path.write_bytes(turn("s", "bbbb", 0))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    (summary,) = SessionIndex(directory).list_sessions()
    assert summary.title == "bbbb"


def test_a_deleted_file_leaves_the_listing_and_the_cache(directory: Path) -> None:
    write(directory, "a", turn("a", "x", 0))
    gone = write(directory, "b", turn("b", "y", 1))
    SessionIndex(directory).list_sessions()
    gone.unlink()
    assert [s.session_id for s in SessionIndex(directory).list_sessions()] == ["a"]
    cached = json.loads((directory / CACHE_NAME).read_text())
    assert list(cached["entries"]) == [session_path(directory, "a").name]


@pytest.mark.parametrize(
    "cache",
    [
        "{broken",
        "[]",
        json.dumps({"format": 3, "entries": []}),
        json.dumps({"format": 3, "entries": {"x.jsonl": {"size": "big"}}}),
        json.dumps({"format": 3, "entries": {"x.jsonl": ["not", "an", "entry"]}}),
        json.dumps({"format": 999, "entries": {}}),
    ],
)
def test_a_corrupt_cache_is_ignored_and_rebuilt(directory: Path, cache: str) -> None:
    write(directory, "s", turn("s", "x", 0))
    (directory / CACHE_NAME).write_text(cache)
    (summary,) = SessionIndex(directory).list_sessions()
    assert summary.title == "x"
    assert json.loads((directory / CACHE_NAME).read_text())["format"] == _CACHE_FORMAT


def test_a_cache_entry_with_wrong_types_is_rebuilt(directory: Path) -> None:
    path = write(directory, "s", turn("s", "x", 0))
    SessionIndex(directory).list_sessions()
    cache = json.loads((directory / CACHE_NAME).read_text())
    cache["entries"][path.name]["head"]["prompt"] = 42
    (directory / CACHE_NAME).write_text(json.dumps(cache))
    (summary,) = SessionIndex(directory).list_sessions()
    assert summary.title == "x"


def test_a_stale_cache_entry_with_the_same_name_is_not_trusted(directory: Path) -> None:
    path = write(directory, "s", turn("s", "x", 0))
    SessionIndex(directory).list_sessions()
    cache = json.loads((directory / CACHE_NAME).read_text())
    entry = cache["entries"][path.name]
    entry["head"]["prompt"] = "stale"
    entry["size"] += 1
    (directory / CACHE_NAME).write_text(json.dumps(cache))
    (summary,) = SessionIndex(directory).list_sessions()
    assert summary.title == "x"


def test_a_missing_folder_lists_nothing(tmp_path: Path) -> None:
    index = SessionIndex(tmp_path / "nope")
    assert index.list_sessions() == [] and index.notices == []


def test_a_session_held_by_a_lock_is_in_use(directory: Path) -> None:
    write(directory, "s", turn("s", "x", 0))
    with SessionLock.for_session(directory, "s"):
        (summary,) = SessionIndex(directory).list_sessions()
        assert summary.in_use and summary.in_use_by == os.getpid()
    (summary,) = SessionIndex(directory).list_sessions()
    assert not summary.in_use


# --- resolving ids ------------------------------------------------------------------------------


def summary(session_id: str, title: str = "t") -> SessionSummary:
    return SessionSummary(session_id, title, None, None, None, BASE, BASE, 1, "completed", Path("/x"), 1)


SUMMARIES = [
    summary("0190a1b2-aaaa", "alpha"),
    summary("0190a1b2-aabb", "beta"),
    summary("0190ffff-0000", "gamma"),
    summary("abc"),
    summary("abcd"),
]


def test_resolve_by_full_id_or_unique_prefix() -> None:
    assert resolve_session_id("0190ffff-0000", SUMMARIES).title == "gamma"
    assert resolve_session_id("0190f", SUMMARIES).title == "gamma"
    assert resolve_session_id(" 0190a1b2-aab ", SUMMARIES).title == "beta"
    assert resolve_session_id("abc", SUMMARIES).session_id == "abc"


def test_ambiguous_prefix_lists_the_candidates() -> None:
    with pytest.raises(AmbiguousSession) as caught:
        resolve_session_id("0190a1b2", SUMMARIES)
    assert [s.title for s in caught.value.matches] == ["alpha", "beta"]
    assert "0190a1b2-aaaa" in str(caught.value) and "0190a1b2-aabb" in str(caught.value)


def test_unknown_id_suggests_near_matches() -> None:
    with pytest.raises(UnknownSession) as caught:
        resolve_session_id("0190a1b3", SUMMARIES)
    assert {s.title for s in caught.value.near} >= {"alpha", "beta"}
    assert "did you mean" in str(caught.value)
    with pytest.raises(UnknownSession, match="sessions list --all"):
        resolve_session_id("zzzzzzzz", SUMMARIES)
    with pytest.raises(UnknownSession):
        resolve_session_id("  ", SUMMARIES)


def test_short_ids_are_unique_prefixes() -> None:
    shorts = short_ids(SUMMARIES)
    assert shorts["0190ffff-0000"] == "0190ffff"
    assert shorts["0190a1b2-aaaa"] == "0190a1b2-aaa"
    assert (shorts["abc"], shorts["abcd"]) == ("abc", "abcd")
    assert len(set(shorts.values())) == len(SUMMARIES)
    for identifier, short in shorts.items():
        assert resolve_session_id(short, SUMMARIES).session_id == identifier
