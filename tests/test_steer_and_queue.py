"""Steer or queue, from the user's side: Enter during a turn goes into it, Tab waits for it to end,
the list above the prompt shows both, Up takes a queued prompt back, and it all stays in the rules."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.fakes.scripted_model import ScriptedModel, last_tool_result, text_step, tool_step
from tests.ui_helpers import (
    answers,
    blocks_of,
    idle,
    make_app,
    prompts,
    ready_app,
    screen_text,
    submit,
    wait_for,
)
from zett_tui.entry.startup import find_session_to_resume
from zett_tui.ui.widgets.queued_prompts import QueuedPrompts
from zett_tui.ui.widgets.steer_block import SteerBlock


def user_messages(request: Any) -> list[str]:
    return [str(m.content) for m in request.messages if str(getattr(m, "role", "")).endswith("user")]


async def type_and(pilot: Pilot[Any], text: str, key: str) -> None:
    composer = pilot.app.chat.composer
    composer.load_text(text)
    composer.focus()
    await pilot.press(key)


def listed(app: Any) -> str:
    widget = app.chat.query_one(QueuedPrompts)
    return str(widget.render()) if widget.display else ""


async def a_turn_running(pilot: Pilot[Any], gate: asyncio.Event, prompt: str = "first") -> None:
    app = pilot.app
    await submit(pilot, prompt)
    await wait_for(pilot, lambda: app.chat.turns.busy and bool(answers(app)) and bool(answers(app)[0].text))


async def test_enter_during_a_turn_steers_it_and_the_note_shows_where_it_went_in() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("Working on it.", gate=gate), text_step("Steered: with tests."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await a_turn_running(pilot, gate, "write the parser")
        assert "Enter: tell the running turn · Tab: queue for after it" in screen_text(app)
        await type_and(pilot, "also add tests", "enter")
        assert app.chat.composer.text == ""
        assert "↳ into this turn: also add tests" in listed(app)
        assert len(model.requests) == 1  # delivered at the next model call, not a new turn
        gate.set()
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
        assert listed(app) == ""
        assert "Ask zett…  (Enter sends" in screen_text(app)  # idle again
        order = [type(block).__name__ for block in app.chat.transcript.blocks]
        steer_at = order.index("SteerBlock")
        assert order[steer_at - 1] == "AnswerBlock" and order[steer_at + 1] == "AnswerBlock"
        assert blocks_of(app, SteerBlock)[0].plain_text() == "also add tests"
        assert "you, during the turn: also add tests" in screen_text(app)
        assert prompts(app) == ["write the parser"]  # one turn
        assert user_messages(model.requests[1])[-2:] == ["write the parser", "also add tests"]
        session = app.chat.host.session_id
    # recorded in the session, and painted the same way when it is resumed
    found = find_session_to_resume(Path.cwd(), session[:12], continue_last=False)
    lines = [json.loads(line) for line in found.path.read_text().splitlines()]
    contents = [m["data"].get("content") for m in lines[0]["messages"] if m["kind"] == 2]
    assert contents == ["write the parser", "also add tests"]
    again = make_app(ScriptedModel(), session_id=found.session_id, resume_path=found.path)
    async with ready_app(again) as pilot:
        await wait_for(pilot, lambda: bool(blocks_of(again, SteerBlock)))
        assert blocks_of(again, SteerBlock)[0].plain_text() == "also add tests"


async def test_a_steering_message_obeys_plan_mode_like_any_prompt(project_dir: Path) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(
        text_step("Planning.", gate=gate),
        tool_step("w1", "write_file", {"path": "src.py", "content": "print(1)\n"}),
        text_step("Still planning."),
    )
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "/plan on")
        await a_turn_running(pilot, gate, "plan the change")
        await type_and(pilot, "just write src.py now", "enter")
        gate.set()
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 3)
        assert user_messages(model.requests[1])[-1] == "just write src.py now"
        assert "Plan Mode is read-only" in last_tool_result(model.requests[2])
        assert not (project_dir / "src.py").exists()


async def test_the_list_shows_three_entries_then_how_many_more() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("Busy.", gate=gate), *(text_step(f"answer {n}") for n in range(5)))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await a_turn_running(pilot, gate)
        for n in range(5):
            await type_and(pilot, f"later {n}\nsecond line", "tab")
        shown = listed(app).splitlines()
        assert shown[:3] == [f"⏎ after this turn: later {n} ⏎ second line" for n in range(3)]
        assert shown[3].startswith("… 2 more")
        assert app.chat.status.queued == 5
        assert "(5 queued)" in screen_text(app)
        gate.set()
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 6, timeout=20)
        assert listed(app) == ""


async def test_up_takes_a_queued_prompt_back_and_clearing_it_removes_it() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("Busy.", gate=gate), text_step("A done."), text_step("B done."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await a_turn_running(pilot, gate)
        for text in ("A", "B", "C"):
            await type_and(pilot, text, "tab")
        composer, queue = app.chat.composer, app.chat.turns.queue
        await pilot.press("up")
        assert composer.text == "C" and queue.items == ["A", "B"]
        await pilot.press("up")  # C, untouched, goes back to its place; B comes out
        assert composer.text == "B" and queue.items == ["A", "C"]
        await pilot.press("down")  # and back again
        assert composer.text == "" and queue.items == ["A", "B", "C"]
        await pilot.press("up")
        await pilot.press("ctrl+c")  # clears the prompt: C is gone (the turn goes on)
        assert composer.text == "" and queue.items == ["A", "B"] and app.chat.turns.busy
        await pilot.press("up")
        await pilot.press(*" edited")
        await pilot.press("tab")  # queued again, edited
        assert queue.items == ["A", "B edited"]
        gate.set()
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 3)
        assert prompts(app) == ["first", "A", "B edited"]


async def test_the_status_line_counts_only_what_is_still_queued() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("Busy.", gate=gate), text_step("A done."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await a_turn_running(pilot, gate)
        await type_and(pilot, "A", "tab")
        status = app.chat.status
        assert status.queued == 1
        await pilot.press("up")  # taken back into the prompt: no longer queued
        assert app.chat.composer.text == "A" and status.queued == 0
        assert "queued)" not in screen_text(app)
        await pilot.press("down")  # and back in the queue
        assert status.queued == 1
        gate.set()
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
        assert status.queued == 0


async def test_tab_at_idle_does_not_queue_or_send() -> None:
    model = ScriptedModel(text_step("unused"))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await type_and(pilot, "not yet", "tab")
        await pilot.pause()
        assert model.requests == [] and app.chat.turns.queued == 0
        assert app.chat.composer.text == "not yet"


async def test_a_note_not_yet_delivered_comes_back_when_the_turn_is_stopped() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("Never finishes.", gate=gate))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await a_turn_running(pilot, gate)
        await type_and(pilot, "change of plan", "enter")
        assert app.chat.turns.queue.pending_steers == ["change of plan"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app) and app.chat.turns.settled)
        assert app.chat.composer.text == "change of plan"
        assert len(model.requests) == 1 and not blocks_of(app, SteerBlock)
        assert answers(app)[0].status == "cancelled"
