"""A fake model server on 127.0.0.1 that speaks the OpenAI, Anthropic and Ollama streaming protocols.

The real provider classes (and their SDKs) are pointed at it, so tests exercise the exact bytes a
real server sends: Chat Completions SSE (``POST …/chat/completions``), Messages SSE
(``POST …/messages``) and Ollama's NDJSON (``POST /api/chat``). Responses use chunked transfer
encoding, as real providers do, so a dropped connection is seen by the client as a cut-off body.

What the server answers is a script: a FIFO queue of :class:`Reply` objects shared by all
protocols. Each request takes the next one; an empty queue answers with the default reply. Every
request is recorded (path, headers, parsed JSON body) in :attr:`FakeLLMServer.requests`.

A server can also describe itself the way llama.cpp (``GET /props``), vLLM and LM Studio
(``GET /v1/models``) and Ollama (``GET /api/ps``, ``POST /api/show``) do: :meth:`FakeLLMServer.serve_info`
sets the JSON such a path answers (unset paths answer 404, ``/v1/models`` a bare list), and
:meth:`FakeLLMServer.hang_info` makes them go silent. These requests are kept apart, in
:attr:`FakeLLMServer.info_requests`, and take no scripted reply.

In tests::

    with FakeLLMServer() as server:
        server.script(Reply.text("Hello **world**", chunk=4), Reply.error(401))
        model = OpenAIProvider("gpt-test", api_key="test-key", base_url=server.openai_base_url)

As a process (for end-to-end tests and benchmarks; the first stdout line is the base URL)::

    python -m tests.fakes.llm_server --port 0 --script script.json --requests-log requests.jsonl

``script.json`` is a list of replies, or ``{"replies": [...], "default": {...}}``, each reply being
the JSON form of :class:`Reply` (``{"kind": "text", "content": "...", "chunk": 8}``; see
:meth:`Reply.to_json`). The process stops cleanly on SIGTERM or SIGINT, and with
``--exit-on-stdin-eof`` when its parent closes stdin.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["FakeLLMServer", "RecordedRequest", "Reply", "main"]

#: The reply given when the script is empty.
DEFAULT_TEXT = "Hello from the fake model server."
#: Text streamed before a fault (drop, malformed chunk, stall) when the reply names none.
FAULT_TEXT = "This answer is going to be interrupted part of the way through, on purpose."
#: Largest request body read; anything bigger is refused, so a runaway client cannot exhaust memory.
MAX_BODY_BYTES = 64 * 1024 * 1024

_KINDS = ("text", "tool_call", "error", "drop", "malformed", "stall", "raw")

_ERROR_TYPES = {
    400: ("invalid_request_error", "The request is invalid."),
    401: ("authentication_error", "Incorrect API key provided."),
    403: ("permission_error", "Your API key does not have access to this model."),
    404: ("not_found_error", "The model does not exist."),
    429: ("rate_limit_error", "Rate limit reached for requests. Please try again later."),
    500: ("api_error", "Internal server error."),
    502: ("api_error", "Bad gateway."),
    503: ("api_error", "Service unavailable."),
    529: ("overloaded_error", "Overloaded."),
}


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build it with the class methods rather than by hand.

    A fault (``drop``, ``malformed``, ``stall``) streams the text reply first and strikes after
    ``after_chunks`` content chunks (text, reasoning or tool-argument deltas), so ``after_chunks=0``
    strikes before any content. ``delay`` is slept before every chunk.
    """

    kind: str = "text"
    content: str = ""
    reasoning: str = ""
    chunk: int = 8
    delay: float = 0.0
    tool_name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    call_id: str = "call_fake_1"
    status: int = 0
    message: str = ""
    html: bool = False
    after_chunks: int = 0
    seconds: float = 0.0
    before_headers: bool = False
    #: The finish reason sent at the end (``length`` for a cut answer); empty: the protocol's usual.
    finish: str = ""
    #: Further calls in the same answer (OpenAI protocol only): ``{"call_id", "tool_name", "arguments"}``.
    more_calls: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown reply kind {self.kind!r}; expected one of {', '.join(_KINDS)}")
        if self.chunk < 1:
            raise ValueError("chunk must be at least 1 character")

    @classmethod
    def text(
        cls, content: str, *, chunk: int = 8, delay: float = 0.0, reasoning: str = "", finish: str = ""
    ) -> Reply:
        """Stream ``content`` (and ``reasoning`` before it) in ``chunk``-character pieces; ``finish``
        overrides the finish reason (OpenAI protocol: ``length`` for an answer the server cut)."""
        return cls("text", content=content, chunk=chunk, delay=delay, reasoning=reasoning, finish=finish)

    @classmethod
    def tool_call(
        cls,
        name: str,
        arguments: Mapping[str, Any],
        *,
        text: str = "",
        call_id: str = "call_fake_1",
        chunk: int = 8,
        delay: float = 0.0,
    ) -> Reply:
        """Stream an optional ``text`` and then one call of tool ``name`` with ``arguments``."""
        return cls(
            "tool_call",
            content=text,
            tool_name=name,
            arguments=dict(arguments),
            call_id=call_id,
            chunk=chunk,
            delay=delay,
        )

    @classmethod
    def error(cls, status: int, message: str = "", *, html: bool = False) -> Reply:
        """Answer HTTP ``status`` with the protocol's JSON error body (or a web page with ``html``)."""
        return cls("error", status=status, message=message, html=html)

    @classmethod
    def raw(cls, events: str) -> Reply:
        """Stream ``events`` (the SSE body, written in a real provider's shapes) byte for byte, one
        event per chunk, and end the body normally: what the stream says is all there is."""
        return cls("raw", content=events)

    @classmethod
    def drop_after(cls, n_chunks: int, text: str = FAULT_TEXT, *, chunk: int = 8) -> Reply:
        """Cut the connection after ``n_chunks`` content chunks, without ending the body."""
        return cls("drop", content=text, after_chunks=n_chunks, chunk=chunk)

    @classmethod
    def malformed_after(cls, n_chunks: int, text: str = FAULT_TEXT, *, chunk: int = 8) -> Reply:
        """Send a chunk that is not valid JSON after ``n_chunks`` content chunks."""
        return cls("malformed", content=text, after_chunks=n_chunks, chunk=chunk)

    @classmethod
    def stall(
        cls,
        seconds: float,
        *,
        after_chunks: int = 1,
        text: str = FAULT_TEXT,
        chunk: int = 8,
        before_headers: bool = False,
    ) -> Reply:
        """Go silent for ``seconds`` after ``after_chunks`` chunks (or before the headers), then finish
        (sooner once the test calls :meth:`FakeLLMServer.release_stalls`)."""
        return cls(
            "stall",
            content=text,
            seconds=seconds,
            after_chunks=after_chunks,
            chunk=chunk,
            before_headers=before_headers,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON form used in script files; fields left at their default are omitted."""
        defaults = Reply()
        return {
            key: value
            for key, value in asdict(self).items()
            if key == "kind" or value != getattr(defaults, key)
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reply:
        """Read one reply of a script file; unknown keys are an error, not silently ignored."""
        known = {item.name for item in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply field(s): {', '.join(sorted(unknown))}")
        return cls(**dict(data))

    def pieces(self, value: str) -> list[str]:
        return [value[i : i + self.chunk] for i in range(0, len(value), self.chunk)]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    protocol: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class _Stopped(Exception):
    """The server is shutting down; the handler gives up on the response it was writing."""


class _Dropped(Exception):
    """The reply ends here without a proper end of body."""


class _Wire:
    """Writes one streamed response body, counting content chunks so a fault can strike on time."""

    def __init__(self, handler: _Handler, reply: Reply) -> None:
        self.handler = handler
        self.reply = reply
        self.chunks = 0
        self.struck = False

    def frame(self, data: bytes, *, content: bool = False) -> None:
        """Write one frame; a content frame first gives the reply's fault a chance to strike."""
        if content:
            self._maybe_fault()
            if self.reply.delay:
                self.handler.pause(self.reply.delay)
            self.chunks += 1
        self.handler.write_chunk(data)

    def _maybe_fault(self) -> None:
        reply = self.reply
        if self.struck or reply.kind not in ("drop", "malformed", "stall"):
            return
        if self.chunks < reply.after_chunks:
            return
        self.struck = True
        if reply.kind == "stall":
            self.handler.pause_unless_released(reply.seconds)
            return
        if reply.kind == "malformed":
            self.handler.write_chunk(self.handler.malformed_frame())
        raise _Dropped


def _openai_chunk(model: str, delta: dict[str, Any] | None, finish: str | None = None) -> bytes:
    payload: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish, "logprobs": None}],
    }
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def _anthropic_event(name: str, payload: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: ".encode() + json.dumps(payload).encode() + b"\n\n"


def _ollama_line(model: str, message: dict[str, Any], **extra: Any) -> bytes:
    payload = {
        "model": model,
        "created_at": "2025-01-01T00:00:00Z",
        "message": message,
        "done": False,
        **extra,
    }
    return json.dumps(payload).encode() + b"\n"


def _estimate_tokens(value: Any) -> int:
    return max(1, len(json.dumps(value)) // 4)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    #: Set per request: which protocol the path asked for, the parsed JSON body, and its model.
    protocol_name: str = ""
    body: dict[str, Any]
    model: str = "fake-model"
    #: Bounds every socket read and write, so a vanished client cannot hold a thread forever.
    timeout = 10

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: pytest output and a benchmark's stdout are not the place for access logs."""

    # -- plumbing ----------------------------------------------------------------------------------

    def pause(self, seconds: float) -> None:
        if self.server.stopping.wait(seconds):
            raise _Stopped

    def pause_unless_released(self, seconds: float) -> None:
        """``pause``, ended early by :meth:`FakeLLMServer.release_stalls`."""
        deadline = time.monotonic() + seconds
        while not self.server.released.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            self.pause(min(remaining, 0.02))

    def write_chunk(self, data: bytes) -> None:
        if not data:
            return
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")

    def malformed_frame(self) -> bytes:
        if self.protocol_name == "ollama":
            return b'{"model": "fake", "message": {"role": "assistant", "content": "tru\n'
        if self.protocol_name == "anthropic":
            return b'event: content_block_delta\ndata: {"type": "content_block_delta", "delta": {\n\n'
        return b'data: {"id": "chatcmpl-fake", "choices": [{"index": 0, "delta": {"content": "tru\n\n'

    def start_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()

    def send_json(self, status: int, payload: Any) -> None:
        self.send_body(status, json.dumps(payload).encode(), "application/json")

    def send_body(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        if status == 429:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(body)

    # -- requests ----------------------------------------------------------------------------------

    def answer_info(self, method: str) -> bool:
        """Answer a path set with ``serve_info`` (after ``hang_info``'s silence); False if not one."""
        owner = self.server.owner
        path = self.path.split("?", 1)[0].rstrip("/")
        payload = owner.info_for(path)
        line = f"{method} {path}"
        if method == "POST":  # /api/show names the model in its body
            length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY_BYTES)
            try:
                asked = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                asked = {}
            line += f" {asked.get('model', '') if isinstance(asked, dict) else ''}".rstrip()
        owner.record_info(line)
        if owner.info_hang:
            try:
                self.pause(owner.info_hang)
            except _Stopped:
                return True
        if payload is None:
            return False
        self.send_json(200, payload)
        return True

    def do_GET(self) -> None:
        if self.answer_info("GET"):
            return
        if self.path.rstrip("/").endswith("/models") or self.path.rstrip("/") == "/api/tags":
            self.send_json(
                200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}], "models": []}
            )
            return
        self.send_json(404, {"error": {"message": f"no route for GET {self.path}"}})

    def do_POST(self) -> None:
        self.close_connection = True
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/api/show" and self.answer_info("POST"):
            return
        if path.endswith("/chat/completions"):
            self.protocol_name = "openai"
        elif path.endswith("/messages"):
            self.protocol_name = "anthropic"
        elif path.endswith("/api/chat"):
            self.protocol_name = "ollama"
        else:
            self.send_json(404, {"error": {"message": f"no route for POST {self.path}"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self.send_json(413, {"error": {"message": "request body too large"}})
            return
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
        self.server.owner.record(
            RecordedRequest(
                method="POST",
                path=self.path,
                headers={key.lower(): value for key, value in self.headers.items()},
                body=body,
                protocol=self.protocol_name,
            )
        )
        reply = self.server.owner.next_reply()
        self.body = body if isinstance(body, dict) else {}
        self.model = str(self.body.get("model") or "fake-model")
        try:
            self.answer(reply)
        except (_Stopped, OSError):  # shutting down, or the client went away (timeouts do this)
            self.close_connection = True

    def answer(self, reply: Reply) -> None:
        if reply.kind == "error":
            self.answer_error(reply)
            return
        wire = _Wire(self, reply)
        if reply.kind == "stall" and reply.before_headers:
            wire.struck = True
            self.pause(reply.seconds)
        content_type = "application/x-ndjson" if self.protocol_name == "ollama" else "text/event-stream"
        self.start_stream(content_type)
        if reply.kind == "raw":
            for event in reply.content.replace("\r\n", "\n").split("\n\n"):
                if event.strip():
                    self.write_chunk(event.encode() + b"\n\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        writer = {
            "openai": self.stream_openai,
            "anthropic": self.stream_anthropic,
            "ollama": self.stream_ollama,
        }
        try:
            writer[self.protocol_name](wire, reply)
        except _Dropped:
            self.wfile.flush()
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")

    def answer_error(self, reply: Reply) -> None:
        status = reply.status
        kind, default_message = _ERROR_TYPES.get(status, ("api_error", f"HTTP {status}"))
        message = reply.message or default_message
        if reply.html:
            page = f"<html><head><title>{status} Error</title></head><body><h1>{message}</h1></body></html>"
            self.send_body(status, page.encode(), "text/html; charset=utf-8")
        elif self.protocol_name == "anthropic":
            self.send_json(status, {"type": "error", "error": {"type": kind, "message": message}})
        elif self.protocol_name == "ollama":
            self.send_json(status, {"error": message})
        else:
            self.send_json(status, {"error": {"message": message, "type": kind, "param": None, "code": None}})

    # -- protocols ---------------------------------------------------------------------------------

    def usage_counts(self, reply: Reply) -> tuple[int, int]:
        produced = reply.content + reply.reasoning + json.dumps(reply.arguments)
        return _estimate_tokens(self.body.get("messages", [])), max(1, len(produced) // 4)

    def stream_openai(self, wire: _Wire, reply: Reply) -> None:
        model = self.model
        wire.frame(_openai_chunk(model, {"role": "assistant", "content": ""}))
        for piece in reply.pieces(reply.reasoning):
            wire.frame(_openai_chunk(model, {"reasoning_content": piece}), content=True)
        for piece in reply.pieces(reply.content):
            wire.frame(_openai_chunk(model, {"content": piece}), content=True)
        finish = "stop"
        if reply.kind == "tool_call":
            finish = "tool_calls"
            opening = {"index": 0, "id": reply.call_id, "type": "function"}
            opening["function"] = {"name": reply.tool_name, "arguments": ""}
            wire.frame(_openai_chunk(model, {"tool_calls": [opening]}))
            for piece in reply.pieces(json.dumps(reply.arguments)):
                call = {"index": 0, "function": {"arguments": piece}}
                wire.frame(_openai_chunk(model, {"tool_calls": [call]}), content=True)
            for index, more in enumerate(reply.more_calls, start=1):
                opening = {"index": index, "id": more["call_id"], "type": "function"}
                opening["function"] = {"name": more["tool_name"], "arguments": json.dumps(more["arguments"])}
                wire.frame(_openai_chunk(model, {"tool_calls": [opening]}), content=True)
        wire.frame(_openai_chunk(model, None, reply.finish or finish))
        options = self.body.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            prompt, completion = self.usage_counts(reply)
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
            payload = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1_700_000_000}
            payload.update({"model": model, "choices": [], "usage": usage})
            wire.frame(b"data: " + json.dumps(payload).encode() + b"\n\n")
        wire.frame(b"data: [DONE]\n\n")

    def stream_anthropic(self, wire: _Wire, reply: Reply) -> None:
        prompt, completion = self.usage_counts(reply)
        message: dict[str, Any] = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": 1},
        }
        wire.frame(_anthropic_event("message_start", {"type": "message_start", "message": message}))
        wire.frame(_anthropic_event("ping", {"type": "ping"}))
        blocks: list[tuple[dict[str, Any], str, str, str]] = []
        if reply.reasoning:
            blocks.append(
                (
                    {"type": "thinking", "thinking": "", "signature": ""},
                    "thinking_delta",
                    "thinking",
                    reply.reasoning,
                )
            )
        if reply.content:
            blocks.append(({"type": "text", "text": ""}, "text_delta", "text", reply.content))
        if reply.kind == "tool_call":
            start = {"type": "tool_use", "id": reply.call_id, "name": reply.tool_name, "input": {}}
            blocks.append((start, "input_json_delta", "partial_json", json.dumps(reply.arguments)))
        for index, (start, delta_type, key, value) in enumerate(blocks):
            wire.frame(
                _anthropic_event(
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start},
                )
            )
            for piece in reply.pieces(value):
                delta = {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": delta_type, key: piece},
                }
                wire.frame(_anthropic_event("content_block_delta", delta), content=True)
            if delta_type == "thinking_delta":
                signature = {"type": "signature_delta", "signature": "ZmFrZS1zaWduYXR1cmU="}
                delta = {"type": "content_block_delta", "index": index, "delta": signature}
                wire.frame(_anthropic_event("content_block_delta", delta))
            wire.frame(_anthropic_event("content_block_stop", {"type": "content_block_stop", "index": index}))
        stop_reason = "tool_use" if reply.kind == "tool_call" else "end_turn"
        wire.frame(
            _anthropic_event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": completion},
                },
            )
        )
        wire.frame(_anthropic_event("message_stop", {"type": "message_stop"}))

    def stream_ollama(self, wire: _Wire, reply: Reply) -> None:
        model = self.model
        for piece in reply.pieces(reply.reasoning):
            wire.frame(
                _ollama_line(model, {"role": "assistant", "content": "", "thinking": piece}), content=True
            )
        for piece in reply.pieces(reply.content):
            wire.frame(_ollama_line(model, {"role": "assistant", "content": piece}), content=True)
        if reply.kind == "tool_call":
            call = {"function": {"name": reply.tool_name, "arguments": reply.arguments}}
            wire.frame(
                _ollama_line(model, {"role": "assistant", "content": "", "tool_calls": [call]}), content=True
            )
        prompt, completion = self.usage_counts(reply)
        final = _ollama_line(
            model,
            {"role": "assistant", "content": ""},
            done=True,
            done_reason="stop",
            prompt_eval_count=prompt,
            eval_count=completion,
        )
        wire.frame(final)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], owner: FakeLLMServer) -> None:
        self.owner = owner
        self.stopping = threading.Event()
        self.released = threading.Event()
        super().__init__(address, _Handler)


class FakeLLMServer:
    """A scripted OpenAI/Anthropic/Ollama streaming server in a background thread.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`. Only 127.0.0.1 is bound.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        default: Reply | None = None,
        requests_log: Path | None = None,
    ) -> None:
        self._address = (host, port)
        self._default = default or Reply.text(DEFAULT_TEXT)
        self._replies: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._requests_log = requests_log
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._info: dict[str, Any] = {}
        self._info_requests: list[str] = []
        #: Seconds every self-description request waits before its answer (``hang_info``).
        self.info_hang = 0.0

    # -- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> FakeLLMServer:
        if self._httpd is not None:
            raise RuntimeError("the fake server is already running")
        self._httpd = _HTTPServer(self._address, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-llm-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: wakes every stalled reply, closes the listening socket, joins the thread."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- addresses -------------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """What the OpenAI SDK takes as ``base_url`` (it appends ``/chat/completions``)."""
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """What the Anthropic SDK takes as ``base_url`` (it appends ``/v1/messages``)."""
        return self.base_url

    @property
    def ollama_base_url(self) -> str:
        return self.base_url

    # -- script and record -------------------------------------------------------------------------

    def release_stalls(self) -> None:
        """A stalled reply (``Reply.stall``), now or later, goes on at once: a test that holds a
        turn open while something else happens ends the hold when that is done."""
        if self._httpd is not None:
            self._httpd.released.set()

    def script(self, *replies: Reply) -> None:
        """Queue replies; each request takes the next one, in order, whatever its protocol."""
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been used yet."""
        with self._lock:
            return len(self._replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def serve_info(self, path: str, payload: Any) -> None:
        """Answer ``path`` (``/props``, ``/v1/models``, ``/api/ps``, ``/api/show``) with ``payload``."""
        with self._lock:
            self._info[path.rstrip("/")] = payload

    def hang_info(self, seconds: float) -> None:
        """Make every self-description request wait ``seconds`` (a server stuck loading a model)."""
        self.info_hang = seconds

    @property
    def info_requests(self) -> list[str]:
        """``"GET /props"``-style lines for the self-description requests received, oldest first."""
        with self._lock:
            return list(self._info_requests)

    def info_for(self, path: str) -> Any:
        with self._lock:
            return self._info.get(path)

    def record_info(self, line: str) -> None:
        with self._lock:
            self._info_requests.append(line)

    def next_reply(self) -> Reply:
        with self._lock:
            return self._replies.popleft() if self._replies else self._default

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
            if self._requests_log is not None:
                with self._requests_log.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(request.to_json()) + "\n")


def load_script(path: Path) -> tuple[list[Reply], Reply | None]:
    """Read a script file: a list of replies, or ``{"replies": [...], "default": {...}}``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        return [Reply.from_json(item) for item in data], None
    if not isinstance(data, dict):
        raise ValueError("a script is a JSON list of replies or an object with 'replies' and 'default'")
    replies = [Reply.from_json(item) for item in data.get("replies", [])]
    default = Reply.from_json(data["default"]) if data.get("default") else None
    return replies, default


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fakes.llm_server", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 picks a free one)")
    parser.add_argument("--script", type=Path, help="JSON file of replies")
    parser.add_argument("--requests-log", type=Path, help="append every request to this JSONL file")
    parser.add_argument("--exit-on-stdin-eof", action="store_true", help="stop when stdin is closed")
    args = parser.parse_args(argv)

    replies, default = load_script(args.script) if args.script else ([], None)
    server = FakeLLMServer(port=args.port, default=default, requests_log=args.requests_log)
    server.script(*replies)
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    with server:
        print(server.base_url, flush=True)
        if args.exit_on_stdin_eof:

            def wait_for_eof() -> None:
                sys.stdin.read()
                done.set()

            threading.Thread(target=wait_for_eof, daemon=True).start()
        while not done.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
