"""HTTP channel dispatch against a real local server."""

from __future__ import annotations

import json
import time

import pytest

from mmr.dispatch.http import extract_content, timed_out_text, wants_json_reply
from mmr.parsers.specs import RegexFindingsSpec, UnwrapJsonpathSpec
from tests.integration.http.conftest import (
    KEY,
    FakeServer,
    http_plan,
    key_env,
    openai_envelope,
    run_plan,
)

REPLY = '{"approved": false, "findings": [{"severity": "P1", "location": "a.py:3", ' \
        '"description": "bug", "suggestion": "fix"}]}'


def test_200_envelope_completes_with_the_assistant_content(http_server: FakeServer) -> None:
    http_server.set(body=openai_envelope(REPLY))

    result = run_plan(http_plan(http_server.url()))

    assert result.status == "completed"
    assert result.content == REPLY
    assert (result.error, result.log) == (None, "")


def test_request_shape_headers_and_json_mode(http_server: FakeServer) -> None:
    run_plan(http_plan(http_server.url(), prompt="the wrapped prompt ✓",
                       headers={"X-Org": "acme"}))

    [request] = http_server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.header("content-type") == "application/json"
    assert request.header_values("authorization") == [f"Bearer {KEY}"]
    assert request.header("x-org") == "acme"
    assert request.json() == {
        "model": "test-model",
        "messages": [{"role": "user", "content": "the wrapped prompt ✓"}],
        "response_format": {"type": "json_object"},
    }


@pytest.mark.parametrize("parser", ["regex", "default-last", "unknown-name"])
def test_json_mode_follows_the_parser(http_server: FakeServer, parser: str) -> None:
    spec: object = parser
    if parser == "regex":
        spec = RegexFindingsSpec.model_validate({
            "kind": "regex-findings", "pattern": "x", "fields": {"location": 1,
                                                                 "description": 2}})
    run_plan(http_plan(http_server.url(), parser=spec))

    body = http_server.requests[0].json()
    # Q19: default-last asks for JSON too; regex-findings and unknown names do not.
    assert ("response_format" in body) is (parser == "default-last")


def test_wants_json_reply_table() -> None:
    unwrap = UnwrapJsonpathSpec.model_validate({"kind": "unwrap-jsonpath", "wrap": "$.text"})
    for spec in ("default", "default-last", "gemini", "doc-conformance", unwrap):
        assert wants_json_reply(spec), spec
    for spec in ("", "Default", "claude", "markdown"):
        assert not wants_json_reply(spec), spec


def test_static_authorization_is_replaced_by_the_key_header(http_server: FakeServer) -> None:
    run_plan(http_plan(http_server.url(), headers={"authorization": "stale",
                                                   "X-Trace": "t1"}))

    [request] = http_server.requests
    assert request.header_values("authorization") == [f"Bearer {KEY}"]
    assert request.header("x-trace") == "t1"


def test_custom_key_header_with_raw_key(http_server: FakeServer) -> None:
    run_plan(http_plan(http_server.url(), api_key_header="x-api-key", api_key_prefix=""))

    [request] = http_server.requests
    assert request.header("x-api-key") == KEY
    assert request.header("authorization") is None


def test_no_api_key_env_sends_no_credential(http_server: FakeServer) -> None:
    result = run_plan(http_plan(http_server.url(), api_key_env=None), env={})

    assert result.status == "completed"
    assert http_server.requests[0].header("authorization") is None


@pytest.mark.parametrize("env", [{}, {"TEST_KEY": ""}])
def test_unset_key_is_auth_failed_and_nothing_is_sent(http_server: FakeServer,
                                                      env: dict[str, str]) -> None:
    result = run_plan(http_plan(http_server.url()), env=env)

    assert result.status == "auth_failed"
    assert result.error == result.log == "API key env var TEST_KEY not set"
    assert http_server.requests == []


def test_key_is_read_from_os_environ_by_default(http_server: FakeServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import anyio

    from mmr.dispatch.http import run_http_channel

    monkeypatch.setenv("TEST_KEY", "sk-from-the-environment-123")
    result = anyio.run(run_http_channel, http_plan(http_server.url()))

    assert result.status == "completed"
    assert http_server.requests[0].header("authorization") == \
        "Bearer sk-from-the-environment-123"


def test_401_is_auth_failed(http_server: FakeServer) -> None:
    http_server.set(status=401, body='{"error": "bad key"}')

    result = run_plan(http_plan(http_server.url()))

    assert (result.status, result.error, result.log) == ("auth_failed", "HTTP 401", "HTTP 401")
    assert result.content is None


@pytest.mark.parametrize("status", [201, 204, 403, 429, 500, 503])
def test_other_statuses_fail_and_the_body_is_not_kept(http_server: FakeServer,
                                                      status: int) -> None:
    http_server.set(status=status, body="server says: details here")

    result = run_plan(http_plan(http_server.url()))

    # Issue 13: 403 is a refused credential too, like 401; every other status is `failed`.
    expected = "auth_failed" if status == 403 else "failed"
    assert (result.status, result.error, result.log) == \
        (expected, f"HTTP {status}", f"HTTP {status}")
    assert result.content is None
    assert "details" not in repr(result)


def test_malformed_json_body_is_kept_raw(http_server: FakeServer) -> None:
    http_server.set(body='{"choices": [ {"message": ')

    result = run_plan(http_plan(http_server.url()))

    # completed: the parser (at settle) is what reports the broken reply
    assert result.status == "completed"
    assert result.content == '{"choices": [ {"message": '


@pytest.mark.parametrize("body", [
    '{"choices": []}',
    '{"choices": [{"message": {"content": null}}]}',
    '{"choices": [{"message": {"content": 42}}]}',
    '{"result": "something else"}',
    "[1, 2]",
    "plain text reply",
])
def test_non_envelope_200_bodies_are_kept_raw(http_server: FakeServer, body: str) -> None:
    http_server.set(body=body)

    result = run_plan(http_plan(http_server.url()))

    assert (result.status, result.content) == ("completed", body)


def test_extract_content_decodes_utf8_once_with_replacement() -> None:
    envelope = openai_envelope("naïve ✓").encode()
    assert extract_content(envelope) == "naïve ✓"
    assert extract_content(b"\xff{bad") == "\ufffd{bad"


def test_slow_headers_time_out(http_server: FakeServer) -> None:
    http_server.set(delay_s=10)
    started = time.monotonic()

    result = run_plan(http_plan(http_server.url(), timeout_s=0.5))

    assert time.monotonic() - started < 2
    assert (result.status, result.error, result.log) == \
        ("timeout", "request timed out after 0.5s", "request timed out after 0.5s")
    assert result.content is None


def test_the_deadline_covers_reading_the_body(http_server: FakeServer) -> None:
    http_server.set(body_delay_s=10)
    started = time.monotonic()

    result = run_plan(http_plan(http_server.url(), timeout_s=0.4))

    assert time.monotonic() - started < 2
    assert (result.status, result.error) == ("timeout", "request timed out after 0.4s")


def test_timeout_text_prints_numbers_like_javascript() -> None:
    assert timed_out_text(1.0) == "request timed out after 1s"
    assert timed_out_text(2) == "request timed out after 2s"
    assert timed_out_text(0.01) == "request timed out after 0.01s"


def test_connection_refused_is_request_failed(closed_port_url: str) -> None:
    result = run_plan(http_plan(closed_port_url))

    assert (result.status, result.error) == \
        ("failed", "request failed: connection refused")  # issue 13: says which
    first, hint = result.log.split("\n")
    assert first == "request failed: connection refused" and hint.startswith("ConnectError")


def test_unsupported_scheme_is_request_failed() -> None:
    result = run_plan(http_plan("ftp://127.0.0.1/v1/chat/completions"))

    assert (result.status, result.error) == ("failed", "request failed: invalid URL")


def test_an_unknown_host_is_a_dns_failure() -> None:
    result = run_plan(http_plan("http://no-such-host.invalid/v1/chat/completions"))

    assert (result.status, result.error) == ("failed", "request failed: DNS lookup failed")


def test_redirects_are_not_followed(http_server: FakeServer, other_server: FakeServer) -> None:
    http_server.set(status=307, headers={"Location": other_server.url()})

    result = run_plan(http_plan(http_server.url()))

    assert (result.status, result.error) == ("failed", "HTTP 307")
    assert other_server.requests == []  # the key never went to the other host


def test_request_body_is_utf8_json(http_server: FakeServer) -> None:
    run_plan(http_plan(http_server.url(), prompt='diff with "quotes" and ünïcode'))

    raw = http_server.requests[0].body
    assert json.loads(raw.decode("utf-8"))["messages"][0]["content"] == \
        'diff with "quotes" and ünïcode'


def test_http_proxy_from_the_environment_is_honoured(http_server: FakeServer,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Unlike Node's fetch, mmr goes through ``HTTP_PROXY`` (users behind proxies need it)."""
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{http_server.port}")
    http_server.set(body=openai_envelope("via proxy"))

    result = run_plan(http_plan("http://llm.example.invalid/v1/chat/completions"))

    assert (result.status, result.content) == ("completed", "via proxy")
    [request] = http_server.requests  # the proxy saw the absolute-form target
    assert request.path == "http://llm.example.invalid/v1/chat/completions"


def test_an_outer_cancellation_stops_the_request_promptly(http_server: FakeServer) -> None:
    import anyio

    from mmr.dispatch.http import run_http_channel

    http_server.set(delay_s=10)

    async def interrupted() -> bool:
        with anyio.move_on_after(0.2) as scope:
            await run_http_channel(http_plan(http_server.url(), timeout_s=10))
        return scope.cancelled_caught

    started = time.monotonic()
    with key_env():
        assert anyio.run(interrupted)
    assert time.monotonic() - started < 1.5
