"""Web search through Anthropic's hosted tool: off by default, offered with ``[web] search``, and
its query and sources shown as rows. Against a local server streaming the Messages SSE shape."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.host import Collector
from zett_tui.runtime.events import Notice
from zett_tui.runtime.web.extension import WebOptions


def sse(name: str, payload: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode()


def search_stream() -> bytes:
    results = [
        {"type": "web_search_result", "url": "https://docs.example.org/changelog", "title": "Changelog 4.0"},
        {"type": "web_search_result", "url": "https://blog.example.org/\u001b[31mred", "title": "Post\u0007"},
    ]
    events = [
        sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "m1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-test",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 30, "output_tokens": 1},
                },
            },
        ),
        sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "server_tool_use",
                    "id": "srv_1",
                    "name": "web_search",
                    "input": {},
                },
            },
        ),
        sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"query": "libfoo 4.0 '},
            },
        ),
        sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": 'breaking changes"}'},
            },
        ),
        sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srv_1",
                    "content": results,
                },
            },
        ),
        sse("content_block_stop", {"type": "content_block_stop", "index": 1}),
        sse(
            "content_block_start",
            {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
        ),
        sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 2,
                "delta": {"type": "text_delta", "text": "Version 4.0 renamed run()."},
            },
        ),
        sse("content_block_stop", {"type": "content_block_stop", "index": 2}),
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 12},
            },
        ),
        sse("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(events)


@pytest.fixture
def anthropic() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    bodies: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            bodies.append(json.loads(body))
            data = search_stream()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()


async def run(anthropic: tuple[str, list[dict[str, Any]]], search: bool, **options: Any) -> Collector:
    from zett_agent.model import RetryOptions

    from zett_tui.providers.messages_stream import (
        ZettAnthropicProvider as AnthropicProvider,  # as zett builds it
    )
    from zett_tui.runtime.host import AgentHost, HostOptions

    base, _bodies = anthropic

    def factory() -> Any:
        return AnthropicProvider(
            "claude-test", "sk-ant-test", base_url=base, retry=RetryOptions(max_retries=0)
        )

    host = AgentHost(
        HostOptions(
            model_factory=factory,
            model_label="anthropic:claude-test",
            web=WebOptions(search=search),
            **options,
        )
    )
    await host.start()
    sink = Collector()
    try:
        await host.run_turn("what changed in libfoo 4.0?", sink)
    finally:
        await host.aclose()
    return sink


async def test_search_is_offered_only_when_turned_on_and_shown_as_rows(
    anthropic: tuple[str, list[dict[str, Any]]],
) -> None:
    _base, bodies = anthropic
    await run(anthropic, search=False)
    assert not any(tool.get("type", "").startswith("web_search") for tool in bodies[0].get("tools", []))

    sink = await run(anthropic, search=True)
    tools = bodies[1]["tools"]
    assert {"type": "web_search_20260318", "name": "web_search", "max_uses": 5} in tools
    (row,) = [notice.text for notice in sink.of(Notice) if notice.text.startswith("🔎")]
    assert row.startswith("🔎 web_search “libfoo 4.0 breaking changes”: 2 sources")
    assert "Changelog 4.0 — https://docs.example.org/changelog" in row
    assert "\x1b" not in row and "\x07" not in row  # a page's title cannot restyle the terminal
    assert sink.text == "Version 4.0 renamed run()."


async def test_a_resumed_session_shows_the_search_rows_before_the_answer(
    anthropic: tuple[str, list[dict[str, Any]]], tmp_path: Any
) -> None:
    from zett_tui.sessions.recorded_turns import iter_turns
    from zett_tui.sessions.turn_views import NoteBlock, TextBlock

    sessions = tmp_path / "sessions"
    live = await run(
        anthropic, search=True, sessions_dir=sessions, history_db=tmp_path / "h.sqlite3", cwd=tmp_path
    )
    (row,) = [notice.text for notice in live.of(Notice) if notice.text.startswith("🔎")]
    (turn,) = iter_turns(next(sessions.glob("*.jsonl")), [])
    shown = [(type(block).__name__, getattr(block, "text", "")) for block in turn.blocks]
    assert shown[:2] == [("NoteBlock", row), ("TextBlock", "Version 4.0 renamed run().")]
    assert isinstance(turn.blocks[0], NoteBlock) and turn.blocks[0].kind == "search"
    assert isinstance(turn.blocks[1], TextBlock)

    from zett_tui.sessions.export import turn_markdown

    markdown = turn_markdown(turn)
    assert "*Web search:* 🔎 web_search “libfoo 4.0 breaking changes”: 2 sources" in markdown
    assert markdown.index("Web search") < markdown.index("Version 4.0 renamed run().")
