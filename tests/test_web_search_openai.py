"""OpenAI's hosted web search: with ``[web] search`` zett builds OpenAI's models on the Responses
API (where OpenAI hosts the search), offers ``web_search`` and asks for its sources, and shows the
query and sources as rows. Against a local server streaming the Responses SSE shape."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.host import Collector
from tests.test_providers_wire import NO_RETRY, QUICK_TIMEOUTS
from zett_tui.providers.build import ModelChoice, build_model
from zett_tui.runtime.events import Notice
from zett_tui.runtime.web.extension import WebOptions

SEARCH = {
    "type": "web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {
        "type": "search",
        "query": "libfoo 4.0 breaking changes",
        "sources": [
            {"type": "url", "url": "https://docs.example.org/changelog"},
            {"type": "url", "url": "https://blog.example.org/\u001b[31mred"},
        ],
    },
}
MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Version 4.0 renamed run().", "annotations": []}],
}


def event(kind: str, **payload: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n".encode()


def response(status: str, output: list[Any]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-test",
        "status": status,
        "output": output,
        "usage": {"input_tokens": 30, "output_tokens": 12, "total_tokens": 42},
    }


def search_stream() -> bytes:
    started = {**SEARCH, "status": "in_progress", "action": {"type": "search"}}
    text = MESSAGE["content"][0]["text"]  # type: ignore[index]
    return b"".join(
        [
            event("response.created", response=response("in_progress", []), sequence_number=0),
            event("response.output_item.added", output_index=0, item=started, sequence_number=1),
            event("response.output_item.done", output_index=0, item=SEARCH, sequence_number=2),
            event(
                "response.output_item.added",
                output_index=1,
                item={**MESSAGE, "status": "in_progress", "content": []},
                sequence_number=3,
            ),
            event(
                "response.output_text.delta",
                output_index=1,
                content_index=0,
                item_id="msg_1",
                delta=text,
                sequence_number=4,
            ),
            event("response.output_item.done", output_index=1, item=MESSAGE, sequence_number=5),
            event("response.completed", response=response("completed", [SEARCH, MESSAGE]), sequence_number=6),
        ]
    )


@pytest.fixture
def openai() -> Iterator[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    bodies: list[tuple[str, dict[str, Any]]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            bodies.append((self.path, json.loads(body)))
            data = search_stream()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", bodies
    finally:
        server.shutdown()
        server.server_close()


async def test_openai_search_goes_through_the_responses_api_and_shows_rows(
    openai: tuple[str, list[tuple[str, dict[str, Any]]]], tmp_path: Any
) -> None:
    from zett_tui.runtime.host import AgentHost, HostOptions

    base, bodies = openai
    env = {"OPENAI_API_KEY": "sk-test-openai-0000", "OPENAI_BASE_URL": base}

    def factory() -> Any:
        return build_model(
            ModelChoice("openai", "gpt-test"),
            {},
            env,
            retry=NO_RETRY,
            timeout=QUICK_TIMEOUTS,
            openai_responses=True,
        )

    host = AgentHost(
        HostOptions(
            model_factory=factory,
            model_label="openai:gpt-test",
            web=WebOptions(search=True),
            sessions_dir=tmp_path / "sessions",
            history_db=tmp_path / "h.sqlite3",
            cwd=tmp_path,
        )
    )
    await host.start()
    sink = Collector()
    try:
        finished = await host.run_turn("what changed in libfoo 4.0?", sink)
    finally:
        await host.aclose()
    assert finished.status == "completed", finished.error
    ((path, body),) = bodies
    assert path.endswith("/responses")
    assert {"type": "web_search"} in body["tools"]
    assert "web_search_call.action.sources" in body["include"]
    assert "reasoning.encrypted_content" in body["include"]  # the reasoning item is still asked for
    (row,) = [notice.text for notice in sink.of(Notice) if notice.text.startswith("🔎")]
    assert row.startswith("🔎 web_search “libfoo 4.0 breaking changes”: 2 sources")
    assert "https://docs.example.org/changelog" in row and "\x1b" not in row
    assert sink.text == "Version 4.0 renamed run()."


def test_without_the_setting_openai_stays_on_chat_completions_and_gets_no_search() -> None:
    env = {"OPENAI_API_KEY": "sk-test-openai-0000", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    model: Any = build_model(
        ModelChoice("openai", "gpt-test"), {}, env, retry=NO_RETRY, timeout=QUICK_TIMEOUTS
    )
    assert model.response is False
    from zett_tui.runtime.web.search import _is_openai_responses

    assert not _is_openai_responses(model)
