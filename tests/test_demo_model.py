"""The offline demo model, run through a real Agent with the file tools the app registers."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from zett_agent.agent import Agent, AgentRunConfig
from zett_agent.extensions import CodingExtension, FileSystemExtension, ShellApprovalExtension
from zett_agent.extensions.external import ExternalEvent
from zett_agent.extensions.memory import InMemoryMessageAccumulator
from zett_agent.messages import UserMessage
from zett_agent.model import AgentModel, ModelEventType, ModelRequest, ModelUsage

from zett_tui.providers.demo import DEMO_NOTICE, DemoModel


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app.py").write_text("print('hi')\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n")
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@dataclass
class Seen:
    text: str = ""
    reasoning: str = ""
    text_deltas: int = 0
    started: list[tuple[str, dict[str, object]]] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    usage: list[ModelUsage] = field(default_factory=list)


async def run(agent: Agent, prompt: str, *, decline_shell: bool = False) -> Seen:
    seen = Seen()
    async for event in agent.stream(prompt):
        match event.type:
            case "text_delta":
                seen.text += event.delta
                seen.text_deltas += 1
            case "reasoning_delta":
                seen.reasoning += event.delta
            case "tool_started":
                seen.started.extend((call.name, dict(call.arguments)) for call in event.tool_calls)
            case "tool_completed":
                seen.completed.extend(call.name for call in event.tool_calls)
            case "tool_failed":
                seen.failed.extend(call.name for call in event.tool_calls)
            case "model_completed" if event.response is not None:
                seen.usage.append(event.response.usage)
            case "custom" if event.name == "shell_approval_requested" and decline_shell and event.payload:
                reply = {"tool_call_id": event.payload["tool_call_id"], "decision": "abort"}
                agent.emit_external_event(
                    ExternalEvent("shell_approval_response", reply),
                    config=AgentRunConfig(session_id=event.session_id),
                )
    return seen


async def test_a_turn_looks_with_glob_and_answers_in_markdown(project: Path) -> None:
    agent = await Agent.create(
        DemoModel(delay=0), extensions=[InMemoryMessageAccumulator(), FileSystemExtension(read_only=True)]
    )

    seen = await run(agent, "What is this project?")

    assert seen.started == [("glob", {"pattern": "*"})]
    assert seen.completed == ["glob"]
    assert "## What is in" in seen.text
    assert "```python\n" in seen.text
    assert "| `app.py` | file |" in seen.text
    assert "| `docs` | folder |" in seen.text
    assert "a Python project" in seen.text
    assert DEMO_NOTICE in seen.text
    assert "offline demo" in seen.reasoning
    assert len(seen.usage) == 2
    assert all(usage.input_tokens > 0 and usage.output_tokens > 0 for usage in seen.usage)


async def test_a_readme_is_read_instead(project: Path) -> None:
    (project / "README.md").write_text("# Sample\n\nA tiny project.\n\n## Usage\n\nRun it.\n")
    agent = await Agent.create(
        DemoModel(delay=0), extensions=[InMemoryMessageAccumulator(), FileSystemExtension(read_only=True)]
    )

    seen = await run(agent, "hello")

    assert [name for name, _ in seen.started] == ["read_file"]
    assert seen.started[0][1]["path"] == "README.md"
    assert seen.completed == ["read_file"]
    assert "its headings include **Sample**, **Usage**" in seen.text
    assert DEMO_NOTICE in seen.text


async def test_asking_to_run_something_proposes_a_shell_command(project: Path) -> None:
    agent = await Agent.create(
        DemoModel(delay=0),
        extensions=[InMemoryMessageAccumulator(), CodingExtension(), ShellApprovalExtension()],
    )

    seen = await run(agent, "Can you run a shell command?", decline_shell=True)

    assert seen.started == [("bash", {"command": "ls -la"})]
    assert seen.failed == ["bash"], "the declined command did not run"
    assert "## The tool did not run" in seen.text
    assert "aborted by user" in seen.text
    assert DEMO_NOTICE in seen.text
    assert not (project / ".zett-tool-output").exists()


async def test_the_conversation_goes_on(project: Path) -> None:
    agent = await Agent.create(
        DemoModel(delay=0), extensions=[InMemoryMessageAccumulator(), FileSystemExtension(read_only=True)]
    )

    first = await run(agent, "one")
    second = await run(agent, "two")

    assert first.completed == ["glob"] and second.completed == ["glob"]
    assert DEMO_NOTICE in second.text


async def test_without_tools_it_answers_directly() -> None:
    model = DemoModel(delay=0)
    events = [event async for event in model.stream(ModelRequest(messages=[UserMessage(content="hi")]))]

    assert [event.type for event in events].count(ModelEventType.RESPONSE) == 1
    assert events[-1].type is ModelEventType.RESPONSE
    response = events[-1].response
    assert response is not None
    assert response.message.tool_calls == ()
    assert "```python" in response.message.content
    assert DEMO_NOTICE in response.message.content
    streamed = "".join(event.delta for event in events if event.type is ModelEventType.TEXT_DELTA)
    assert streamed == response.message.content


async def test_it_streams_in_small_pieces_with_a_pause(project: Path) -> None:
    model = DemoModel(delay=0.001, chunk_size=10)
    assert isinstance(model, AgentModel)
    agent = await Agent.create(
        model, extensions=[InMemoryMessageAccumulator(), FileSystemExtension(read_only=True)]
    )

    seen = await run(agent, "hi")

    assert seen.text_deltas > 40
    assert len(seen.text) / seen.text_deltas < 20


async def test_it_can_be_cancelled_while_streaming(project: Path) -> None:
    agent = await Agent.create(
        DemoModel(delay=0.05), extensions=[InMemoryMessageAccumulator(), FileSystemExtension(read_only=True)]
    )
    first_delta = asyncio.Event()

    async def consume() -> None:
        async for event in agent.stream("hi"):
            if event.type == "text_delta":
                first_delta.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_delta.wait(), timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
