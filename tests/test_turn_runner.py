"""The turn runner's contract, from the user's side: what is sent, when, and what the screen says.

``ChatScreen.turns`` is the only code that starts or stops a turn; these tests drive it through
the composer and the keys, as a user would, and pin what happens to prompts typed meanwhile.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator

import pytest

from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import (
    answers,
    idle,
    make_app,
    notices,
    prompts,
    ready_app,
    submit,
    wait_for,
)

#: A long answer, so there is an older turn for /compact to summarize.
LONG = "word " * 4000
SUMMARY = "The user talked about words; nothing is pending."


@pytest.fixture
def no_tiktoken(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Compaction estimates with zett's own counter: the upstream one would download data."""
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    yield


def sent_prompts(model: ScriptedModel) -> list[str]:
    """The last user message of each request the model was sent."""
    last = []
    for request in model.requests:
        users = [str(m.content) for m in request.messages if str(getattr(m, "role", "")).endswith("user")]
        last.append(users[-1] if users else "")
    return last


async def queue_with_tab(pilot, text: str) -> None:
    """Type ``text`` and press Tab: during a turn, it waits for the turn to end."""
    app = pilot.app
    app.chat.composer.load_text(text)
    app.chat.composer.focus()
    await pilot.press("tab")


async def test_a_prompt_queued_with_tab_during_a_turn_is_sent_when_it_ends() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("First answer, slowly.", gate=gate), text_step("Second answer."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "first")
        await wait_for(pilot, lambda: app.chat.turns.busy and bool(answers(app)))
        await queue_with_tab(pilot, "second")
        assert app.chat.composer.text == ""
        assert app.chat.turns.queued == 1
        assert app.chat.status.queued == 1
        assert prompts(app) == ["first"]  # not in the transcript until its turn starts
        assert len(model.requests) == 1
        gate.set()
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
        assert prompts(app) == ["first", "second"]
        assert [answer.text for answer in answers(app)] == ["First answer, slowly.", "Second answer."]
        assert sent_prompts(model) == ["first", "second"]
        assert app.chat.status.queued == 0


async def test_prompts_typed_before_the_model_is_ready_wait_and_go_out_in_order() -> None:
    release = threading.Event()
    model = ScriptedModel(text_step("Answer one."), text_step("Answer two."))

    def slow_factory() -> ScriptedModel:
        release.wait(10)
        return model

    app = make_app(model, factory=slow_factory)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.chat.composer.has_focus)
        await submit(pilot, "one")
        await submit(pilot, "two")
        assert app.chat.host is None
        assert app.chat.turns.queued == 2 and app.chat.status.queued == 2
        assert not [n for n in app._notifications if "ueued" in n.message]  # the list and status say it
        release.set()
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
        assert prompts(app) == ["one", "two"]
        assert sent_prompts(model) == ["one", "two"]


async def test_stopping_a_turn_sends_nothing_and_the_queued_prompts_come_back_to_the_prompt() -> None:
    """Esc stops the running turn and sends nothing else: what waited is in the prompt, joined,
    before what was being typed, until the user presses Enter."""
    gate = asyncio.Event()
    model = ScriptedModel(text_step("A long answer that never ends", gate=gate), text_step("The queued one."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "long")
        await wait_for(pilot, lambda: bool(answers(app)) and bool(answers(app)[0].text))
        await queue_with_tab(pilot, "queued one")
        await queue_with_tab(pilot, "queued two")
        assert app.chat.turns.queued == 2
        await pilot.press(*"draft")
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app) and app.chat.turns.settled)
        await pilot.pause(0.1)
        assert answers(app)[0].status == "cancelled"
        assert len(model.requests) == 1 and len(answers(app)) == 1
        assert app.chat.composer.text == "queued one\n\nqueued two\n\ndraft"
        assert app.chat.turns.queued == 0 and app.chat.status.queued == 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 2)
        assert sent_prompts(model) == ["long", "queued one\n\nqueued two\n\ndraft"]


async def test_cancel_with_nothing_running_does_nothing() -> None:
    model = ScriptedModel()
    app = make_app(model)
    async with ready_app(app):
        assert app.chat.turns.cancel() is False
        assert app.chat.turns.settled and not app.chat.turns.busy
        assert model.requests == []


async def test_compact_while_idle_runs_as_a_turn_and_a_prompt_typed_meanwhile_waits_for_it(
    no_tiktoken: None,
) -> None:
    gate = asyncio.Event()
    model = ScriptedModel(
        text_step(LONG),
        text_step("short answer"),
        text_step(SUMMARY, gate=gate),
        text_step("after compaction"),
    )
    app = make_app(model)
    async with ready_app(app, size=(120, 40)) as pilot:
        await submit(pilot, "first question")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 1)
        await submit(pilot, "second question")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 2)
        await submit(pilot, "/compact")
        await wait_for(pilot, lambda: app.chat.turns.busy and len(model.requests) == 3)
        assert app.chat.status.activity == "compacting"
        await submit(pilot, "/compact")  # a second one while the first runs is refused, and said
        assert any(n.startswith("A turn is running; /compact again") for n in notices(app))
        await submit(pilot, "third question")
        assert app.chat.turns.queued == 1
        gate.set()
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 4)
        assert any(n.startswith("Compacted: 1 earlier turn summarized") for n in notices(app))
        assert prompts(app) == ["first question", "second question", "third question"]
        assert answers(app)[-1].text == "after compaction"


async def test_continue_while_a_turn_runs_is_refused() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("Busy answering.", gate=gate))
    app = make_app(model)
    async with ready_app(app) as pilot:
        await submit(pilot, "question")
        await wait_for(pilot, lambda: app.chat.turns.busy)
        await submit(pilot, "/continue")
        messages = [notification.message for notification in app._notifications]
        assert "Wait until zett is idle to continue the interrupted turn." in messages
        assert "Continuing…" not in notices(app)
        gate.set()
        await wait_for(pilot, lambda: idle(app))
        assert len(model.requests) == 1


async def test_a_turn_that_fails_inside_zett_ends_as_failed_with_the_error_shown() -> None:
    model = ScriptedModel(text_step("never sent"), text_step("The next turn works."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        host = app.chat.host
        assert host is not None
        real_run_turn = host.run_turn

        async def broken_run_turn(prompt: str, sink: object, **_options: object) -> None:
            raise RuntimeError("a bug in zett")

        host.run_turn = broken_run_turn  # type: ignore[method-assign]
        await submit(pilot, "trigger")
        await wait_for(pilot, lambda: idle(app) and app.chat.turns.settled)
        assert "Internal error: RuntimeError('a bug in zett')" in notices(app)
        assert app.chat.status.activity == "idle"
        host.run_turn = real_run_turn  # type: ignore[method-assign]
        await submit(pilot, "again")
        await wait_for(pilot, lambda: idle(app) and len(answers(app)) == 1)
        assert answers(app)[0].text == "never sent"


async def test_steering_reaches_the_running_turn_only() -> None:
    gate = asyncio.Event()
    model = ScriptedModel(text_step("Working on it.", gate=gate), text_step("Steered."))
    app = make_app(model)
    async with ready_app(app) as pilot:
        assert app.chat.turns.steer("too early") is False  # no turn takes it
        await submit(pilot, "question")
        await wait_for(pilot, lambda: app.chat.turns.busy and bool(answers(app)))
        assert app.chat.turns.steer("also mention tests") is True
        gate.set()
        await wait_for(pilot, lambda: idle(app))
        assert app.chat.turns.steer("too late") is False
    assert sent_prompts(model) == ["question", "also mention tests"]  # the note went on as the next message
