"""The edit gate with a real agent: diffs, apply / apply all / reject, modes, and file permissions."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.external import ExternalEvent
from zett_agent.extensions.file_system import FileSystemExtension
from zett_agent.extensions.memory import InMemoryMessageAccumulator
from zett_agent.model import ReasoningEffort

from tests.fakes.scripted_model import ScriptedModel, Step, last_tool_result, text_step, tool_step, tools_step
from zett_tui.runtime.extensions.loader import load_bundled
from zett_tui.runtime.modes import PermissionMode

SESSION = "edit-session"
CONFIG = AgentRunConfig(session_id=SESSION)
EditApprovalExtension = load_bundled("edit_approval", "EditApprovalExtension")
Reply = Callable[[dict[str, Any]], dict[str, Any]]


def apply(payload: dict[str, Any]) -> dict[str, Any]:
    return {"tool_call_id": payload["tool_call_id"], "decision": "apply"}


class Run:
    def __init__(self, gate: Any, model: ScriptedModel, events: list[AgentEvent]) -> None:
        self.gate, self.model, self.events = gate, model, events

    @property
    def asked(self) -> list[dict[str, Any]]:
        return [
            e.payload or {}
            for e in self.events
            if e.type is AgentEventType.CUSTOM and e.name == "edit_approval_requested"
        ]

    def tool_result(self, step: int = -1) -> str:
        return last_tool_result(self.model.requests[step])


async def run_steps(
    *steps: Step, reply: Reply = apply, mode: PermissionMode = PermissionMode.ASK, gate: Any = None
) -> Run:
    model = ScriptedModel(*steps, text_step("done"))
    gate = gate or EditApprovalExtension(lambda _session_id: mode)
    agent = await Agent.create(
        model,
        config=CONFIG,
        system_prompt="test",
        extensions=[InMemoryMessageAccumulator(), FileSystemExtension(read_only=False), gate],
        reasoning_effort=ReasoningEffort.OFF,
    )
    events: list[AgentEvent] = []
    async for event in agent.stream("change things", config=CONFIG):
        events.append(event)
        if event.type is AgentEventType.CUSTOM and event.name == "edit_approval_requested":
            payload = event.payload or {}
            assert event.tool_calls and event.tool_calls[0].id == payload["tool_call_id"]
            answer = ExternalEvent("edit_approval_response", reply(payload))
            assert agent.emit_external_event(answer, config=CONFIG) == ["EditApprovalExtension"]
    return Run(gate, model, events)


def edit_step(call_id: str, path: str, old: str, new: str) -> Step:
    return tool_step(call_id, "edit", {"path": path, "edits": [{"old_text": old, "new_text": new}]})


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


@pytest.fixture
def script(project_dir: Path) -> Path:
    path = project_dir / "run.sh"
    path.write_text("#!/bin/sh\necho one\necho end\n")
    path.chmod(0o755)
    return path


async def test_an_applied_edit_shows_a_diff_and_keeps_the_file_executable(script: Path) -> None:
    run = await run_steps(edit_step("e1", "run.sh", "echo one", "echo two"))
    [asked] = run.asked
    assert asked["session_id"] == SESSION and asked["tool_call_id"] == "e1"
    assert asked["tool"] == "edit" and asked["operation"] == "edit"
    assert asked["path"] == "run.sh" and asked["absolute_path"] == str(script.resolve())
    assert asked["response_event"] == "edit_approval_response"
    assert asked["outside_project"] is False
    assert asked["diff"].splitlines()[:3] == ["--- a/run.sh", "+++ b/run.sh", "@@ -1,3 +1,3 @@"]
    assert "-echo one\n+echo two\n" in asked["diff"]
    assert (asked["added"], asked["removed"]) == (1, 1)
    assert script.read_text() == "#!/bin/sh\necho two\necho end\n"
    assert mode_of(script) == 0o755
    assert "Replaced 1 occurrence" in run.tool_result()


async def test_a_rejected_edit_leaves_the_file_and_tells_the_model_the_note(script: Path) -> None:
    before = script.read_bytes()

    def reject(payload: dict[str, Any]) -> dict[str, Any]:
        return {"tool_call_id": payload["tool_call_id"], "decision": "reject", "note": "use printf instead"}

    run = await run_steps(edit_step("e1", "run.sh", "echo one", "echo two"), reply=reject)
    assert len(run.asked) == 1
    assert script.read_bytes() == before and mode_of(script) == 0o755
    result = run.tool_result()
    assert "The user did not apply this edit to run.sh" in result
    assert "Their note: use printf instead" in result


async def test_apply_all_stops_asking_for_the_session(script: Path) -> None:
    def apply_all(payload: dict[str, Any]) -> dict[str, Any]:
        return {"tool_call_id": payload["tool_call_id"], "decision": "apply_all"}

    run = await run_steps(
        edit_step("e1", "run.sh", "echo one", "echo two"),
        edit_step("e2", "run.sh", "echo end", "echo fin"),
        reply=apply_all,
    )
    assert [p["tool_call_id"] for p in run.asked] == ["e1"]
    assert script.read_text() == "#!/bin/sh\necho two\necho fin\n"
    assert run.gate.approves_all(SESSION)
    run.gate.reset(SESSION)
    again = await run_steps(edit_step("e3", "run.sh", "echo fin", "echo bye"), gate=run.gate)
    assert [p["tool_call_id"] for p in again.asked] == ["e3"]


async def test_a_new_file_shows_as_all_added_and_gets_normal_permissions(project_dir: Path) -> None:
    run = await run_steps(tool_step("w1", "write_file", {"path": "pkg/new.py", "content": "a = 1\nb = 2"}))
    [asked] = run.asked
    assert asked["operation"] == "create" and asked["tool"] == "write_file"
    assert asked["diff"] == (
        "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n\\ No newline at end of file\n"
    )
    assert (asked["added"], asked["removed"]) == (2, 0)
    created = project_dir / "pkg" / "new.py"
    assert created.read_text() == "a = 1\nb = 2"
    assert mode_of(created) == 0o666 & ~umask()


async def test_overwriting_a_file_keeps_its_mode(script: Path) -> None:
    run = await run_steps(tool_step("w1", "write_file", {"path": "run.sh", "content": "#!/bin/sh\n"}))
    [asked] = run.asked
    assert asked["operation"] == "write" and (asked["added"], asked["removed"]) == (0, 2)
    assert script.read_text() == "#!/bin/sh\n" and mode_of(script) == 0o755


async def test_a_delete_shows_as_all_removed(script: Path) -> None:
    run = await run_steps(tool_step("d1", "delete_file", {"path": "run.sh"}))
    [asked] = run.asked
    assert asked["operation"] == "delete"
    assert asked["diff"].startswith("--- a/run.sh\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-#!/bin/sh\n")
    assert (asked["added"], asked["removed"]) == (0, 3)
    assert not script.exists()


async def test_a_rejected_new_file_is_not_created(project_dir: Path) -> None:
    def reject(payload: dict[str, Any]) -> dict[str, Any]:
        return {"tool_call_id": payload["tool_call_id"], "decision": "reject"}

    run = await run_steps(tool_step("w1", "write_file", {"path": "new.txt", "content": "x"}), reply=reject)
    assert not (project_dir / "new.txt").exists()
    assert "did not let you create new.txt" in run.tool_result()


@pytest.mark.parametrize("mode", [PermissionMode.ACCEPT_EDITS, PermissionMode.AUTO])
async def test_accept_edits_and_auto_apply_without_asking(script: Path, mode: PermissionMode) -> None:
    run = await run_steps(edit_step("e1", "run.sh", "echo one", "echo two"), mode=mode)
    assert run.asked == []
    assert "echo two" in script.read_text() and mode_of(script) == 0o755


async def test_an_edit_that_would_fail_does_not_ask(script: Path) -> None:
    before = script.read_bytes()
    run = await run_steps(edit_step("e1", "run.sh", "echo missing", "echo two"))
    assert run.asked == []
    assert script.read_bytes() == before
    assert "Text to replace was not found" in run.tool_result()
    failed = [e for e in run.events if e.type is AgentEventType.TOOL_FAILED]
    assert len(failed) == 1


async def test_a_write_outside_the_project_asks_even_in_auto_mode(project_dir: Path) -> None:
    outside = project_dir.parent / "elsewhere.txt"
    run = await run_steps(
        tool_step("w1", "write_file", {"path": str(outside), "content": "x\n"}), mode=PermissionMode.AUTO
    )
    [asked] = run.asked
    assert asked["outside_project"] is True
    assert asked["diff"].startswith(f"--- /dev/null\n+++ {outside}\n")
    assert outside.read_text() == "x\n"


async def test_an_unknown_decision_fails_the_tool_and_writes_nothing(script: Path) -> None:
    before = script.read_bytes()

    def garbled(payload: dict[str, Any]) -> dict[str, Any]:
        return {"tool_call_id": payload["tool_call_id"], "decision": "yes please"}

    run = await run_steps(edit_step("e1", "run.sh", "echo one", "echo two"), reply=garbled)
    assert script.read_bytes() == before
    assert "Invalid edit approval response" in run.tool_result()


async def test_exempt_paths_pass_straight_through(script: Path) -> None:
    gate = EditApprovalExtension(
        lambda _s: PermissionMode.ASK, is_exempt=lambda _s, path: path.name == "run.sh"
    )
    run = await run_steps(edit_step("e1", "run.sh", "echo one", "echo two"), gate=gate)
    assert run.asked == []
    assert "echo two" in script.read_text()


async def test_parallel_edits_are_asked_and_answered_separately(project_dir: Path) -> None:
    (project_dir / "a.txt").write_text("a\n")
    (project_dir / "b.txt").write_text("b\n")

    def only_b(payload: dict[str, Any]) -> dict[str, Any]:
        decision = "apply" if payload["path"] == "b.txt" else "reject"
        return {"tool_call_id": payload["tool_call_id"], "decision": decision}

    batch = tools_step(
        [
            ("ea", "edit", {"path": "a.txt", "edits": [{"old_text": "a", "new_text": "A"}]}),
            ("eb", "edit", {"path": "b.txt", "edits": [{"old_text": "b", "new_text": "B"}]}),
        ]
    )
    run = await run_steps(batch, reply=only_b)
    assert sorted(p["tool_call_id"] for p in run.asked) == ["ea", "eb"]
    assert (project_dir / "a.txt").read_text() == "a\n"
    assert (project_dir / "b.txt").read_text() == "B\n"


@pytest.mark.parametrize(
    "path", [".envrc", "services/api/.envrc", "sub/.vscode/tasks.json", ".mcp.json", "a/.hg/hgrc"]
)
async def test_an_edit_that_writes_a_name_that_runs_later_asks_even_in_auto_mode(
    project_dir: Path, path: str
) -> None:
    """What a sandboxed command may not leave behind (``left_behind.LATER_NAMES``), in any folder,
    an auto-approved edit may not write either."""
    run = await run_steps(
        tool_step("w1", "write_file", {"path": path, "content": "touch ~/pwned\n"}), mode=PermissionMode.AUTO
    )
    [asked] = run.asked
    assert "runs or loads later" in asked["protected"]
