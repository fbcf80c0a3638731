"""Issue 25, part 1: providers' real stream shapes, served by the fake server to the real SDK paths.

Each stream here is written in the shape a real provider sends (Anthropic's Messages events,
Chat Completions chunks from OpenAI, Azure, Gemini's and vLLM's endpoints), not copied from a
recording. What is checked is what a user and the provider's API would see: an answer that did not
end with its protocol's end signal fails with the provider's words; what zett sends back holds no
block the API refuses and keeps the fields the provider needs; stops are said in words.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from zett_agent.agent import Agent
from zett_agent.events import AgentEventType
from zett_agent.extensions import FileSystemExtension
from zett_agent.extensions.memory import InMemoryMessageAccumulator
from zett_agent.stop import StopInfo, StopReason

from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.test_providers_wire import CHOICES, NO_RETRY, QUICK_TIMEOUTS, run_turn, settings_for
from zett_tui.providers.build import build_model, reasoning_effort_for
from zett_tui.providers.errors import describe_error_for
from zett_tui.providers.stream_end import IncompleteStream
from zett_tui.runtime.events import EventTranslator, ModelStopped, Notice
from zett_tui.runtime.stop_words import stop_sentence

pytestmark = pytest.mark.usefixtures("in_tmp_folder")


@pytest.fixture
def server() -> Any:
    with FakeLLMServer() as running:
        yield running


@pytest.fixture
def in_tmp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "hello.py").write_text("print('hi')\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- streams in the providers' shapes ------------------------------------------------------------------


def sse(*events: tuple[str, dict[str, Any]]) -> str:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


def chunks(*payloads: dict[str, Any] | str) -> str:
    return "".join(f"data: {p if isinstance(p, str) else json.dumps(p)}\n\n" for p in payloads)


def ant_start(output_tokens: int = 1) -> tuple[str, dict[str, Any]]:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "claude-test",
        "stop_reason": None,
        "usage": {"input_tokens": 25, "output_tokens": output_tokens},
    }
    return "message_start", {"type": "message_start", "message": message}


def ant_text_block(index: int, *pieces: str) -> list[tuple[str, dict[str, Any]]]:
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        )
    ]
    events += [
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}},
        )
        for piece in pieces
    ]
    return events


def ant_end(
    reason: str = "end_turn", usage: dict[str, Any] | None = None, **delta: Any
) -> list[tuple[str, dict[str, Any]]]:
    message_delta: dict[str, Any] = {"type": "message_delta", "delta": {"stop_reason": reason, **delta}}
    if usage is not None:
        message_delta["usage"] = usage
    return [("message_delta", message_delta), ("message_stop", {"type": "message_stop"})]


def stop_block(index: int) -> tuple[str, dict[str, Any]]:
    return "content_block_stop", {"type": "content_block_stop", "index": index}


def oai(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish, **extra}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}


def oai_text(*pieces: str) -> list[dict[str, Any]]:
    return [oai({"role": "assistant", "content": ""})] + [oai({"content": piece}) for piece in pieces]


# -- complete only with the protocol's end signal -----------------------------------------------------


async def test_anthropic_stream_without_message_stop_is_cut_off_not_complete(server: FakeLLMServer) -> None:
    server.script(Reply.raw(sse(ant_start(), *ant_text_block(0, "Hello", " there"))))

    turn = await run_turn("anthropic", server.base_url)

    assert isinstance(turn.error, IncompleteStream) and turn.error.kind == "cut_off"
    assert turn.text == "Hello there"
    assert turn.sentence.startswith("Anthropic ended the stream without its end signal (no message_stop)")


async def test_anthropic_overloaded_after_some_text_fails_with_anthropics_words(
    server: FakeLLMServer,
) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.script(Reply.raw(sse(ant_start(), *ant_text_block(0, "Hel", "lo!"), ("error", error))))

    turn = await run_turn("anthropic", server.base_url)

    assert isinstance(turn.error, IncompleteStream) and turn.error.kind == "error"
    assert turn.text == "Hello!"
    assert "Overloaded" in turn.sentence and "incomplete" in turn.sentence


@pytest.mark.parametrize("provider", ["openai", "endpoint"])
async def test_chat_stream_without_finish_reason_or_done_is_cut_off(
    provider: str, server: FakeLLMServer
) -> None:
    server.script(Reply.raw(chunks(*oai_text("I'm unable", " to provide"))))

    turn = await run_turn(provider, server.base_url)

    assert isinstance(turn.error, IncompleteStream) and turn.error.kind == "cut_off"
    assert "no finish_reason and no [DONE]" in turn.sentence


async def test_openai_error_chunk_after_text_fails_with_its_message(server: FakeLLMServer) -> None:
    error = {
        "error": {
            "message": "The server had an error while processing your request.",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    }
    server.script(Reply.raw(chunks(*oai_text("I'm unable", " to"), error)))

    turn = await run_turn("openai", server.base_url)

    assert isinstance(turn.error, IncompleteStream)
    assert "The server had an error while processing your request." in turn.sentence


async def test_vllm_error_object_then_done_is_a_failure_with_vllms_message(server: FakeLLMServer) -> None:
    error = {
        "object": "error",
        "message": "CUDA out of memory while decoding.",
        "type": "InternalServerError",
        "param": None,
        "code": 500,
    }
    server.script(Reply.raw(chunks(*oai_text("Partial", " answer"), error, "[DONE]")))

    turn = await run_turn("endpoint", server.base_url)

    assert isinstance(turn.error, IncompleteStream)
    assert "CUDA out of memory while decoding." in turn.sentence


async def test_an_error_event_before_any_output_is_retried_like_its_status(server: FakeLLMServer) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.script(Reply.raw(sse(("error", error))), Reply.text("Second try worked."))

    turn = await run_turn(
        "anthropic", server.base_url, retry=type(NO_RETRY)(base_delay=0, max_delay=0, max_retries=1)
    )

    assert turn.error is None, turn.sentence
    assert turn.text == "Second try worked."


async def test_complete_streams_still_complete(server: FakeLLMServer) -> None:
    server.script(
        Reply.raw(chunks(*oai_text("Fine", "."), oai(finish="stop"), "[DONE]")),
        Reply.raw(": keep-alive\n\n" + chunks(*oai_text("Also", " fine"), oai(finish="stop"))),
    )
    first = await run_turn("openai", server.base_url)
    second = await run_turn("endpoint", server.base_url)
    assert (first.error, first.text) == (None, "Fine.")
    assert (second.error, second.text) == (None, "Also fine")


# -- what is sent back -----------------------------------------------------------------------------


async def two_turns(provider: str, server: FakeLLMServer, first: str = "Is this allowed?") -> list[Any]:
    """Two user turns on one agent; the events of each."""
    choice = CHOICES[provider]
    endpoints, env = settings_for(server.base_url)
    model = build_model(choice, endpoints, env, retry=NO_RETRY, timeout=QUICK_TIMEOUTS)
    turns: list[Any] = []
    try:
        agent = await Agent.create(
            model,
            extensions=[InMemoryMessageAccumulator(), FileSystemExtension(read_only=True)],
            reasoning_effort=reasoning_effort_for(choice, endpoints),
        )
        for prompt in (first, "Then tell me a joke."):
            events = []
            try:
                async for event in agent.stream(prompt):
                    events.append(event)
            except Exception as error:
                events.append(describe_error_for(error, choice, endpoints, env))
            turns.append(events)
    finally:
        await model.aclose()  # type: ignore[attr-defined]
    return turns


async def test_an_anthropic_refusal_never_sends_an_empty_text_block_back(server: FakeLLMServer) -> None:
    details = {
        "type": "refusal",
        "category": "cyber",
        "explanation": "This request was refused due to policy.",
    }
    refusal = sse(
        ant_start(),
        *ant_text_block(0),
        stop_block(0),
        *ant_end("refusal", {"output_tokens": 0}, stop_details=details),
    )
    server.script(Reply.raw(refusal), Reply.text("Why did the chicken cross the road?"))

    first, second = await two_turns("anthropic", server)

    stopped = [event for event in first if getattr(event, "type", None) is AgentEventType.MODEL_STOPPED]
    assert stopped and stop_sentence(stopped[0].stop) == (
        "The model declined to answer (cyber): This request was refused due to policy."
    )
    assert not any(isinstance(event, str) for event in second), second
    for message in server.requests[1].body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            assert not (block.get("type") == "text" and not block.get("text", "").strip()), message


async def test_gemini_thought_signature_goes_back_with_the_tool_call(server: FakeLLMServer) -> None:
    call = {
        "extra_content": {"google": {"thought_signature": "sig-Zm9vYmFy"}},
        "function": {"arguments": '{"path":"hello.py"}', "name": "read_file"},
        "id": "call_7",
        "type": "function",
    }
    server.script(
        Reply.raw(
            chunks(
                {"choices": [{"delta": {"role": "assistant", "tool_calls": [call]}, "index": 0}]},
                oai(finish="tool_calls"),
                "[DONE]",
            )
        ),
        Reply.text("It prints hi."),
    )

    turn = await run_turn("openai", server.base_url)

    assert turn.error is None, turn.sentence
    assert turn.completed_tools == ["read_file"]
    [sent] = [m for m in server.requests[1].body["messages"] if m.get("tool_calls")]
    assert sent["tool_calls"][0]["id"] == "call_7"
    assert sent["tool_calls"][0]["extra_content"] == {"google": {"thought_signature": "sig-Zm9vYmFy"}}


async def test_tool_calls_without_an_index_are_told_apart(server: FakeLLMServer) -> None:
    def call(path: str) -> dict[str, Any]:
        return {
            "index": None,
            "id": "",
            "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": path})},
        }

    (Path.cwd() / "other.py").write_text("x = 1\n")
    server.script(
        Reply.raw(
            chunks(
                oai({"role": "assistant", "tool_calls": [call("hello.py"), call("other.py")]}),
                oai(finish="tool_calls"),
                "[DONE]",
            )
        ),
        Reply.text("Two files."),
    )

    turn = await run_turn("endpoint", server.base_url)

    assert turn.error is None, turn.sentence
    assert turn.completed_tools == ["read_file", "read_file"]


async def test_fragments_without_an_index_that_repeat_the_id_are_one_call(server: FakeLLMServer) -> None:
    def piece(arguments: str, name: str = "") -> dict[str, Any]:
        return {"id": "call_r", "type": "function", "function": {"name": name, "arguments": arguments}}

    server.script(
        Reply.raw(
            chunks(
                oai({"role": "assistant", "tool_calls": [piece('{"path":', "read_file")]}),
                oai({"tool_calls": [piece(' "hello.py"}')]}),
                oai(finish="tool_calls"),
                "[DONE]",
            )
        ),
        Reply.text("Read."),
    )

    turn = await run_turn("endpoint", server.base_url)

    assert turn.error is None, turn.sentence
    assert turn.completed_tools == ["read_file"]


async def test_anthropic_message_delta_without_usage_keeps_the_output_count(server: FakeLLMServer) -> None:
    server.script(
        Reply.raw(
            sse(
                ant_start(output_tokens=120), *ant_text_block(0, "Done."), stop_block(0), *ant_end("end_turn")
            )
        )
    )

    turn = await run_turn("anthropic", server.base_url)

    assert turn.error is None, turn.sentence
    assert turn.usage[0].output_tokens == 120


async def test_server_tool_use_without_result_keeps_the_answer_and_says_so(server: FakeLLMServer) -> None:
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    stream = sse(
        ant_start(),
        *ant_text_block(0, "Let me search."),
        stop_block(0),
        ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": use}),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"query": "x"}'},
            },
        ),
        stop_block(1),
        *ant_end("end_turn", {"output_tokens": 12}),
    )
    server.script(Reply.raw(stream), Reply.text("Next."))

    first, second = await two_turns("anthropic", server)

    completed = [e for e in first if getattr(e, "type", None) is AgentEventType.MODEL_COMPLETED]
    assert completed, first
    assert completed[0].response.message.content == "Let me search."
    notes = [n for n in EventTranslator().translate(completed[0]) if isinstance(n, Notice)]
    assert notes and "web_search" in notes[0].text and "no result" in notes[0].text
    assert not any(isinstance(event, str) for event in second), second
    sent = json.dumps(server.requests[1].body["messages"])
    assert "srvtoolu_1" not in sent  # an unpaired server-tool block is refused by the API


async def test_a_server_tool_result_without_its_use_is_left_out_not_fatal(server: FakeLLMServer) -> None:
    result = {
        "type": "code_execution_tool_result",
        "tool_use_id": "svu_9",
        "content": {"type": "code_execution_result"},
    }
    stream = sse(
        ant_start(),
        *ant_text_block(0, "Here it is."),
        stop_block(0),
        ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": result}),
        stop_block(1),
        *ant_end("end_turn", {"output_tokens": 9}),
    )
    server.script(Reply.raw(stream))

    turn = await run_turn("anthropic", server.base_url)

    assert turn.error is None, turn.sentence
    assert turn.text == "Here it is."


# -- stops in words -----------------------------------------------------------------------------------


async def test_azure_content_filter_says_what_was_filtered(server: FakeLLMServer) -> None:
    filtered = {"protected_material_text": {"detected": True, "filtered": True}}
    server.script(
        Reply.raw(
            chunks(
                *oai_text("Hey", " Jude"),
                oai(finish="content_filter", content_filter_results=filtered),
                "[DONE]",
            )
        )
    )
    first, _ = await two_turns("openai", server)
    [stopped] = [e for e in first if getattr(e, "type", None) is AgentEventType.MODEL_STOPPED]
    [event] = [e for e in EventTranslator().translate(stopped) if isinstance(e, ModelStopped)]
    assert event.sentence == "The provider's content filter stopped the answer: protected material text."


async def test_an_openai_refusal_is_shown_once(server: FakeLLMServer) -> None:
    server.script(
        Reply.raw(
            chunks(
                oai({"role": "assistant", "content": None, "refusal": ""}),
                oai({"refusal": "I'm sorry, I can't"}),
                oai({"refusal": " help with that."}),
                oai(finish="stop"),
                "[DONE]",
            )
        )
    )
    first, _ = await two_turns("openai", server)
    [stopped] = [e for e in first if getattr(e, "type", None) is AgentEventType.MODEL_STOPPED]
    [event] = [e for e in EventTranslator().translate(stopped) if isinstance(e, ModelStopped)]
    assert event.sentence == "The model declined to answer."


def test_stop_reasons_are_said_in_words() -> None:
    assert stop_sentence(StopInfo(StopReason.MAX_OUTPUT, raw="length")) == (
        "The model hit the output token limit, so the answer is cut off."
    )
    assert "max_output" not in stop_sentence(StopInfo(StopReason.MAX_OUTPUT, raw="max_tokens"))
    assert stop_sentence(StopInfo(StopReason.OTHER, raw="weird_reason")) == (
        "The model stopped for a reason zett does not know (weird_reason)."
    )


# -- the event reader -------------------------------------------------------------------------------


async def read_events(*pieces: bytes) -> list[tuple[str, str]]:
    from zett_tui.providers.sse import sse_events

    async def body() -> Any:
        for piece in pieces:
            yield piece

    return [(event.name, event.data) async for event in sse_events(body())]


async def test_events_split_anywhere_with_crlf_comments_and_multiline_data() -> None:
    wire = b'event: a\r\ndata: {"x":\r\ndata: 1}\r\n\r\n: OPENROUTER PROCESSING\n\ndata:[DONE] \n\n'
    for cut in range(1, len(wire)):
        assert await read_events(wire[:cut], wire[cut:]) == [("a", '{"x":\n1}'), ("", "[DONE] ")], cut


async def test_an_event_whose_blank_line_never_came_is_still_passed_on() -> None:
    assert await read_events(b"data: one\n\ndata: two") == [("", "one"), ("", "two")]
    assert await read_events(b"data: one\n\n: just a comment") == [("", "one")]


# -- zett -p ----------------------------------------------------------------------------------------


def test_zett_p_exits_1_and_records_a_cut_off_answer_as_failed_with_its_last_word(llm_server: Any) -> None:
    from tests.test_headless import recorded_turns, zett

    llm_server.script(Reply.raw(chunks(*oai_text("Hello", " there"))))

    done = zett(llm_server, "-p", "say hello")

    assert done.returncode == 1
    assert done.stdout.startswith("Hello there")
    assert "ended the stream without its end signal" in done.stderr
    [turn] = [record for record in recorded_turns() if "status" in record]
    assert turn["status"] == "failed"
    assert turn["messages"][-1]["data"]["content"] == "Hello there"
