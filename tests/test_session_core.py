"""The session core without a screen (``runtime.session``): one turn at a time, the queue, the
questions put to an ``Asker`` one at a time, a mode change settling a waiting question, cancel."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest

from tests.fakes.host import HostFactory, wait_until
from tests.fakes.scripted_model import ScriptedModel, text_step, tool_step, tools_step
from zett_tui.runtime.decisions import EditRequest, Reply, Request, ShellReply, ShellRequest
from zett_tui.runtime.decisions.plan import EnterPlanRequest, PlanReply
from zett_tui.runtime.events import TextChunk, ToolFinished, UIEvent
from zett_tui.runtime.modes import PermissionMode
from zett_tui.runtime.session import (
    NOTHING_TO_COMPACT,
    Activity,
    DecisionAnswered,
    SessionBusy,
    SessionCore,
    describe_activity,
)


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


# -- what the chat screen runs on (issue 29): state, answers, the queue, steering ------------------


def activity_trail(core: SessionCore) -> list[str]:
    """Each change of the core's state as the status line would say it (``describe_activity``)."""
    trail: list[str] = []

    def changed() -> None:
        said = describe_activity(core.activity, core.tools)
        if not trail or trail[-1] != said:
            trail.append(said)

    core.state_listeners.append(changed)
    return trail


async def test_the_activity_follows_the_turn_and_names_the_tools_running(hosts: HostFactory) -> None:
    model = ScriptedModel(tool_step("c1", "bash", {"command": "echo hi"}), text_step("done"))
    host = await hosts(model)
    asker = ScriptedAsker(True)
    core, _events = core_of(host, asker)
    trail = activity_trail(core)
    assert (await core.prompt("go")).status == "completed"
    assert trail == [
        "thinking",
        "running bash",
        "waiting for you",
        "working",  # answered: the command runs
        "thinking",
        "writing",
        "idle",
    ]
    assert core.activity is Activity.IDLE and core.tools == ""


async def test_an_answer_the_runtime_took_is_told_and_one_settled_says_by_what(
    hosts: HostFactory, project_dir: Path
) -> None:
    """The asker's answer, and the second command settled by the mode chosen while it waited:
    each is told once to ``answer_listeners`` (the chat keeps its one-line record from them)."""
    model = ScriptedModel(
        tools_step([("c1", "bash", {"command": "echo one"}), ("c2", "bash", {"command": "echo two"})]),
        text_step("done"),
    )
    host = await hosts(model)
    hold = asyncio.Event()
    asker = ScriptedAsker(True, hold=hold)
    core, _events = core_of(host, asker)
    answered: list[DecisionAnswered] = []
    core.answer_listeners.append(answered.append)
    turn = asyncio.create_task(core.prompt("go"))
    await wait_until(lambda: core.asking is not None and core.pending_decisions == 1)
    assert core.asking.payload["command"] == "echo one"
    assert [decision.payload["command"] for decision in core.waiting] == ["echo two"]
    core.set_mode(PermissionMode.AUTO)
    assert [(a.decision.payload["command"], bool(a.settled_by)) for a in answered] == [("echo two", True)]
    hold.set()
    assert (await turn).status == "completed"
    assert [(a.decision.payload["command"], a.settled_by) for a in answered][1] == ("echo one", "")
    assert all(isinstance(a.reply, ShellReply) and a.reply.run for a in answered)
    assert core.asking is None and not core.waiting


async def test_a_late_answer_is_not_told(hosts: HostFactory) -> None:
    """Another answer got there first: the asker's is refused by the runtime, and nobody records it."""
    host = await hosts(ScriptedModel(tool_step("c1", "bash", {"command": "echo once"}), text_step("ran")))
    hold = asyncio.Event()
    asker = ScriptedAsker(False, hold=hold)
    core, _events = core_of(host, asker)
    answered: list[DecisionAnswered] = []
    core.answer_listeners.append(answered.append)
    turn = asyncio.create_task(core.prompt("go"))
    await wait_until(lambda: core.asking is not None)
    assert core.asking is not None and host.answer(core.asking, ShellReply("c1", run=True))
    hold.set()
    assert (await turn).status == "completed"
    assert answered == []


async def test_cancelling_cancels_the_question_being_asked(hosts: HostFactory) -> None:
    """The asker's ``ask`` is cancelled (a dialog closes), the questions behind it are dropped."""
    model = ScriptedModel(
        tools_step([("c1", "bash", {"command": "echo one"}), ("c2", "bash", {"command": "echo two"})]),
        text_step("x"),
    )
    host = await hosts(model)
    cancelled = asyncio.Event()

    class Waits:
        async def ask(self, request: Request) -> Reply:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise
            raise AssertionError("never answered")

    core = SessionCore(host, Waits())
    turn = asyncio.create_task(core.prompt("go"))
    await wait_until(lambda: core.asking is not None and core.pending_decisions == 1)
    assert core.cancel()
    assert (await turn).status == "cancelled"
    await asyncio.wait_for(cancelled.wait(), 5)
    assert core.asking is None and not core.waiting and core.activity is Activity.IDLE


async def test_steering_is_listed_until_delivered_and_a_dialog_note_is_not(hosts: HostFactory) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("working", gate=gate), text_step("steered"))
    host = await hosts(model)
    core, events = core_of(host, ScriptedAsker())
    assert not core.steer("too early") and not core.queued.pending_steers
    turn = asyncio.create_task(core.prompt("go"))
    await wait_until(lambda: bool(events))
    assert core.steer("also add tests")
    assert core.tell("a dialog's note")
    assert core.queued.pending_steers == ["also add tests"]
    gate.set()
    assert (await turn).status == "completed"
    assert core.queued.pending_steers == []
    assert not core.steer("too late")


async def test_up_takes_queued_prompts_back_one_by_one(hosts: HostFactory) -> None:
    """The core's queue is the chat's: Up on a taken-back prompt, unedited, puts it back and
    takes the one before it."""
    host = await hosts(ScriptedModel())
    core, _events = core_of(host, ScriptedAsker())
    for text in ("one", "two", "three"):
        core.queue(text)
    assert core.take_back() == "three"
    assert core.queued.take_back("three") == "two"
    assert list(core.queued) == ["one", "three"]
    assert core.queued.put_back("two") and list(core.queued) == ["one", "two", "three"]


async def test_compact_with_nothing_older_says_so(hosts: HostFactory) -> None:
    model = ScriptedModel(text_step("done"))
    host = await hosts(model)
    core, _events = core_of(host, ScriptedAsker())
    trail = activity_trail(core)
    assert (await core.compact()).answer == NOTHING_TO_COMPACT
    assert trail[0] == "compacting" and trail[-1] == "idle"


async def test_a_mode_changed_on_the_host_directly_settles_when_the_core_is_told(
    hosts: HostFactory,
) -> None:
    """The chat's commands tell the host; ``mode_changed`` then settles what waits, and the
    state listeners (the status line's binding) hear the new mode."""
    model = ScriptedModel(
        tools_step([("c1", "bash", {"command": "echo one"}), ("c2", "bash", {"command": "echo two"})]),
        text_step("done"),
    )
    host = await hosts(model)
    hold = asyncio.Event()
    core, _events = core_of(host, ScriptedAsker(True, hold=hold))
    modes: list[PermissionMode] = []
    core.state_listeners.append(lambda: modes.append(core.mode))
    turn = asyncio.create_task(core.prompt("go"))
    await wait_until(lambda: core.asking is not None and core.pending_decisions == 1)
    host.set_mode(PermissionMode.AUTO)
    assert core.pending_decisions == 1  # the host alone does not know the queue
    core.mode_changed()
    assert core.pending_decisions == 0 and modes[-1] is PermissionMode.AUTO
    hold.set()
    assert (await turn).status == "completed"


class ApprovingPlans:
    """Lets the model into Plan Mode; nothing else is asked in these tests."""

    async def ask(self, request: Request) -> Reply:
        assert isinstance(request, EnterPlanRequest)
        return PlanReply(request.session_id, request.tool_call_id, approved=True)


async def test_plan_mode_the_model_enters_reaches_the_cores_state_without_a_front_end(
    hosts: HostFactory,
) -> None:
    """The core owns the mode: when the runtime's Plan Mode changes it, the state listeners (the
    status line's binding, ACP's ``current_mode_update``) hear it from the core itself."""
    model = ScriptedModel(tool_step("p1", "enter_plan_mode", {"reason": "Big."}), text_step("Planning."))
    host = await hosts(model)
    core = SessionCore(host, ApprovingPlans())
    states: list[tuple[object, ...]] = []
    core.state_listeners.append(lambda: states.append((core.mode, core.activity, core.tools, core.context)))
    assert (await core.prompt("plan it")).status == "completed"
    assert core.mode is PermissionMode.PLAN
    # told of the mode when it changed: a change of state that is the mode's alone
    changes = [(before, after) for before, after in itertools.pairwise(states)]
    assert any(
        after[0] is PermissionMode.PLAN and before[0] is not PermissionMode.PLAN and before[1:] == after[1:]
        for before, after in changes
    ), states


async def test_between_turns_the_agent_holds_none_of_the_dialogue_and_each_turn_restores_it(
    hosts: HostFactory,
) -> None:
    """The Agent kept the last request's state, every message decoded, until the next turn: a second
    copy of the whole dialogue, growing with the session. Between turns it holds none of it."""
    turns = 30
    model = ScriptedModel(*(text_step(f"answer {number}") for number in range(turns)))
    host = await hosts(model)
    core, _ = core_of(host, ScriptedAsker())
    for number in range(turns):
        assert (await core.prompt(f"question {number}")).status == "completed"
        state = host.agent.get_state(host.session_id)
        assert state is not None and len(state.messages) == 0
        assert len(host.agent.state.messages) == 0
        assert not host.agent.is_conflict(host.session_id)
    said = [
        message.content for message in model.requests[-1].messages if message.role in ("user", "assistant")
    ]
    assert said[-3:] == [f"question {turns - 2}", f"answer {turns - 2}", f"question {turns - 1}"]
    assert len(said) == 2 * turns - 1  # the last request saw the whole dialogue, restored


async def test_a_cancelled_turn_leaves_the_agent_no_copy_and_the_next_one_sees_it(hosts: HostFactory) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("never ends", gate=gate), text_step("fine"))
    host = await hosts(model)
    core, events = core_of(host, ScriptedAsker())
    turn = asyncio.create_task(core.prompt("long"))
    await wait_until(lambda: bool(events))
    assert core.cancel()
    assert (await turn).status == "cancelled"
    assert len(host.agent.get_state(host.session_id).messages) == 0
    assert (await core.prompt("again")).status == "completed"
    said = [message.content for message in model.requests[-1].messages if message.role == "user"]
    assert said[-2:] == ["long", "again"]
