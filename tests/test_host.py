"""The runtime host with a scripted model: streaming, tools, approvals, cancel, and the JSONL record."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest

from tests.fakes.host import Collector, HostFactory, live_processes_mentioning, wait_until
from tests.fakes.scripted_model import ScriptedModel, failing_step, text_step, tool_step
from zett_tui.core import paths
from zett_tui.runtime.events import (
    ReasoningChunk,
    TextChunk,
    ToolFinished,
    ToolsStarted,
    TurnFinished,
)
from zett_tui.runtime.host import AgentHost


def jsonl_lines(host: AgentHost) -> list[dict]:
    assert host.recorder is not None
    path = host.recorder.session_path(host.session_id)
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_streamed_answer_is_recorded_as_one_completed_line(
    project_dir: Path, hosts: HostFactory
) -> None:
    model = ScriptedModel(text_step("# Title\n\nSome **bold** text.", reasoning="thinking hard"))
    host = await hosts(model)
    sink = Collector()
    finished = await host.run_turn("hello", sink)
    await host.aclose()

    assert finished.status == "completed"
    assert sink.text == "# Title\n\nSome **bold** text."
    assert "".join(e.text for e in sink.of(ReasoningChunk)) == "thinking hard"
    [line] = jsonl_lines(host)
    assert line["status"] == "completed"
    assert line["session_id"] == host.session_id
    assert line["metadata"]["zett"]["cwd"] == str(project_dir)
    assert line["metadata"]["zett"]["model"] == "scripted"
    assert line["messages"][0]["data"]["content"] == "hello"


async def test_files_are_private_whatever_the_umask(project_dir: Path, hosts: HostFactory) -> None:
    import os

    old = os.umask(0o000)
    try:
        host = await hosts(ScriptedModel(text_step("ok")))
        await host.run_turn("hi", Collector())
        await host.aclose()
    finally:
        os.umask(old)
    assert host.recorder is not None
    record = host.recorder.session_path(host.session_id)
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(paths.history_db().stat().st_mode) == 0o600
    assert stat.S_IMODE(paths.data_dir().stat().st_mode) == 0o700


async def test_a_failed_turn_is_recorded_and_the_session_goes_on(hosts: HostFactory) -> None:
    model = ScriptedModel(failing_step(ConnectionResetError("peer went away")), text_step("back"))
    host = await hosts(model)
    sink = Collector()
    finished = await host.run_turn("first", sink)
    assert finished.status == "failed"
    assert finished.error and "Traceback" not in finished.error
    again = await host.run_turn("second", Collector())
    await host.aclose()
    assert again.status == "completed"
    lines = jsonl_lines(host)
    assert [line["status"] for line in lines] == ["failed", "completed"]
    assert lines[0]["error"]["type"] == "ConnectionResetError"


async def test_cancel_mid_stream_records_cancelled_and_the_next_turn_sees_history(hosts: HostFactory) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("partial answer that never ends", gate=gate), text_step("fine"))
    host = await hosts(model)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("long one", sink))
    await wait_until(lambda: bool(sink.of(TextChunk)))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sink.of(TurnFinished)[-1].status == "cancelled"
    finished = await host.run_turn("go on", Collector())
    await host.aclose()
    assert finished.status == "completed"
    assert [line["status"] for line in jsonl_lines(host)] == ["cancelled", "completed"]
    contents = [getattr(m, "content", None) for m in model.requests[-1].messages]
    assert "long one" in contents and "go on" in contents


async def test_shell_command_waits_for_approval_and_runs_after_yes(
    project_dir: Path, hosts: HostFactory
) -> None:
    model = ScriptedModel(tool_step("call-1", "bash", {"command": "echo approved-run"}), text_step("done"))
    host = await hosts(model)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("run it", sink))
    decision = await asyncio.wait_for(sink.decisions.get(), 5)
    assert decision.kind == "shell_approval_requested"
    assert decision.payload["command"] == "echo approved-run"
    assert decision.payload["timeout_seconds"] == 60  # the runtime's payload says 30; bash runs 60
    assert host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": "execute"})
    # A duplicate answer is refused quietly.
    assert not host.answer(
        decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": "execute"}
    )
    finished = await asyncio.wait_for(task, 10)
    await host.aclose()
    assert finished.status == "completed"
    [result] = sink.of(ToolFinished)
    assert result.state == "done" and "approved-run" in result.output
    assert not (project_dir / ".zett-tool-output").exists()


async def test_refused_shell_command_does_not_run(project_dir: Path, hosts: HostFactory) -> None:
    marker = project_dir / "ran.txt"
    model = ScriptedModel(tool_step("call-1", "bash", {"command": f"touch {marker}"}), text_step("ok"))
    host = await hosts(model)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("touch", sink))
    decision = await asyncio.wait_for(sink.decisions.get(), 5)
    host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": "abort"})
    await asyncio.wait_for(task, 10)
    await host.aclose()
    assert not marker.exists()
    [result] = sink.of(ToolFinished)
    assert result.state == "failed" and "aborted by user" in result.output


async def test_cancel_mid_tool_kills_the_process_and_records_cancelled(
    project_dir: Path, hosts: HostFactory
) -> None:
    # The token names this test's shell in the process table, to see it killed rather than guess.
    token = "late-zett-cancel-probe"
    command = f"touch started.txt; sleep 30; touch {token}.txt"
    model = ScriptedModel(tool_step("call-1", "bash", {"command": command}))
    host = await hosts(model)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("slow", sink))
    decision = await asyncio.wait_for(sink.decisions.get(), 5)
    host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": "execute"})
    await wait_until(lambda: bool(sink.of(ToolsStarted)) and (project_dir / "started.txt").exists())
    assert live_processes_mentioning(token)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await host.aclose()
    [line] = jsonl_lines(host)
    assert line["status"] == "cancelled"
    await wait_until(lambda: not live_processes_mentioning(token), timeout=5)
    assert not (project_dir / f"{token}.txt").exists()


async def test_long_shell_output_is_kept_outside_the_project(project_dir: Path, hosts: HostFactory) -> None:
    command = "python3 -c \"print('x' * 100 + '\\n', end='' ) \" ; seq 1 40000"
    model = ScriptedModel(tool_step("call-1", "bash", {"command": command}), text_step("ok"))
    host = await hosts(model)
    sink = Collector()
    task = asyncio.create_task(host.run_turn("lots", sink))
    decision = await asyncio.wait_for(sink.decisions.get(), 5)
    host.answer(decision, {"tool_call_id": decision.payload["tool_call_id"], "decision": "execute"})
    await asyncio.wait_for(task, 20)
    await host.aclose()
    [result] = sink.of(ToolFinished)
    assert "output truncated" in result.output
    assert str(paths.tool_output_dir()) in result.output
    assert not (project_dir / ".zett-tool-output").exists()
    kept = list(paths.tool_output_dir().glob("shell-*/stdout.txt"))
    assert kept and "40000" in kept[0].read_text()
