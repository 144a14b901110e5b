"""A scripted stand-in for a model: a real HTTP server on 127.0.0.1 speaking the OpenAI chat API.

It lets Hermes run real turns with no API key and nothing leaving the machine: the demo
(`factledger demo --hermes`) and the end-to-end tests drive Hermes's AIAgent against it. It answers
`GET /v1/models` and `POST /v1/chat/completions`, streaming Server-Sent Events when asked (Hermes always
asks) and plain JSON otherwise. Each chat request that offers tools (the agent's own turns) takes the
next step of the script: a text reply, tool calls, or a function of the request that returns one.
Requests without tools (Hermes's auxiliary calls, such as titles) get a short fixed reply and do not
consume the script. Every request is recorded for inspection.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_NAME = "fake-model"
AUXILIARY_REPLY = "Scripted conversation"
EXHAUSTED_REPLY = "(the script has no more steps)"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] | str  # a string is sent as is (to script malformed arguments)

    def arguments_json(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class ModelReply:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    @classmethod
    def say(cls, text: str) -> "ModelReply":
        return cls(text=text)

    @classmethod
    def call(cls, name: str, arguments: dict[str, Any] | str, *more: ToolCall) -> "ModelReply":
        return cls(tool_calls=(ToolCall(name, arguments), *more))


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request as the server received it."""

    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def tool_names(self) -> list[str]:
        return [t.get("function", {}).get("name", "") for t in self.body.get("tools") or []]

    @staticmethod
    def _text(message: dict[str, Any]) -> str:
        content = message.get("content")
        if isinstance(content, list):
            return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        return "" if content is None else str(content)

    def last_user_text(self) -> str:
        """The last user message as sent (with Hermes's recalled <memory-context> block appended)."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return self._text(message)
        return ""

    def system_text(self) -> str:
        return "\n".join(self._text(m) for m in self.messages if m.get("role") == "system")

    def memory_context(self) -> str:
        """The recalled block Hermes fenced into the last user message ('' when there is none)."""
        text = self.last_user_text()
        start = text.find("<memory-context>")
        end = text.find("</memory-context>")
        return text[start + len("<memory-context>") : end].strip() if 0 <= start < end else ""

    def tool_results(self) -> list[dict[str, Any]]:
        """Tool messages after the last user message, their content parsed as JSON when it is JSON."""
        results: list[dict[str, Any]] = []
        for message in reversed(self.messages):
            if message.get("role") == "user":
                break
            if message.get("role") == "tool":
                text = self._text(message)
                try:
                    parsed: Any = json.loads(text)
                except ValueError:
                    parsed = text
                results.append({"tool_call_id": message.get("tool_call_id"), "content": parsed})
        return list(reversed(results))


Step = ModelReply | Callable[[ChatRequest], ModelReply]


@dataclass
class _State:
    script: deque[Step] = field(default_factory=deque)
    requests: list[ChatRequest] = field(default_factory=list)
    auxiliary: list[ChatRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    calls: int = 0


class ScriptedModelServer:
    """Start with `with ScriptedModelServer(script) as server:`; point Hermes at `server.base_url`."""

    def __init__(self, script: Iterable[Step] = (), *, model: str = MODEL_NAME, host: str = "127.0.0.1"):
        self.model = model
        self._state = _State(script=deque(script))
        self._server = ThreadingHTTPServer((host, 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "ScriptedModelServer":
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-model", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> "ScriptedModelServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the script -------------------------------------------------------------------------------

    def push(self, *steps: Step) -> None:
        with self._state.lock:
            self._state.script.extend(steps)

    @property
    def remaining(self) -> int:
        with self._state.lock:
            return len(self._state.script)

    @property
    def requests(self) -> list[ChatRequest]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def auxiliary_requests(self) -> list[ChatRequest]:
        with self._state.lock:
            return list(self._state.auxiliary)

    def _answer(self, request: ChatRequest) -> ModelReply:
        with self._state.lock:
            if not request.body.get("tools"):
                self._state.auxiliary.append(request)
                return ModelReply.say(AUXILIARY_REPLY)
            self._state.requests.append(request)
            step = self._state.script.popleft() if self._state.script else ModelReply.say(EXHAUSTED_REPLY)
        return step(request) if callable(step) else step

    def _next_id(self) -> int:
        with self._state.lock:
            self._state.calls += 1
            return self._state.calls


USAGE = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
PIECE = 16  # streamed text and tool arguments arrive in pieces of this many characters, as from a real server


def completion_body(model: str, reply: ModelReply, number: int) -> dict[str, Any]:
    """A non-streaming chat completion carrying `reply` (the OpenAI wire format)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{number}_{i}", "type": "function", "function": {"name": c.name, "arguments": c.arguments_json()}}
            for i, c in enumerate(reply.tool_calls)
        ]
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": USAGE,
    }


def stream_chunks(model: str, reply: ModelReply, number: int) -> Iterable[dict[str, Any]]:
    """The chat-completion-chunk events of a streamed `reply`, ending with a usage-only chunk."""
    base = {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for start in range(0, len(reply.text), PIECE):
        yield chunk({"content": reply.text[start : start + PIECE]})
    for i, call in enumerate(reply.tool_calls):
        head = {"index": i, "id": f"call_{number}_{i}", "type": "function", "function": {"name": call.name, "arguments": ""}}
        yield chunk({"tool_calls": [head]})
        arguments = call.arguments_json()
        for start in range(0, len(arguments), PIECE):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": arguments[start : start + PIECE]}}]})
    yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
    yield {**base, "choices": [], "usage": USAGE}


def write_json(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def write_stream(handler: BaseHTTPRequestHandler, chunks: Iterable[dict[str, Any]]) -> None:
    """Server-sent events, then [DONE]; a client that went away (a scripted timeout) is not an error."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.end_headers()
    try:
        for piece in chunks:
            handler.wfile.write(f"data: {json.dumps(piece)}\n\n".encode("utf-8"))
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass
    handler.close_connection = True


def _handler_for(server: ScriptedModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            write_json(self, status, payload)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": server.model, "object": "model", "owned_by": "factledger"}]})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._json(400, {"error": {"message": "the body is not JSON"}})
                return
            reply = server._answer(ChatRequest(body))
            number = server._next_id()
            if not body.get("stream"):
                self._json(200, completion_body(server.model, reply, number))
                return
            write_stream(self, stream_chunks(server.model, reply, number))

    return Handler
