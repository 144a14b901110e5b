"""A small, real OpenAI-compatible HTTP server on 127.0.0.1 that follows a script.

Tests (digest, hermes plugin) point a real OpenAI client at it instead of patching the client. Each POST to
/v1/chat/completions takes the next scripted reply; every request body is recorded for assertions.
Streaming requests ("stream": true) are answered as server-sent events in the chat-completion-chunk form.

    with FakeOpenAI([tool_call("Extraction", {"claims": []}), status(500)]) as server:
        client = OpenAI(base_url=server.base_url, api_key="sk-fake")

Replies:
- `tool_call(name, arguments)`: an assistant message with one function tool call (instructor TOOLS mode);
  `arguments` may be a dict (JSON-encoded) or a raw string (to script malformed output).
- `text(content)`: a plain assistant message.
- `status(code, message)`: an HTTP error with an OpenAI-style error body.
- `delay(seconds, then)`: wait before answering (a client with a shorter timeout sees a timeout).
- `hold(event, then)`: answer only once the test sets `event` (a slow model the test releases; at most
  HOLD_LIMIT seconds, so a failing test never leaves a request hanging).
When the script runs out the server answers 500 "script exhausted", so a test that calls more than it
planned fails loudly.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from factledger.hermes_plugin.scripted_model import (
    ModelReply,
    ToolCall,
    completion_body,
    stream_chunks,
    write_json,
    write_stream,
)


HOLD_LIMIT = 120.0


@dataclass(frozen=True)
class Reply:
    kind: str  # "tool_call" | "text" | "status"
    name: str = ""
    arguments: str = ""
    content: str = ""
    code: int = 200
    message: str = ""
    delay: float = 0.0
    gate: threading.Event | None = field(default=None, compare=False)


def tool_call(name: str, arguments: dict[str, Any] | str) -> Reply:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Reply("tool_call", name=name, arguments=args)


def text(content: str) -> Reply:
    return Reply("text", content=content)


def status(code: int, message: str = "scripted error") -> Reply:
    return Reply("status", code=code, message=message)


def delay(seconds: float, then: Reply) -> Reply:
    return Reply(then.kind, then.name, then.arguments, then.content, then.code, then.message, delay=seconds)


def hold(event: threading.Event, then: Reply) -> Reply:
    return Reply(then.kind, then.name, then.arguments, then.content, then.code, then.message, gate=event)


@dataclass
class RecordedRequest:
    path: str
    body: dict[str, Any]


@dataclass
class _State:
    script: list[Reply]
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    model: str = "fake-model"

    def next_reply(self) -> Reply:
        with self.lock:
            if not self.script:
                return status(500, "script exhausted")
            return self.script.pop(0)


def _model_reply(reply: Reply) -> ModelReply:
    """The scripted reply in the package's one wire format (hermes_plugin.scripted_model)."""
    if reply.kind == "tool_call":
        return ModelReply(tool_calls=(ToolCall(reply.name, reply.arguments),))
    return ModelReply(text=reply.content)


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send_json(self, code: int, payload: dict[str, Any]) -> None:
        write_json(self, code, payload)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": self.server.state.model, "object": "model", "owned_by": "fake"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        state = self.server.state
        with state.lock:
            state.requests.append(RecordedRequest(self.path, body))
            counter = len(state.requests)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        reply = state.next_reply()
        if reply.delay:
            time.sleep(reply.delay)
        if reply.gate is not None:
            reply.gate.wait(HOLD_LIMIT)
        if reply.kind == "status":
            self._send_json(reply.code, {"error": {"message": reply.message, "type": "server_error", "code": reply.code}})
            return
        model = body.get("model") or state.model
        if body.get("stream"):
            write_stream(self, stream_chunks(model, _model_reply(reply), counter))
            return
        try:
            self._send_json(200, completion_body(model, _model_reply(reply), counter))
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a scripted timeout)
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, state: _State):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state


class FakeOpenAI:
    """Start on enter, stop on exit. `base_url` ends in /v1; `requests` records every POST body."""

    def __init__(self, script: Iterable[Reply] = (), *, model: str = "fake-model"):
        self._state = _State(list(script), model=model)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "FakeOpenAI":
        self._server = _Server(self._state)
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def base_url(self) -> str:
        assert self._server is not None, "the server is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def add(self, *replies: Reply) -> None:
        """Append replies to the script while the server runs."""
        with self._state.lock:
            self._state.script.extend(replies)

    @property
    def remaining(self) -> int:
        with self._state.lock:
            return len(self._state.script)
