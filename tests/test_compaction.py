"""Compaction with a local token estimate: when it runs, what the transcript says, what is stored."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from zett_agent.extensions.compaction import CompactedMessage
from zett_agent.messages import (
    AssistantMessage,
    ImageContent,
    ImageUrlSource,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from zett_agent.model import ModelRequest, ReasoningEffort

from tests.fakes.host import host_options
from tests.fakes.scripted_model import ScriptedModel, text_step
from tests.ui_helpers import idle, make_app, notices, ready_app, submit, wait_for
from zett_tui.runtime.compaction import ContextCompaction, estimate_text_tokens, estimate_tokens
from zett_tui.runtime.events import ContextMeasured, Notice, TextChunk, TurnFinished, UIEvent
from zett_tui.runtime.host import AgentHost
from zett_tui.ui.app import ZettApp

#: A long answer: 20k characters, about 5.7k estimated tokens.
LONG = "word " * 4000
SUMMARY = "The user talked about words; nothing is pending."


@pytest.fixture(autouse=True)
def no_tiktoken(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any import of tiktoken (the upstream counter, which downloads data) fails these tests."""
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    yield
    assert sys.modules.get("tiktoken") is None


class Events(list[UIEvent]):
    def __call__(self, event: UIEvent) -> None:
        self.append(event)

    def notices(self) -> list[str]:
        return [event.text for event in self if isinstance(event, Notice)]


def made(app: ZettApp, model: ScriptedModel, requests: int) -> bool:
    """The app is idle after the model was asked ``requests`` times."""
    return idle(app) and len(model.requests) == requests


def texts(request: ModelRequest) -> list[str]:
    return [str(message.content) for message in request.messages if not isinstance(message, SystemMessage)]


def test_the_estimate_needs_no_tokenizer_and_counts_every_part() -> None:
    assert estimate_text_tokens("") == 0
    assert estimate_text_tokens("a" * 35) == 10
    assert estimate_text_tokens("日本語") == 3  # one per character outside ASCII
    call = ToolCall(id="c1", name="read_file", arguments={"path": "x" * 70})
    with_call = AssistantMessage(content="", tool_calls=(call,))
    assert estimate_tokens([with_call]) > estimate_tokens([AssistantMessage(content="")]) + 20
    image = ImageContent(source=ImageUrlSource(url="data:image/png;base64," + "A" * 100_000))
    assert estimate_tokens([UserMessage(content=[TextContent(text="see"), image])]) < 1_200
    result = ToolMessage(tool_call_id="c1", name="read_file", content="y" * 350)
    assert estimate_tokens([result]) == 100 + 4


def test_the_limits_follow_the_context_window() -> None:
    compaction = ContextCompaction(200_000)
    assert (compaction.max_tokens, compaction.keep_recent_tokens) == (160_000, 50_000)
    compaction.set_context_window(32_000)
    assert (compaction.max_tokens, compaction.keep_recent_tokens) == (25_600, 8_000)
    compaction.follow_effort(ReasoningEffort.OFF)
    assert compaction.reasoning_effort is ReasoningEffort.OFF
    compaction.follow_effort(ReasoningEffort.HIGH)
    assert compaction.reasoning_effort is ReasoningEffort.LOW


async def test_compaction_runs_before_the_window_fills_and_says_so(tmp_path: Path) -> None:
    model = ScriptedModel(text_step(LONG), text_step(LONG), text_step(SUMMARY), text_step("third answer"))
    host = AgentHost(host_options(tmp_path, model, context_window=14_000))
    await host.start()
    try:
        quiet = Events()
        await host.run_turn("first", quiet)
        await host.run_turn("second", quiet)
        assert quiet.notices() == []  # two long turns still fit under 80%
        events = Events()
        finished = await host.run_turn("third", events)
    finally:
        await host.aclose()

    assert finished.status == "completed"
    before, after = events.notices()
    assert before.startswith("Compacting: the conversation is near the context limit (≈")
    assert "summarizing 1 earlier turn" in before
    assert after.startswith("Compacted: 1 earlier turn summarized; ≈")
    assert "of 14k, estimated" in after
    # The notices come before the answer, and the meter drops to an estimate in between.
    order = [type(event).__name__ for event in events if not isinstance(event, ContextMeasured)]
    assert order.index("Notice") < order.index("TextChunk")
    measures = [event for event in events if isinstance(event, ContextMeasured)]
    assert measures[0].estimated and measures[0].tokens < 14_000 * 0.8
    assert measures[-1] == ContextMeasured(17, 14_000, estimated=False)  # the scripted usage
    # The summary was written by the same model, from its own request, with low effort.
    summary_request = model.requests[2]
    assert str(summary_request.messages[0].content).startswith("Summarize the following conversation")
    assert summary_request.reasoning_effort is ReasoningEffort.LOW
    # The next request carries the checkpoint instead of the first turn, and the second turn verbatim.
    sent = model.requests[3]
    checkpoints = [message for message in sent.messages if isinstance(message, CompactedMessage)]
    assert len(checkpoints) == 1 and SUMMARY in checkpoints[0].content
    assert texts(sent)[-4:] == [checkpoints[0].content, "second", LONG, "third"]
    assert host.compactions == 1
    assert "".join(event.text for event in events if isinstance(event, TextChunk)) == "third answer"


async def test_a_resumed_session_starts_from_the_compacted_history(tmp_path: Path) -> None:
    model = ScriptedModel(text_step(LONG), text_step(LONG), text_step(SUMMARY), text_step("third answer"))
    host = AgentHost(host_options(tmp_path, model, context_window=14_000))
    await host.start()
    try:
        for prompt in ("first", "second", "third"):
            await host.run_turn(prompt, Events())
    finally:
        await host.aclose()
    uncompacted = estimate_tokens(
        [
            UserMessage(content=prompt) if index % 2 == 0 else AssistantMessage(content=prompt)
            for index, prompt in enumerate(("first", LONG, "second", LONG, "third", "third answer"))
        ]
    )

    later = ScriptedModel(text_step("fourth answer"))
    resumed = AgentHost(host_options(tmp_path, later, context_window=14_000, session_id=host.session_id))
    await resumed.start()
    try:
        shown = await resumed.estimate_context()
        estimate = await resumed.estimate_from_history()
        finished = await resumed.run_turn("fourth", Events())
    finally:
        await resumed.aclose()

    assert finished.status == "completed"
    sent = texts(later.requests[0])
    assert sum(SUMMARY in text for text in sent) == 1
    assert "first" not in sent
    assert sent[-5:] == ["second", LONG, "third", "third answer", "fourth"]
    # the status line starts from the figure it showed when the session was left (the last usage)
    assert (shown.tokens, shown.estimated, shown.window) == (17, False, 14_000)
    assert estimate.estimated and estimate.window == 14_000
    # The estimate counts the checkpoint, not the turn it replaced.
    assert estimate.tokens < uncompacted - 5_000


async def test_a_pass_whose_summary_is_not_shorter_changes_nothing(tmp_path: Path) -> None:
    model = ScriptedModel(text_step("a"), text_step("b"), text_step(LONG), text_step("c"))
    host = AgentHost(host_options(tmp_path, model))
    await host.start()
    try:
        await host.run_turn("one", Events())
        await host.run_turn("two", Events())
        events = Events()
        applied = await host.compact(events)
        after = await host.run_turn("three", Events())
    finally:
        await host.aclose()
    assert not applied
    assert events.notices()[-1].startswith("Not compacted: the summary came out no shorter")
    assert after.status == "completed"
    assert "one" in texts(model.requests[3])


async def test_compact_on_demand_with_too_little_history_does_nothing(tmp_path: Path) -> None:
    model = ScriptedModel(text_step("only answer"))
    host = AgentHost(host_options(tmp_path, model))
    await host.start()
    try:
        await host.run_turn("only", Events())
        events = Events()
        applied = await host.compact(events)
    finally:
        await host.aclose()
    assert not applied
    assert events.notices() == []
    assert [event for event in events if isinstance(event, TurnFinished)] == [TurnFinished("completed")]
    assert len(model.requests) == 1  # no summary was asked for


async def test_slash_compact_summarizes_now_and_the_next_turn_builds_on_it() -> None:
    model = ScriptedModel(text_step(LONG), text_step("short answer"), text_step(SUMMARY), text_step("next"))
    app = make_app(model)
    async with ready_app(app, size=(120, 40)) as pilot:
        await submit(pilot, "first question")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 1)
        await submit(pilot, "second question")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 2)
        await submit(pilot, "/compact")
        await wait_for(pilot, lambda: idle(app) and any(n.startswith("Compacted:") for n in notices(app)))
        shown = notices(app)
        assert any(n.startswith("Compacting on request (≈") for n in shown)
        assert any(n.startswith("Compacted: 1 earlier turn summarized") for n in shown)
        assert app.chat.status.context_estimated
        await submit(pilot, "third question")
        await wait_for(pilot, lambda: idle(app) and len(model.requests) == 4)
    sent = texts(model.requests[3])
    assert any(SUMMARY in text for text in sent)
    assert "first question" not in sent
    assert sent[-3:] == ["second question", "short answer", "third question"]


async def test_slash_compact_says_when_there_is_nothing_to_compact() -> None:
    model = ScriptedModel(text_step("answer"))
    app = make_app(model)
    async with ready_app(app, size=(120, 40)) as pilot:
        await submit(pilot, "/compact")
        await wait_for(pilot, lambda: any(n.startswith("Nothing to compact yet") for n in notices(app)))
        assert idle(app)
    assert model.requests == []


async def test_automatic_compaction_notices_appear_in_the_transcript() -> None:
    model = ScriptedModel(text_step(LONG), text_step(LONG), text_step(SUMMARY), text_step("third answer"))
    app = make_app(model, context_window=14_000)
    async with ready_app(app, size=(120, 40)) as pilot:
        for prompt, requests in (("first", 1), ("second", 2), ("third", 4)):
            await submit(pilot, prompt)
            await wait_for(pilot, partial(made, app, model, requests))
        shown = notices(app)
    assert any(n.startswith("Compacting: the conversation is near the context limit") for n in shown)
    assert any(n.startswith("Compacted: 1 earlier turn summarized") for n in shown)
