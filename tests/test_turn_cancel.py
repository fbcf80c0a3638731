"""Stopping a turn always ends it, even when the runtime ignores the first cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from zett_agent.agent import AgentRunContext
from zett_agent.extensions.base import AgentExtension
from zett_agent.extensions.events import ExtensionEvent, RunCancelledEvent
from zett_agent.messages import AssistantMessage
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse

from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step, usage
from zett_tui.runtime import turn_stop
from zett_tui.runtime.events import DecisionRequested, TextChunk, TurnFinished, UIEvent
from zett_tui.runtime.host import AgentHost, HostOptions


def swallowing_step() -> object:
    """Streams one delta, then drops the cancellation that reaches it and streams on.

    That is what ``asyncio.wait_for`` does on Python 3.11 when the read it waits for completes in
    the same instant as the cancellation (zett-agent bounds every model read with it).
    """

    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        yield ModelEvent.text("first part")
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)
        yield ModelEvent.text(" and more after the dropped cancellation")
        message = AssistantMessage(content="first part and more")
        yield ModelEvent.completed(ModelResponse(message, finish_reason="stop", usage=usage()))

    return step


async def start_host(model: ScriptedModel) -> AgentHost:
    host = AgentHost(HostOptions(model_factory=lambda: model, model_label="scripted"))
    await host.start()
    return host


async def test_a_turn_that_ignores_the_cancellation_is_cancelled_again_and_recorded() -> None:
    model = ScriptedModel(swallowing_step(), text_step("next answer"))
    host = await start_host(model)
    events: list[UIEvent] = []
    task = asyncio.create_task(host.run_turn("go", events.append))
    while not any(isinstance(event, TextChunk) for event in events):
        await asyncio.sleep(0.01)
    task.cancel()
    # Without the second cancellation this wait never ends; 10 s only guards the test run.
    done, _ = await asyncio.wait({task}, timeout=10)
    assert done, "the cancelled turn never ended"
    with pytest.raises(asyncio.CancelledError):
        task.result()
    assert [event.status for event in events if isinstance(event, TurnFinished)] == ["cancelled"]

    finished = await host.run_turn("again", lambda event: None)
    await host.aclose()
    assert finished.status == "completed"
    assert host.recorder is not None
    lines = host.recorder.session_path(host.session_id).read_text().splitlines()
    assert [json.loads(line)["status"] for line in lines] == ["cancelled", "completed"]


async def test_no_second_cancellation_while_a_tool_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool's clean-up (stopping its process) is never hurried: not by the quiet run's second
    cancellation, not by the teardown's limit; once no tool runs, the limit applies."""
    monkeypatch.setattr(turn_stop, "STOP_AT_EVENT_SECONDS", 0.01)
    monkeypatch.setattr(turn_stop, "RECANCEL_SILENT_SECONDS", 0.01)
    monkeypatch.setattr(turn_stop, "TEARDOWN_LIMIT_SECONDS", 0.05)
    cancellations = 0
    release = asyncio.Event()

    async def tool_cleanup() -> None:
        nonlocal cancellations
        while True:
            try:
                await release.wait()
                return
            except asyncio.CancelledError:
                cancellations += 1

    state = turn_stop.TurnState(tools_running={"call-1"})
    run = asyncio.ensure_future(tool_cleanup())
    turn = asyncio.ensure_future(asyncio.wait_for(asyncio.shield(run), 3600))
    try:
        stopping = asyncio.create_task(turn_stop.stop_turn(turn, state, turn_stop.WatchedRun(run)))
        await asyncio.sleep(0.3)
        assert cancellations == 1 and not stopping.done() and not turn.done()
        state.tools_running.clear()
        await asyncio.wait_for(stopping, 5)
        assert turn.cancelled()  # cut short at the limit
    finally:
        release.set()
        await run


async def test_a_turn_that_keeps_streaming_stops_at_its_next_event(monkeypatch: pytest.MonkeyPatch) -> None:
    """While events flow the turn is never cancelled inside a model read: it stops between events."""
    monkeypatch.setattr(turn_stop, "STOP_AT_EVENT_SECONDS", 30.0)
    model = ScriptedModel(text_step("x" * 4000, chunk=4, delay=0.001))
    host = await start_host(model)
    events: list[UIEvent] = []
    task = asyncio.create_task(host.run_turn("go", events.append))
    while sum(isinstance(event, TextChunk) for event in events) < 5:
        await asyncio.sleep(0.005)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=10)
    await host.aclose()
    assert done
    assert [event.status for event in events if isinstance(event, TurnFinished)] == ["cancelled"]
    assert sum(isinstance(event, TextChunk) for event in events) < 1000


class SlowTeardown(AgentExtension):
    """Told of the cancellation before the other extensions are, and slow about it (a loaded
    machine, a slow disk)."""

    name = "slow-teardown"
    priority = -1000

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.finished = False

    async def on_event(self, context: AgentRunContext, event: ExtensionEvent) -> None:
        if isinstance(event, RunCancelledEvent):
            await asyncio.sleep(self.seconds)
            self.finished = True


class NoticeWitness(AgentExtension):
    """Hears the cancellation notice after every other extension: it went all the way."""

    name = "notice-witness"
    priority = 10**9

    def __init__(self) -> None:
        super().__init__()
        self.heard = 0

    async def on_event(self, context: AgentRunContext, event: ExtensionEvent) -> None:
        if isinstance(event, RunCancelledEvent):
            self.heard += 1


async def cancel_when(task: asyncio.Task[TurnFinished], ready: Callable[[], bool]) -> None:
    while not ready():
        await asyncio.sleep(0.01)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=10)  # 10 s only guards the test run
    assert done, "the cancelled turn never ended"


def turn_lines(host: AgentHost) -> list[dict[str, Any]]:
    assert host.recorder is not None
    text = host.recorder.session_path(host.session_id).read_text()
    return [json.loads(line) for line in text.splitlines()]


async def test_a_slow_teardown_is_not_cancelled_again_and_the_runtime_records_the_turn(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The runtime answers a cancellation with a notice every extension hears (the transcript
    writes the turn's line, the history and the checkpoints close their records). A teardown
    slower than the host's patience (a loaded machine) was cancelled a second time, which ended
    the notice half way: the extensions after the slow one never heard it."""
    monkeypatch.setattr(turn_stop, "STOP_AT_EVENT_SECONDS", 0.01)
    slow, witness = SlowTeardown(0.6), NoticeWitness()
    gate = asyncio.Event()
    model = ScriptedModel(text_step("partial answer", gate=gate), text_step("next answer"))
    host = AgentHost(
        HostOptions(model_factory=lambda: model, model_label="scripted", extra_extensions=[slow, witness])
    )
    await host.start()
    events: list[UIEvent] = []
    task = asyncio.create_task(host.run_turn("go", events.append))
    with caplog.at_level(logging.WARNING):
        await cancel_when(task, lambda: any(isinstance(event, TextChunk) for event in events))
    assert slow.finished and witness.heard == 1
    assert "cancelling it again" not in caplog.text
    assert "never recorded the cancelled turn" not in caplog.text  # no safety net needed
    assert [event.status for event in events if isinstance(event, TurnFinished)] == ["cancelled"]

    finished = await host.run_turn("again", lambda event: None)
    await host.aclose()
    assert finished.status == "completed"
    lines = turn_lines(host)
    assert [line["status"] for line in lines] == ["cancelled", "completed"]
    assert "partial" in json.dumps(lines[0]["messages"])  # what was shown is kept
    history = [(type(message).__name__, message.content) for message in model.requests[1].messages]
    assert ("UserMessage", "go") in history  # the cancelled prompt stays in the model's context


async def test_a_turn_cancelled_during_a_tool_keeps_its_history_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cancelled while a tool waits (here for the user's answer), with a slow teardown: the run's
    own task is cancelled, the tool's call is answered as cancelled in the history, and the
    notice reaches every extension."""
    monkeypatch.setattr(turn_stop, "STOP_AT_EVENT_SECONDS", 0.01)
    slow, witness = SlowTeardown(0.3), NoticeWitness()
    model = ScriptedModel(tool_step("q1", "ask_user", {"question": "Which name?"}), text_step("next answer"))
    host = AgentHost(
        HostOptions(model_factory=lambda: model, model_label="scripted", extra_extensions=[slow, witness])
    )
    await host.start()
    events: list[UIEvent] = []
    task = asyncio.create_task(host.run_turn("go", events.append))
    await cancel_when(task, lambda: any(isinstance(event, DecisionRequested) for event in events))
    assert slow.finished and witness.heard == 1

    finished = await host.run_turn("again", lambda event: None)
    await host.aclose()
    assert finished.status == "completed"
    assert [line["status"] for line in turn_lines(host)] == ["cancelled", "completed"]
    kinds = [type(message).__name__ for message in model.requests[1].messages]
    assert kinds[-4:] == ["UserMessage", "AssistantMessage", "ToolMessage", "UserMessage"]
    tool_result = model.requests[1].messages[-2]
    assert "cancelled" in str(tool_result.content)


def quiet_after_swallowing_step() -> object:
    """Streams one delta, drops the cancellation that reaches it, and then waits without a word
    (a model read that hangs after gh-86296 dropped the cancellation)."""

    async def step(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        yield ModelEvent.text("first part")
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(3600)
        await asyncio.sleep(3600)
        yield ModelEvent.completed(ModelResponse(AssistantMessage(content="never"), usage=usage()))

    return step


async def test_a_run_that_drops_the_cancellation_and_goes_quiet_is_cancelled_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(turn_stop, "RECANCEL_SILENT_SECONDS", 0.2)
    witness = NoticeWitness()
    model = ScriptedModel(quiet_after_swallowing_step(), text_step("next answer"))
    host = AgentHost(
        HostOptions(model_factory=lambda: model, model_label="scripted", extra_extensions=[witness])
    )
    await host.start()
    events: list[UIEvent] = []
    task = asyncio.create_task(host.run_turn("go", events.append))
    await cancel_when(task, lambda: any(isinstance(event, TextChunk) for event in events))
    assert witness.heard == 1
    finished = await host.run_turn("again", lambda event: None)
    await host.aclose()
    assert finished.status == "completed"
    assert [line["status"] for line in turn_lines(host)] == ["cancelled", "completed"]


async def test_a_cancelled_turn_whose_teardown_is_cut_short_is_still_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An extension that hangs over the cancellation notice is cut short at the limit; the turn's
    line, which the runtime's notice did not reach, is written by the recorder itself."""
    monkeypatch.setattr(turn_stop, "STOP_AT_EVENT_SECONDS", 0.01)
    monkeypatch.setattr(turn_stop, "TEARDOWN_LIMIT_SECONDS", 0.2)
    gate = asyncio.Event()
    model = ScriptedModel(text_step("partial answer", gate=gate), text_step("next answer"))
    host = AgentHost(
        HostOptions(
            model_factory=lambda: model, model_label="scripted", extra_extensions=[SlowTeardown(3600)]
        )
    )
    await host.start()
    events: list[UIEvent] = []
    task = asyncio.create_task(host.run_turn("go", events.append))
    await cancel_when(task, lambda: any(isinstance(event, TextChunk) for event in events))
    finished = await host.run_turn("again", lambda event: None)
    await host.aclose()
    assert finished.status == "completed"
    lines = turn_lines(host)
    assert [line["status"] for line in lines] == ["cancelled", "completed"]
    assert "partial" in json.dumps(lines[0]["messages"])  # what was shown is kept
