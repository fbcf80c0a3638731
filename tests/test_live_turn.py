"""Issue 12, item 2: a session is on disk from its first prompt, and a kill loses at most a second.

While a turn runs, its prompt, every finished message and the text streaming now are kept beside
the session file (``runtime.turn_journal``); a zett killed mid-turn leaves them, and the next zett
that opens or lists the session adds them to it as one ``interrupted`` turn
(``sessions.live_turn``). The kills here are real ``kill -9``s of a process running the host.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import textwrap
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from zett_agent.messages import AssistantMessage, UserMessage

from tests.fakes.host import Collector, HostFactory, kill_when_it_prints, wait_until
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
from zett_tui.core import paths
from zett_tui.entry.startup import find_session_to_resume
from zett_tui.runtime.host import AgentHost
from zett_tui.runtime.turn_journal import TurnJournal
from zett_tui.sessions import live_turn
from zett_tui.sessions.index import SessionIndex
from zett_tui.sessions.naming import live_path, partial_path, session_path

#: Credential-shaped: it may reach a file only redacted, and never in part.
SECRET = "AKIAQ7W3E9R2T5Y8U1I4"
REDACTED = "[REDACTED:aws-access-key]"


def session_file(host: AgentHost) -> Path:
    assert host.recorder is not None
    return host.recorder.session_path(host.session_id)


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def contents(record: dict[str, Any]) -> list[tuple[int, Any]]:
    return [(message["kind"], message["data"].get("content")) for message in record["messages"]]


def sidecars(path: Path) -> list[Path]:
    return [side for side in (live_path(path), partial_path(path)) if side.exists()]


# -- while the turn runs ----------------------------------------------------------------------------


async def test_the_prompt_is_on_disk_as_the_turn_starts_and_the_text_within_a_second(
    project_dir: Path, hosts: HostFactory
) -> None:
    gate = asyncio.Event()
    host = await hosts(ScriptedModel(text_step("Streaming the answer now", chunk=14, gate=gate)))
    sink = Collector()
    turn = asyncio.create_task(host.run_turn(f"my prompt {SECRET}", sink))
    await wait_until(lambda: bool(sink.text))  # the model sent "Streaming the " and waits
    path = session_file(host)
    record = live_turn.read_live_turn(path)
    assert record is not None and not path.exists()  # nothing else of the session yet
    assert contents(record)[0] == (2, f"my prompt {REDACTED}")

    def streamed() -> str | None:
        found = live_turn.read_live_turn(path)
        return contents(found)[-1][1] if found and len(found["messages"]) == 2 else None

    await wait_until(lambda: streamed() == "Streaming the ", timeout=5)  # the timer wrote it
    gate.set()
    finished = await turn
    assert finished.status == "completed"
    assert sidecars(path) == []  # the real line is written: the journal is gone
    [line] = records(path)
    assert line["status"] == "completed" and contents(line)[-1] == (3, "Streaming the answer now")


async def test_a_finished_step_is_written_at_once_not_at_the_next_tick(
    project_dir: Path, hosts: HostFactory
) -> None:
    (project_dir / "notes.txt").write_text("tool output here\n")
    gate = asyncio.Event()
    model = ScriptedModel(
        tool_step("c1", "read_file", {"path": "notes.txt"}, text="Reading it."),
        text_step("Done reading", gate=gate),
    )
    host = await hosts(model)
    assert host.recorder is not None
    host.recorder.journal.interval = 3600.0  # only a step's end can explain a write now
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("read notes", sink))
    await wait_until(lambda: "Done rea" in sink.text)
    path = session_file(host)

    def kinds() -> list[int]:
        found = live_turn.read_live_turn(path)
        return [message["kind"] for message in found["messages"]] if found else []

    await wait_until(lambda: kinds() == [2, 3, 4])  # prompt, the call, its result
    record = live_turn.read_live_turn(path)
    assert record is not None
    call = record["messages"][1]["data"]
    assert call["content"] == "Reading it." and call["tool_calls"][0]["name"] == "read_file"
    assert "tool output here" in json.dumps(record["messages"][2])
    gate.set()
    await turn


async def test_a_credential_streamed_in_pieces_never_reaches_the_disk_in_part(
    project_dir: Path, hosts: HostFactory
) -> None:
    text = f"The key is {SECRET} and that is all of it."
    gate = asyncio.Event()
    host = await hosts(ScriptedModel(text_step(text, chunk=2, delay=0.01), text_step("x", gate=gate)))
    assert host.recorder is not None
    host.recorder.journal.interval = 0.005
    path = session_file(host)
    seen: set[str] = set()
    stop = threading.Event()

    def sample() -> None:  # every version of the partial file while the key streams
        while not stop.is_set():
            with contextlib.suppress(OSError):
                seen.add(partial_path(path).read_text())

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        await host.run_turn("what is the key?", Collector())
    finally:
        stop.set()
        sampler.join()
    assert len(seen) > 5, "the partial text was hardly sampled; the test proves nothing"
    assert any("The key is" in version for version in seen)
    written = "".join(seen) + path.read_text()
    assert not [i for i in range(8, len(SECRET) + 1) if SECRET[:i] in written], "a prefix of the key"


async def test_a_cancelled_turn_keeps_what_was_streamed_and_leaves_no_journal(
    project_dir: Path, hosts: HostFactory
) -> None:
    gate = asyncio.Event()
    host = await hosts(ScriptedModel(text_step("Half an answer so far", chunk=14, gate=gate)))
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("go", sink))
    await wait_until(lambda: bool(sink.text))
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    path = session_file(host)
    [line] = records(path)
    assert line["status"] == "cancelled"
    assert contents(line) == [(2, "go"), (3, "Half an answer")]  # to the last word shown
    assert line["messages"][-1]["data"]["attributes"] == {live_turn.PARTIAL_ATTRIBUTE: True}
    assert sidecars(path) == []


# -- after a kill -----------------------------------------------------------------------------------

KILLED = textwrap.dedent(
    """
    import asyncio, sys
    from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step
    from tests.fakes.host import Collector, make_host, wait_until

    async def main():
        steps = [tool_step("c1", "read_file", {"path": "notes.txt"})] if sys.argv[1] == "tool" else []
        gate = asyncio.Event()
        steps.append(text_step("Streamed before the kill and then more", chunk=16, gate=gate))
        host = await make_host(ScriptedModel(*steps), session_id="killed-first-turn")
        sink = Collector()
        task = asyncio.create_task(host.run_turn("first prompt AKIAQ7W3E9R2T5Y8U1I4", sink))
        await wait_until(lambda: bool(sink.text))
        path = host.recorder.session_path(host.session_id)
        partial = path.with_suffix(".partial")
        await wait_until(lambda: partial.exists() and "Streamed" in partial.read_text(), timeout=10)
        print("MID-TURN", flush=True)
        await task

    asyncio.run(main())
    """
)


def kill_mid_first_turn(project_dir: Path, kind: str = "text") -> None:
    kill_when_it_prints(KILLED, "MID-TURN", cwd=project_dir, args=(kind,))


def test_continue_finds_a_session_killed_in_its_first_turn(project_dir: Path) -> None:
    (project_dir / "notes.txt").write_text("what the tool read\n")
    kill_mid_first_turn(project_dir, "tool")
    sessions = paths.sessions_dir()
    path = session_path(sessions, "killed-first-turn")
    assert not path.exists() and sidecars(path)  # only the journal, as the kill left it

    found = find_session_to_resume(project_dir, None, continue_last=True)
    assert found.session_id == "killed-first-turn"
    [line] = records(path)
    assert line["status"] == live_turn.INTERRUPTED
    assert [kind for kind, _ in contents(line)] == [2, 3, 4, 3]  # prompt, call, result, partial
    assert contents(line)[0] == (2, f"first prompt {REDACTED}")
    assert contents(line)[-1] == (3, "Streamed before ")
    assert "what the tool read" in json.dumps(line["messages"][2])
    assert sidecars(path) == [] and not list(sessions.glob("*.lock"))
    [summary] = SessionIndex().list_sessions()
    assert summary.turns == 1 and summary.last_status == "interrupted"


def test_a_killed_turn_is_added_once_whoever_finds_it_first(project_dir: Path) -> None:
    kill_mid_first_turn(project_dir)
    SessionIndex().list_sessions()
    SessionIndex().list_sessions()
    find_session_to_resume(project_dir, "killed", continue_last=False)
    path = session_path(paths.sessions_dir(), "killed-first-turn")
    assert [line["status"] for line in records(path)] == ["interrupted"]


# -- the journal's files, read as a stopped zett left them -------------------------------------------


def write_journal(path: Path, *lines: str, partial: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    live_path(path).write_text("".join(line + "\n" for line in lines))
    if partial is not None:
        partial_path(path).write_text(partial)


def header(turn: str = "t-1") -> str:
    record = {"version": 1, "session_id": "s", "started_at": "2026-01-01T00:00:00+00:00"}
    return live_turn.start_line({**record, "metadata": {"zett": {"turn": turn}}, "tags": {}})


def prompt(text: str) -> str:
    return live_turn.message_line({"kind": 2, "data": {"content": text}})


def test_a_torn_last_line_and_a_stale_partial_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    stale = live_turn.partial_document(0, "belongs to the prompt step", "")
    write_journal(path, header(), prompt("question"), '{"message": {"kind": 3, "da', partial=stale)
    assert live_turn.adopt_live_turn(path)
    [line] = records(path)
    assert contents(line) == [(2, "question")] and sidecars(path) == []


def test_a_turn_whose_line_was_written_before_the_kill_is_not_added_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    written = {"version": 1, "status": "completed", "metadata": {"zett": {"turn": "t-1"}}, "messages": []}
    path.write_text(json.dumps(written) + "\n")
    write_journal(path, header("t-1"), prompt("question"))
    assert not live_turn.adopt_live_turn(path)
    assert [line["status"] for line in records(path)] == ["completed"] and sidecars(path) == []


@pytest.mark.parametrize("first", ["not json at all", '{"live": 2, "record": {}}', ""])
def test_an_unreadable_journal_is_set_aside_and_the_session_is_untouched(first: str, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"version": 1, "status": "completed", "messages": []}\n')
    before = path.read_bytes()
    write_journal(path, first, prompt("question"))
    assert not live_turn.adopt_live_turn(path)
    assert path.read_bytes() == before and sidecars(path) == []
    assert (tmp_path / "s.live-damaged").exists()


async def test_messages_the_runtime_replaced_mid_turn_are_written_again(tmp_path: Path) -> None:
    """Compaction may replace the turn's messages: the journal then holds the new ones only."""
    path = tmp_path / "s.jsonl"
    question = UserMessage(content="question")
    state = SimpleNamespace(messages=[question, AssistantMessage(content="long answer")])
    config = SimpleNamespace(request_id="r", parent_session_id=None)
    context: Any = SimpleNamespace(session_id="s", state=state, config=config, metadata={}, tags={})
    journal = TurnJournal(lambda _session: path, lambda text: text, interval=3600.0)
    await journal.begin(context, question, live_turn.datetime.now(live_turn.UTC))
    record = live_turn.read_live_turn(path)
    assert record is not None and contents(record) == [(2, "question"), (3, "long answer")]
    state.messages[:] = [question, AssistantMessage(content="summary")]
    await journal._write_once(journal._generation)
    record = live_turn.read_live_turn(path)
    assert record is not None and contents(record) == [(2, "question"), (3, "summary")]
    journal.end(remove=True)
    assert sidecars(path) == []


async def test_decision_lines_and_the_context_figure_are_kept_while_the_turn_runs(
    project_dir: Path, hosts: HostFactory
) -> None:
    gate = asyncio.Event()
    host = await hosts(ScriptedModel(text_step("Answer after the question", chunk=7, gate=gate)))
    sink = Collector()
    turn = asyncio.create_task(host.run_turn("go", sink))
    await wait_until(lambda: bool(sink.text))
    host.note_decision("✓ You allowed: make test", "c9")
    path = session_file(host)

    def decisions(record: dict[str, Any] | None) -> list[dict[str, Any]]:
        return (record or {}).get("metadata", {}).get("zett", {}).get("decisions", [])

    await wait_until(lambda: decisions(live_turn.read_live_turn(path)) != [], timeout=5)
    assert decisions(live_turn.read_live_turn(path)) == [
        {"text": "✓ You allowed: make test", "call_id": "c9", "subagent_session": None}
    ]
    gate.set()
    await turn
    [line] = records(path)
    assert decisions(line) == [
        {"text": "✓ You allowed: make test", "call_id": "c9", "subagent_session": None}
    ]
    assert line["metadata"]["zett"]["context"] == {
        "tokens": 17,
        "window": host.context_window,
        "estimated": False,
    }
