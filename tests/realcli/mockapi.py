"""Loopback model APIs for the real reviewer CLIs: Anthropic Messages, OpenAI Responses and
OpenAI chat completions, each answering a scripted :class:`Reply` and recording every request.

One :class:`MockApi` serves all three on one 127.0.0.1 port (stdlib ``http.server`` in a
thread). ``script`` picks the reply per request kind; the default is :data:`REVIEW`.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A review in the default findings format every preset's parser reads.
REVIEW_JSON = json.dumps({
    "approved": False,
    "findings": [{
        "severity": "P1", "location": "app.py:2",
        "description": "divide() does not guard against a zero divisor",
        "suggestion": "raise ValueError when b == 0",
    }],
    "summary": "one real bug",
})


@dataclass(frozen=True)
class Reply:
    """What the server answers: ``text`` on 200, else an error ``status`` and ``message``."""

    text: str = REVIEW_JSON
    status: int = 200
    message: str = ""
    error_type: str = "invalid_request_error"
    delay_s: float = 0.0
    #: Tool calls ``(name, input)`` to answer with instead of ``text`` (every API).
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()


REVIEW = Reply()
TOO_LONG = Reply(status=400, message="prompt is too long: 250000 tokens > 200000 maximum")
UNAUTHORIZED = Reply(status=401, message="invalid x-api-key", error_type="authentication_error")
RATE_LIMITED = Reply(status=429, message="rate limit reached for requests",
                     error_type="rate_limit_error")
SERVER_ERROR = Reply(status=500, message="upstream model crashed", error_type="api_error")


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class MockApi:
    """The server's state: the reply per kind and what it was sent."""

    script: dict[str, Reply] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    models: list[str] = field(default_factory=lambda: ["mock-model"])
    #: Each listed model's ``created_at``: a server that swaps what a name serves changes it.
    model_created: str = "2025-01-01T00:00:00Z"
    #: Answer a ``response_format: json_schema`` chat request with 400, as servers without
    #: structured output do.
    reject_json_schema: bool = False
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Decides the reply from the request body when set (``script`` is then unused).
    respond: Callable[[str, dict[str, Any]], Reply] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reply_for(self, kind: str) -> Reply:
        return self.script.get(kind, self.script.get("*", REVIEW))

    def sent(self, kind: str) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if _kind(r.path) == kind]


def _kind(path: str) -> str:
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/chat/completions"):
        return "chat"
    return "other"


def _usage_anthropic() -> dict[str, int]:
    return {"input_tokens": 1200, "output_tokens": 80, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0}


class _Handler(BaseHTTPRequestHandler):
    api: MockApi

    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "type": "model", "display_name": m,
                     "created_at": self.api.model_created} for m in self.api.models]
            self._json(200, {"object": "list", "data": data, "has_more": False})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        kind = _kind(path)
        with self.api.lock:
            self.api.requests.append(Recorded(path, dict(self.headers.items()), body))
        respond = self.api.respond
        reply = respond(kind, body) if respond is not None else self.api.reply_for(kind)
        if kind == "chat" and self.api.reject_json_schema and \
                (body.get("response_format") or {}).get("type") == "json_schema":
            reply = Reply(status=400, message="response_format json_schema is not supported")
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.status != 200:
            self._error(kind, reply)
            return
        if kind == "anthropic":
            self._anthropic(body, reply)
        elif kind == "responses":
            self._responses(body, reply)
        elif kind == "chat":
            self._chat(body, reply)
        else:
            self._json(404, {"error": {"message": f"no route {path}"}})

    def _error(self, kind: str, reply: Reply) -> None:
        if kind == "anthropic":
            payload: dict[str, Any] = {"type": "error", "error": {
                "type": reply.error_type, "message": reply.message}}
        else:
            payload = {"error": {"message": reply.message, "type": reply.error_type,
                                 "code": reply.error_type}}
        self._json(reply.status, payload)

    def _json(self, status: int, payload: object) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: Iterator[tuple[str | None, dict[str, Any]]]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for name, payload in events:
            prefix = f"event: {name}\n" if name else ""
            self.wfile.write(f"{prefix}data: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True

    def _anthropic(self, body: dict[str, Any], reply: Reply) -> None:
        model = str(body.get("model") or "mock-model")
        msg_id = f"msg_{uuid.uuid4().hex[:20]}"
        message = {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                   "content": [], "stop_reason": None, "stop_sequence": None,
                   "usage": _usage_anthropic()}
        if reply.tool_calls:
            self._anthropic_tools(message, reply)
            return
        if not body.get("stream"):
            done = dict(message, content=[{"type": "text", "text": reply.text}],
                        stop_reason="end_turn")
            self._json(200, done)
            return

        def events() -> Iterator[tuple[str | None, dict[str, Any]]]:
            yield "message_start", {"type": "message_start", "message": message}
            yield "content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "text_delta", "text": reply.text}}
            yield "content_block_stop", {"type": "content_block_stop", "index": 0}
            yield "message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                    "usage": {"output_tokens": 80}}
            yield "message_stop", {"type": "message_stop"}
        self._sse(events())

    def _anthropic_tools(self, message: dict[str, Any], reply: Reply) -> None:
        """A streamed assistant turn that only calls tools (stop reason ``tool_use``)."""
        def events() -> Iterator[tuple[str | None, dict[str, Any]]]:
            yield "message_start", {"type": "message_start", "message": message}
            for index, (name, arguments) in enumerate(reply.tool_calls):
                block = {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:20]}",
                         "name": name, "input": {}}
                yield "content_block_start", {"type": "content_block_start", "index": index,
                                              "content_block": block}
                yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "input_json_delta",
                                                        "partial_json": json.dumps(arguments)}}
                yield "content_block_stop", {"type": "content_block_stop", "index": index}
            yield "message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                    "usage": {"output_tokens": 40}}
            yield "message_stop", {"type": "message_stop"}
        self._sse(events())

    def _responses(self, body: dict[str, Any], reply: Reply) -> None:
        model = str(body.get("model") or "mock-model")
        rid = f"resp_{uuid.uuid4().hex[:20]}"
        item_id = f"msg_{uuid.uuid4().hex[:20]}"
        item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}]}
        if reply.tool_calls:
            self._responses_tools(model, rid, reply)
            return
        usage = {"input_tokens": 1500, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 90, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 1590}
        response = {"id": rid, "object": "response", "model": model, "status": "completed",
                    "output": [item], "usage": usage}

        def events() -> Iterator[tuple[str | None, dict[str, Any]]]:
            yield "response.created", {"type": "response.created", "response": dict(
                response, status="in_progress", output=[])}
            yield "response.output_item.added", {"type": "response.output_item.added",
                                                 "output_index": 0, "item": dict(
                                                     item, status="in_progress", content=[])}
            yield "response.output_text.delta", {"type": "response.output_text.delta",
                                                 "item_id": item_id, "output_index": 0,
                                                 "content_index": 0, "delta": reply.text}
            yield "response.output_item.done", {"type": "response.output_item.done",
                                                "output_index": 0, "item": item}
            yield "response.completed", {"type": "response.completed", "response": response}
        self._sse(events())

    def _responses_tools(self, model: str, rid: str, reply: Reply) -> None:
        """Function calls ``(name, arguments)`` instead of a message."""
        items = [{"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:20]}",
                  "call_id": f"call_{uuid.uuid4().hex[:20]}", "name": name,
                  "arguments": json.dumps(arguments), "status": "completed"}
                 for name, arguments in reply.tool_calls]
        usage = {"input_tokens": 1500, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 1540}
        response = {"id": rid, "object": "response", "model": model, "status": "completed",
                    "output": items, "usage": usage}

        def events() -> Iterator[tuple[str | None, dict[str, Any]]]:
            yield "response.created", {"type": "response.created", "response": dict(
                response, status="in_progress", output=[])}
            for index, item in enumerate(items):
                yield "response.output_item.added", {"type": "response.output_item.added",
                                                     "output_index": index, "item": dict(
                                                         item, status="in_progress",
                                                         arguments="")}
                yield "response.output_item.done", {"type": "response.output_item.done",
                                                    "output_index": index, "item": item}
            yield "response.completed", {"type": "response.completed", "response": response}
        self._sse(events())

    def _chat(self, body: dict[str, Any], reply: Reply) -> None:
        model = str(body.get("model") or "mock-model")
        cid = f"chatcmpl-{uuid.uuid4().hex[:20]}"
        usage = {"prompt_tokens": 1100, "completion_tokens": 70, "total_tokens": 1170}
        if reply.tool_calls:
            self._chat_tools(model, cid, usage, reply)
            return
        if not body.get("stream"):
            self._json(200, {"id": cid, "object": "chat.completion", "created": 1,
                             "model": model, "choices": [{
                                 "index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply.text}}],
                             "usage": usage})
            return

        def events() -> Iterator[tuple[str | None, dict[str, Any]]]:
            base = {"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model}
            yield None, dict(base, choices=[{"index": 0, "delta": {
                "role": "assistant", "content": ""}, "finish_reason": None}])
            yield None, dict(base, choices=[{"index": 0, "delta": {"content": reply.text},
                                             "finish_reason": None}])
            yield None, dict(base, choices=[{"index": 0, "delta": {},
                                             "finish_reason": "stop"}], usage=usage)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for _, payload in events():
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


    def _chat_tools(self, model: str, cid: str, usage: dict[str, int], reply: Reply) -> None:
        """A streamed assistant turn that only calls tools (finish reason ``tool_calls``)."""
        base = {"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model}
        calls = [{"index": i, "id": f"call_{uuid.uuid4().hex[:20]}", "type": "function",
                  "function": {"name": name, "arguments": json.dumps(arguments)}}
                 for i, (name, arguments) in enumerate(reply.tool_calls)]
        chunks = [dict(base, choices=[{"index": 0, "delta": {
                      "role": "assistant", "content": None, "tool_calls": calls},
                      "finish_reason": None}]),
                  dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
                       usage=usage)]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for payload in chunks:
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


class MockServer:
    """A running :class:`MockApi` on 127.0.0.1; use as a context manager."""

    def __init__(self) -> None:
        self.api = MockApi()
        handler = type("Handler", (_Handler,), {"api": self.api})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.api.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> MockApi:
        self._thread.start()
        return self.api

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
