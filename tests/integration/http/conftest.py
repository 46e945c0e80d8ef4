"""A real HTTP server on 127.0.0.1 for the HTTP-channel tests.

``http_server`` starts a ``ThreadingHTTPServer`` on an ephemeral port in a thread. Each
test says how it answers (``server.set(status=..., body=..., delay_s=...)``, optionally
per path) and reads back what it received (``server.requests``). Waits happen on an event
that teardown sets, so a "slow" reply never holds the suite up.
"""

from __future__ import annotations

import json
import os
import socket
import ssl
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

import anyio
import pytest

from mmr.config.channel_schema import HttpChannel
from mmr.dispatch.http import HttpResult, run_http_channel
from mmr.dispatch.plan import ChannelPlan

KEY = "sk-test-0123456789abcdef"
CHAT_PATH = "/v1/chat/completions"
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
               "http_proxy", "https_proxy", "all_proxy", "no_proxy",
               "SSL_CERT_FILE", "SSL_CERT_DIR")


def openai_envelope(content: object) -> str:
    """A chat-completions reply whose first choice says ``content``."""
    return json.dumps({"id": "c1", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": content},
         "finish_reason": "stop"}]})


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        values = self.header_values(name)
        return values[0] if values else None

    def header_values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name.lower()]

    def json(self) -> Any:
        return json.loads(self.body)


#: A callable body may also return ``(status, body)``: a reply that depends on the request.
Body = str | bytes | Callable[[Recorded], str | bytes | tuple[int, str | bytes]]


@dataclass
class Reply:
    status: int = 200
    body: Body = field(default_factory=lambda: openai_envelope('{"approved": true, '
                                                               '"findings": []}'))
    delay_s: float = 0.0  #: before the status line
    body_delay_s: float = 0.0  #: after the headers, before the body
    headers: dict[str, str] = field(default_factory=dict)


class FakeServer:
    def __init__(self, scheme: str = "http") -> None:
        self.scheme = scheme
        self.requests: list[Recorded] = []
        self.default = Reply()
        self.routes: dict[str, Reply] = {}
        self.stop = threading.Event()
        self.port = 0

    def set(self, path: str | None = None, **reply: Any) -> None:
        """Answer every request (or only ``path``) with ``Reply(**reply)``."""
        if path is None:
            self.default = Reply(**reply)
        else:
            self.routes[path] = Reply(**reply)

    def url(self, path: str = CHAT_PATH) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def reply_for(self, path: str) -> Reply:
        return self.routes.get(path.split("?", maxsplit=1)[0], self.default)


class _Handler(BaseHTTPRequestHandler):
    server_state: FakeServer
    protocol_version = "HTTP/1.1"

    def _handle(self) -> None:
        state = self.server_state
        length = int(self.headers.get("content-length") or 0)
        recorded = Recorded(self.command, self.path, list(self.headers.items()),
                            self.rfile.read(length) if length else b"")
        state.requests.append(recorded)
        reply = state.reply_for(self.path)
        if reply.delay_s and state.stop.wait(reply.delay_s):
            return
        body = reply.body(recorded) if callable(reply.body) else reply.body
        status, body = body if isinstance(body, tuple) else (reply.status, body)
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.flush()
        if reply.body_delay_s and state.stop.wait(reply.body_delay_s):
            return
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_OPTIONS = _handle

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up mid-reply is expected here (timeouts), not an error."""


def _serve(state: FakeServer, tls: ssl.SSLContext | None = None) -> Iterator[FakeServer]:
    handler = type("Handler", (_Handler,), {"server_state": state})
    server = _Server(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx honours proxy and CA variables (trust_env); the tests must not inherit any."""
    for var in _PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def http_server() -> Iterator[FakeServer]:
    yield from _serve(FakeServer())


@pytest.fixture
def other_server() -> Iterator[FakeServer]:
    """A second server: where a redirect would send the key."""
    yield from _serve(FakeServer())


@dataclass(frozen=True)
class TlsFiles:
    cert: Path
    key: Path


@pytest.fixture
def tls_files(tmp_path: Path) -> TlsFiles:
    """A self-signed certificate for 127.0.0.1, made by the openssl CLI."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    try:
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key), "-out", str(cert),
             "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
            check=True, capture_output=True, timeout=30,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"the HTTPS tests need the openssl CLI to make a certificate: {exc}")
    return TlsFiles(cert, key)


@pytest.fixture
def https_server(tls_files: TlsFiles) -> Iterator[FakeServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls_files.cert, tls_files.key)
    yield from _serve(FakeServer("https"), context)


@pytest.fixture
def closed_port_url() -> str:
    """A chat URL on a port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}{CHAT_PATH}"


def http_channel(endpoint: str, **fields: Any) -> HttpChannel:
    """An http channel for ``endpoint``, keyed by ``$TEST_KEY`` unless told otherwise."""
    data: dict[str, Any] = {"kind": "http", "endpoint": endpoint, "model": "test-model",
                            "endpoint_convention": "openai-chat", "api_key_env": "TEST_KEY"}
    data.update(fields)
    return HttpChannel.model_validate(data)


def http_plan(endpoint: str, *, parser: Any = "default", timeout_s: float = 0.5,
              prompt: str = "review this diff", **fields: Any) -> ChannelPlan:
    channel = http_channel(endpoint, **fields)
    return ChannelPlan("local", channel, prompt, timeout_s, parser)


@contextmanager
def key_env(env: dict[str, str] | None = None) -> Iterator[None]:
    """The process environment with ``$TEST_KEY`` as ``env`` says (default: the key)."""
    env = {"TEST_KEY": KEY} if env is None else env
    with mock.patch.dict(os.environ, env):
        if "TEST_KEY" not in env:
            os.environ.pop("TEST_KEY", None)
        yield


def run_plan(plan: ChannelPlan, env: dict[str, str] | None = None) -> HttpResult:
    """Run one HTTP attempt in a fresh event loop; the key comes from ``env``."""
    with key_env(env):
        return anyio.run(run_http_channel, plan)
