"""The session core without a screen (``runtime.session``): one turn at a time, the queue, the
questions put to an ``Asker`` one at a time, a mode change settling a waiting question, cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.fakes.host import HostFactory, wait_until
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step, tools_step
from zett_tui.runtime.decisions import EditRequest, Reply, Request, ShellReply, ShellRequest
from zett_tui.runtime.events import TextChunk, ToolFinished, UIEvent
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.session import Activity, SessionBusy, SessionCore


class ScriptedAsker:
    """Answers from a list; records what it was asked and how many questions were open at once."""

    def __init__(self, *answers: bool, hold: asyncio.Event | None = None) -> None:
        self.answers = list(answers)
        self.asked: list[Request] = []
        self.open = 0
        self.most_open = 0
        self.hold = hold

    async def ask(self, request: Request) -> Reply:
        self.asked.append(request)
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            if self.hold is not None:
                await self.hold.wait()
            yes = self.answers.pop(0) if self.answers else False
            if yes and isinstance(request, ShellRequest):
                return ShellReply(request.tool_call_id, run=True)
            return request.refuse("scripted no")
        finally:
            self.open -= 1


def core_of(host: object, asker: ScriptedAsker) -> tuple[SessionCore, list[UIEvent]]:
    events: list[UIEvent] = []
    core = SessionCore(host, asker)  # type: ignore[arg-type]
    core.listeners.append(events.append)
    return core, events


async def test_a_turn_streams_to_listeners_and_ends_idle(hosts: HostFactory) -> None:
    host = await hosts(ScriptedModel(text_step("hello there")))
    core, events = core_of(host, ScriptedAsker())
    finished = await core.prompt("hi")
    assert finished.status == "completed"
    assert "".join(event.text for event in events if isinstance(event, TextChunk)) == "hello there"
    assert core.activity is Activity.IDLE and not core.busy


async def test_a_second_prompt_while_one_runs_is_refused_and_queued_ones_run_in_order(
    hosts: HostFactory,
) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("first", gate=gate), text_step("second"), text_step("third"))
    host = await hosts(model)
    core, events = core_of(host, ScriptedAsker())
    turn = asyncio.create_task(core.prompt("one"))
    await wait_until(lambda: bool(events))
    with pytest.raises(SessionBusy):
        await core.prompt("two")
    core.queue("two")
    core.queue("three")
    core.queue("taken back")
    assert core.take_back() == "taken back" and list(core.queued) == ["two", "three"]
    gate.set()
    assert (await turn).status == "completed"
    finished = await core.run_queued()
    assert [result.status for result in finished] == ["completed", "completed"]
    assert not core.queued
    prompts = [request.messages[-1].content for request in model.requests]
    assert prompts == ["one", "two", "three"]


async def test_questions_are_asked_one_at_a_time_and_a_no_is_declined(
    hosts: HostFactory, project_dir: Path
) -> None:
    marker = project_dir / "ran.txt"
    model = ScriptedModel(
        tool_step("c1", "bash", {"command": f"touch {marker}"}),
        tool_step("c2", "write_file", {"path": "new.txt", "content": "x"}),
        text_step("done"),
    )
    host = await hosts(model)
    asker = ScriptedAsker(False, False)
    core, events = core_of(host, asker)
    finished = await core.prompt("go")
    assert finished.status == "completed"
    assert [type(request) for request in asker.asked] == [ShellRequest, EditRequest]
    assert asker.most_open == 1
    assert not marker.exists() and not (project_dir / "new.txt").exists()
    assert [event.state for event in events if isinstance(event, ToolFinished)] == ["failed", "failed"]


async def test_a_mode_that_allows_a_queued_question_settles_it(hosts: HostFactory, project_dir: Path) -> None:
    """Two commands in one batch: the second question waits behind the first; switching to auto
    while it waits runs it without asking (as the chat's "settled while waiting")."""
    model = ScriptedModel(
        tools_step([("c1", "bash", {"command": "echo one"}), ("c2", "bash", {"command": "echo two"})]),
        text_step("done"),
    )
    host = await hosts(model)
    hold = asyncio.Event()
    asker = ScriptedAsker(True, hold=hold)
    core, events = core_of(host, asker)
    turn = asyncio.create_task(core.prompt("go"))
    await wait_until(lambda: core.pending_decisions == 1 and core.activity is Activity.WAITING)
    core.set_mode(PermissionMode.AUTO)
    assert core.pending_decisions == 0
    hold.set()
    assert (await turn).status == "completed"
    assert len(asker.asked) == 1
    assert sorted(event.state for event in events if isinstance(event, ToolFinished)) == ["done", "done"]


async def test_cancel_stops_the_turn_and_the_session_goes_on(hosts: HostFactory) -> None:
    gate = asyncio.Event()
    host = await hosts(ScriptedModel(text_step("never ends", gate=gate), text_step("fine")))
    core, events = core_of(host, ScriptedAsker())
    turn = asyncio.create_task(core.prompt("long"))
    await wait_until(lambda: bool(events))
    assert core.cancel()
    assert (await turn).status == "cancelled"
    assert not core.cancel()
    assert (await core.prompt("again")).status == "completed"


async def test_a_question_waiting_when_the_turn_is_cancelled_is_dropped(
    hosts: HostFactory, project_dir: Path
) -> None:
    marker = project_dir / "ran.txt"
    host = await hosts(ScriptedModel(tool_step("c1", "bash", {"command": f"touch {marker}"}), text_step("x")))
    hold = asyncio.Event()
    asker = ScriptedAsker(True, hold=hold)
    core, _events = core_of(host, asker)
    turn = asyncio.create_task(core.prompt("go"))
    await wait_until(lambda: core.activity is Activity.WAITING)
    core.cancel()
    assert (await turn).status == "cancelled"
    hold.set()
    await asyncio.sleep(0.1)
    assert not marker.exists()


async def test_continue_with_nothing_cut_off_runs_no_turn(hosts: HostFactory) -> None:
    model = ScriptedModel(text_step("done"))
    host = await hosts(model)
    core, _events = core_of(host, ScriptedAsker())
    assert (await core.prompt("hi")).status == "completed"
    finished = await core.continue_turn()
    assert finished.status == "completed" and finished.answer.startswith("Nothing to continue")
    assert len(model.requests) == 1
