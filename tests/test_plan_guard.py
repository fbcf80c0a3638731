"""Plan Mode made read-only with a real agent: refused writes, the plan file, and the kept plan.

The agent is wired as zett's host should wire it: the guard before the edit gate (middleware
order is registration order), the shell policy told about Plan Mode, and zett-agent's own
Plan Mode extension, whose replacement file and shell tools the middleware must still see.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.events import AgentEvent, AgentEventType
from zett_agent.extensions.bash import BashExtension
from zett_agent.extensions.external import ExternalEvent
from zett_agent.extensions.file_system import FileSystemExtension
from zett_agent.extensions.memory import InMemoryMessageAccumulator
from zett_agent.extensions.plan_mode import PlanModeExtension
from zett_agent.extensions.shell_approval import ShellApprovalExtension
from zett_agent.messages import SystemMessage
from zett_agent.model import ModelRequest, ReasoningEffort

from tests.fakes.scripted_model import ScriptedModel, Step, last_tool_result, text_step, tool_step
from zett_tui.core import paths
from zett_tui.runtime.extensions.loader import load_bundled
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.shell.policy import ShellPolicy, ShellRules

SESSION = "plan-session"
CONFIG = AgentRunConfig(session_id=SESSION)
PlanGuardExtension = load_bundled("plan_guard", "PlanGuardExtension")
EditApprovalExtension = load_bundled("edit_approval", "EditApprovalExtension")
PLAN = "# Plan\n\n1. Change src.py.\n2. Test it."


class Harness:
    def __init__(self, project_dir: Path) -> None:
        self.plan_mode = PlanModeExtension()
        self.guard = PlanGuardExtension(self.plan_mode)
        self.rules = ShellRules(project_dir)
        self.policy = ShellPolicy(
            self.rules, project_dir, lambda _s: PermissionMode.ASK, self.guard.is_active
        )
        self.gate = EditApprovalExtension(lambda _s: PermissionMode.ASK, is_exempt=self.guard.is_plan_file)
        self.replies: dict[str, dict[str, Any]] = {
            "enter_plan_mode": {"approved": True},
            "exit_plan_mode": {"approved": True},
            "shell_approval_requested": {"decision": "execute"},
            "edit_approval_requested": {"decision": "apply"},
        }
        self.asked: list[str] = []
        self.model = ScriptedModel()

    @property
    def plan_file(self) -> Path:
        return self.guard.plan_file(SESSION)

    async def run(self, *steps: Step) -> list[AgentEvent]:
        self.model.add(*steps, text_step("done"))
        agent = await Agent.create(
            self.model,
            config=CONFIG,
            system_prompt="normal prompt",
            extensions=[
                InMemoryMessageAccumulator(),
                FileSystemExtension(read_only=False),
                BashExtension(),
                ShellApprovalExtension(storage=self.policy),
                self.guard,
                self.gate,
                self.plan_mode,
            ],
            reasoning_effort=ReasoningEffort.OFF,
        )
        events: list[AgentEvent] = []
        async for event in agent.stream("plan the change", config=CONFIG):
            events.append(event)
            request = event.payload or {}
            if event.type is AgentEventType.CUSTOM and "response_event" in request:
                self.asked.append(event.name or "")
                payload = {"tool_call_id": request["tool_call_id"], **self.replies[event.name or ""]}
                if event.name in ("enter_plan_mode", "exit_plan_mode"):
                    payload["session_id"] = SESSION  # Plan Mode's reply is strict: exactly these keys
                reply = ExternalEvent(request["response_event"], payload)
                assert agent.emit_external_event(reply, config=CONFIG)
        return events


def tool_names(request: ModelRequest) -> set[str]:
    return {tool.name for tool in request.tools}


def plan_notes(request: ModelRequest) -> list[str]:
    return [
        m.content for m in request.messages if isinstance(m, SystemMessage) and "# Plan file" in m.content
    ]


@pytest.fixture
def harness(project_dir: Path) -> Harness:
    return Harness(project_dir)


async def test_plan_mode_refuses_writes_allows_the_plan_file_and_keeps_the_plan(
    harness: Harness, project_dir: Path
) -> None:
    harness.rules.add("prefix", "echo")
    plan_file = harness.plan_file
    await harness.run(
        tool_step("p1", "enter_plan_mode", {"reason": "touches several modules"}),
        tool_step("w1", "write_file", {"path": "src.py", "content": "print('too early')\n"}),
        tool_step("w2", "write_file", {"path": str(plan_file), "content": "# Draft\n"}),
        tool_step("b1", "bash", {"command": "echo looking-around"}),
        tool_step("x1", "exit_plan_mode", {"plan": PLAN}),
    )
    requests = harness.model.requests
    entered = last_tool_result(requests[1])
    assert '"entered": true' in entered and str(plan_file) in entered
    assert {"write_file", "bash", "exit_plan_mode"} <= tool_names(requests[1])
    assert plan_notes(requests[1]) and str(plan_file) in plan_notes(requests[1])[0]

    refused = last_tool_result(requests[2])
    assert "Plan Mode is read-only" in refused and "exit_plan_mode(plan=...)" in refused
    assert str(plan_file) in refused
    assert not (project_dir / "src.py").exists()

    assert last_tool_result(requests[3]).startswith("Created")
    assert "looking-around" in last_tool_result(requests[4])
    # The rule for `echo` did not apply in Plan Mode; the draft needed no edit approval.
    assert harness.asked == ["enter_plan_mode", "shell_approval_requested", "exit_plan_mode"]

    exited = last_tool_result(requests[5])
    assert '"exited": true' in exited and str(plan_file) in exited
    assert plan_file.read_text() == PLAN + "\n"
    assert stat.S_IMODE(plan_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(plan_file.parent.stat().st_mode) == 0o700
    assert plan_file.parent == paths.data_dir() / "plans"
    assert not harness.guard.is_active(SESSION)
    assert plan_notes(requests[5]) == []
    assert "enter_plan_mode" in tool_names(requests[5])


async def test_a_rejected_plan_is_not_kept_and_plan_mode_stays_on(
    harness: Harness, project_dir: Path
) -> None:
    harness.replies["exit_plan_mode"] = {"approved": False}
    await harness.run(
        tool_step("p1", "enter_plan_mode", {"reason": "big"}),
        tool_step("x1", "exit_plan_mode", {"plan": PLAN}),
    )
    assert "The user requested more planning" in last_tool_result(harness.model.requests[-1])
    assert not harness.plan_file.exists()
    assert harness.guard.is_active(SESSION)

    await harness.run(tool_step("d1", "delete_file", {"path": "anything.txt"}))
    assert "Plan Mode is read-only" in last_tool_result(harness.model.requests[-1])


async def test_the_ui_can_switch_plan_mode_on_and_off(harness: Harness, project_dir: Path) -> None:
    harness.guard.set_plan_mode(SESSION, True)
    assert harness.guard.is_active(SESSION)
    await harness.run(
        tool_step("e1", "edit", {"path": "src.py", "edits": [{"old_text": "a", "new_text": "b"}]})
    )
    first = harness.model.requests[0]
    assert "exit_plan_mode" in tool_names(first) and "enter_plan_mode" not in tool_names(first)
    assert plan_notes(first)
    assert "Plan Mode is read-only" in last_tool_result(harness.model.requests[1])

    harness.guard.set_plan_mode(SESSION, False)
    await harness.run(tool_step("w1", "write_file", {"path": "src.py", "content": "b\n"}))
    request = harness.model.requests[2]
    assert "enter_plan_mode" in tool_names(request) and plan_notes(request) == []
    assert (project_dir / "src.py").read_text() == "b\n"
    assert harness.asked == ["edit_approval_requested"]
