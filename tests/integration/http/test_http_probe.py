"""The HTTP auth probe over the wire."""

from __future__ import annotations

import time

import anyio
import pytest

from mmr.config.channel_schema import HttpChannel
from mmr.dispatch.http_probe import probe_http_channel
from mmr.dispatch.plan import AuthResult
from tests.integration.http.conftest import KEY, FakeServer, http_channel, key_env


def _probe(channel: HttpChannel, env: dict[str, str] | None = None) -> AuthResult:
    with key_env(env):
        return anyio.run(probe_http_channel, "local", channel)


def test_probe_gets_the_derived_models_url_with_the_key(http_server: FakeServer) -> None:
    channel = http_channel(http_server.url("/v1/chat/completions/"),
                           headers={"authorization": "stale", "X-Org": "acme"})

    assert _probe(channel) == AuthResult("ok")

    [request] = http_server.requests
    assert (request.method, request.path) == ("GET", "/v1/models")
    assert request.header_values("authorization") == [f"Bearer {KEY}"]
    assert request.header("x-org") == "acme"
    assert request.header("content-type") is None and request.body == b""


def test_probe_uses_check_endpoint_and_method(http_server: FakeServer) -> None:
    channel = http_channel(http_server.url("/api/generate"), auth={
        "check_endpoint": http_server.url("/health?x=1"), "check_method": "HEAD",
        "check_status_ok": [200, 204]})
    http_server.set("/health", status=204, body="")

    assert _probe(channel) == AuthResult("ok")
    assert [(r.method, r.path) for r in http_server.requests] == [("HEAD", "/health?x=1")]


@pytest.mark.parametrize("status", [401, 403])
def test_refused_credentials_fail_with_the_recovery(http_server: FakeServer,
                                                    status: int) -> None:
    http_server.set(status=status, body=lambda r: "\n".join(v for _, v in r.headers))
    channel = http_channel(http_server.url(), auth={"recovery": "export TEST_KEY first"})

    result = _probe(channel)

    assert result == AuthResult("failed", recovery="export TEST_KEY first",
                                detail=f"HTTP {status}")
    assert KEY not in repr(result)


@pytest.mark.parametrize("status", [302, 404, 500])
def test_other_statuses_fail_the_channel_not_its_auth(http_server: FakeServer,
                                                      status: int) -> None:
    # Issue 13: only 401/403 is auth_failed; the rest say nothing about the key.
    http_server.set(status=status, body=lambda r: "\n".join(v for _, v in r.headers))
    channel = http_channel(http_server.url(), auth={"recovery": "export TEST_KEY first"})

    result = _probe(channel)

    assert result == AuthResult("failed", detail=f"auth probe got HTTP {status}",
                                channel_status="failed")
    assert KEY not in repr(result)


def test_recovery_text_is_redacted(http_server: FakeServer) -> None:
    http_server.set(status=401)
    channel = http_channel(http_server.url(), auth={"recovery": "relogin --token sk-abc"})

    assert _probe(channel).recovery == "<redacted>"


def test_connection_refused_fails_without_recovery(closed_port_url: str) -> None:
    channel = http_channel(closed_port_url, auth={"recovery": "mycli login"})

    result = _probe(channel)

    assert (result.status, result.recovery, result.channel_status) == ("failed", None, "failed")
    assert (result.detail or "").startswith("request failed: connection refused: ConnectError")


def test_a_slow_server_times_out_without_retry(http_server: FakeServer) -> None:
    http_server.set(delay_s=10)
    channel = http_channel(http_server.url(), auth={"timeout": 0.3, "recovery": "x"})
    started = time.monotonic()

    result = _probe(channel)

    assert time.monotonic() - started < 1.5
    assert result == AuthResult("timeout", detail=f"auth probe GET {http_server.url('/v1/models')} "
                                                  "timed out after 0.3s (auth.timeout)")
    assert len(http_server.requests) == 1


def test_unset_key_fails_with_recovery_and_sends_nothing(http_server: FakeServer) -> None:
    channel = http_channel(http_server.url(), auth={"recovery": "export TEST_KEY=..."})

    result = _probe(channel, env={})

    assert result == AuthResult("failed", recovery="export TEST_KEY=...",
                                detail="API key env var TEST_KEY not set")
    assert http_server.requests == []


def test_a_bad_header_fails_without_recovery_and_sends_nothing(http_server: FakeServer) -> None:
    channel = http_channel(http_server.url(), auth={"recovery": "mycli login"})

    result = _probe(channel, env={"TEST_KEY": f"{KEY}\r\nX-Injected: 1"})

    assert (result.status, result.recovery) == ("failed", None)
    assert "refused before sending" in (result.detail or "")
    assert KEY not in repr(result)
    assert http_server.requests == []


def test_a_bad_method_fails_without_sending(http_server: FakeServer) -> None:
    channel = http_channel(http_server.url(), auth={"check_method": "GET / HTTP/1.1\r\nX: y"})

    result = _probe(channel)

    assert result == AuthResult("failed", detail="auth.check_method is not a valid HTTP method")
    assert http_server.requests == []


def test_no_key_configured_probes_without_credentials(http_server: FakeServer) -> None:
    assert _probe(http_channel(http_server.url(), api_key_env=None), env={}).status == "ok"
    assert http_server.requests[0].header("authorization") is None


def test_async_probe_reads_os_environ(http_server: FakeServer,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_KEY", "sk-env-abcdefgh")

    async def probe() -> AuthResult:
        return await probe_http_channel("local", http_channel(http_server.url()))

    assert anyio.run(probe).status == "ok"
    assert http_server.requests[0].header("authorization") == "Bearer sk-env-abcdefgh"


def test_a_model_the_server_does_not_list_fails_naming_what_it_serves(
        http_server: FakeServer) -> None:
    """The listed ids are the server's words: a bidi override in one is shown, not sent on."""
    import json

    http_server.set("/v1/models", status=200, body=json.dumps(
        {"data": [{"id": "llama-3"}, {"id": "evil\u202etxt.exe"}]}))
    channel = http_channel(http_server.url("/v1/chat/completions"))
    result = _probe(channel)
    assert result.status == "failed"
    assert result.recovery is not None
    assert result.recovery.endswith("one of: llama-3, evil\\u202etxt.exe")
    assert "\u202e" not in result.recovery
