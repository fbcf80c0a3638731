"""Stopping a turn always ends it, even when the runtime ignores the first cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import pytest
from zett_agent.messages import AssistantMessage
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse

from tests.fakes.scripted_model import ScriptedModel, text_step, usage
from zett_tui.runtime import turn_stop
from zett_tui.runtime.events import TextChunk, TurnFinished, UIEvent
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
    monkeypatch.setattr(turn_stop, "STOP_AT_EVENT_SECONDS", 0.01)
    monkeypatch.setattr(turn_stop, "RECANCEL_AFTER_SECONDS", 0.01)
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
    turn = asyncio.ensure_future(tool_cleanup())
    stopping = asyncio.create_task(turn_stop.stop_turn(turn, state))
    await asyncio.sleep(0.2)
    assert cancellations == 1 and not stopping.done()
    state.tools_running.clear()
    await asyncio.sleep(0.05)
    assert cancellations >= 2
    release.set()
    await asyncio.wait_for(stopping, 5)


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


async def test_a_cancelled_turn_whose_teardown_is_cut_short_is_still_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The runtime writes a cancelled turn's line from its cancellation notice, sent while the run
    is torn down. A slow teardown (a loaded machine, a slow disk) outlasts the host's patience,
    which cancels again; that second cancellation ended the notice before it reached the
    transcript, and the turn was missing (seen in ``zett acp`` under load)."""
    from zett_agent.extensions.base import AgentExtension
    from zett_agent.extensions.events import RunCancelledEvent

    monkeypatch.setattr(turn_stop, "STOP_AT_EVENT_SECONDS", 0.01)
    monkeypatch.setattr(turn_stop, "RECANCEL_AFTER_SECONDS", 0.05)

    class SlowTeardown(AgentExtension):
        """Told of the cancellation before the transcript is, and slow about it."""

        name = "slow-teardown"
        priority = -1000

        async def on_event(self, context, event):  # type: ignore[no-untyped-def]
            if isinstance(event, RunCancelledEvent):
                await asyncio.sleep(2)

    gate = asyncio.Event()
    model = ScriptedModel(text_step("partial answer", gate=gate), text_step("next answer"))
    host = AgentHost(
        HostOptions(model_factory=lambda: model, model_label="scripted", extra_extensions=[SlowTeardown()])
    )
    await host.start()
    events: list[UIEvent] = []
    task = asyncio.create_task(host.run_turn("go", events.append))
    while not any(isinstance(event, TextChunk) for event in events):
        await asyncio.sleep(0.01)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=10)
    assert done, "the cancelled turn never ended"
    finished = await host.run_turn("again", lambda event: None)
    await host.aclose()
    assert finished.status == "completed"
    assert host.recorder is not None
    lines = [
        json.loads(line) for line in host.recorder.session_path(host.session_id).read_text().splitlines()
    ]
    assert [line["status"] for line in lines] == ["cancelled", "completed"]
    assert "partial" in json.dumps(lines[0]["messages"])  # what was shown is kept
