"""The credential boundary of HTTP channels: the key stays in its header."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmr.dispatch.http_security import (
    ApiKeyMissingError,
    UnsafeHeaderError,
    display_url,
    prepare_headers,
    scrub,
)
from tests.integration.http.conftest import (
    KEY,
    FakeServer,
    Recorded,
    http_channel,
    http_plan,
    openai_envelope,
    run_plan,
)


def _echo_headers(request: Recorded) -> str:
    return "\n".join(f"{name}: {value}" for name, value in request.headers)


@pytest.mark.parametrize("status", [401, 403, 500])
def test_an_error_body_echoing_the_key_is_never_kept(http_server: FakeServer,
                                                     status: int) -> None:
    http_server.set(status=status, body=_echo_headers)

    result = run_plan(http_plan(http_server.url()))

    assert KEY in http_server.requests[0].header("authorization")  # it was sent...
    assert KEY not in repr(result)  # ...and nothing mmr keeps holds it
    assert result.error == result.log == f"HTTP {status}"


def test_a_200_reply_quoting_the_key_is_scrubbed(http_server: FakeServer) -> None:
    http_server.set(body=lambda request: openai_envelope("echo: " + _echo_headers(request)))

    result = run_plan(http_plan(http_server.url()))

    assert result.status == "completed"
    assert KEY not in (result.content or "")
    assert "Authorization: Bearer <redacted>" in (result.content or "")


@pytest.mark.parametrize("bad_key", [
    f"{KEY}\r\nX-Injected: 1",
    f"{KEY}\n",
    f"{KEY}\rX",
    f"{KEY}\x1b[0m",
    f"{KEY}\x7f",
    f"{KEY}€",  # outside Latin-1: no byte form a header can carry
])
def test_a_key_with_control_characters_is_refused_before_sending(
        http_server: FakeServer, bad_key: str) -> None:
    result = run_plan(http_plan(http_server.url()), env={"TEST_KEY": bad_key})

    assert (result.status, result.error) == ("failed", "request failed")
    assert http_server.requests == []
    first, reason = result.log.split("\n")
    assert first == "request failed"
    assert 'api key header "Authorization" (value from env var TEST_KEY)' in reason
    assert "refused before sending" in reason
    assert KEY not in repr(result) and "Injected" not in result.log


def test_a_nul_in_the_key_is_refused() -> None:
    # A process environment cannot hold a NUL, so this one is checked on the mapping itself.
    with pytest.raises(UnsafeHeaderError, match="a NUL character"):
        prepare_headers(http_channel("http://h/v1/chat/completions"), {"TEST_KEY": f"{KEY}\0"})


def test_a_line_break_in_a_static_header_value_is_refused(http_server: FakeServer) -> None:
    plan = http_plan(http_server.url(), headers={"X-Org": "acme\r\nX-Evil: 1"})

    result = run_plan(plan)

    assert (result.status, result.error) == ("failed", "request failed")
    assert 'header "X-Org" has a value that contains a line break' in result.log
    assert "Evil" not in result.log
    assert http_server.requests == []


@pytest.mark.parametrize("name", ["X Org", "X-Org\r\nX-Evil", "Bad:Name", "", "Ünï"])
def test_an_invalid_header_name_is_refused_without_echoing_it(http_server: FakeServer,
                                                               name: str) -> None:
    result = run_plan(http_plan(http_server.url(), headers={"X-Ok": "1", name: "v"}))

    assert (result.status, result.error) == ("failed", "request failed")
    assert "header #2 of headers is not a valid HTTP header name" in result.log
    assert http_server.requests == []


def test_an_invalid_api_key_header_name_is_refused(http_server: FakeServer) -> None:
    result = run_plan(http_plan(http_server.url(), api_key_header="Authorization: Bearer"))

    assert result.status == "failed"
    assert "api_key_header is not a valid HTTP header name" in result.log
    assert http_server.requests == []


def test_a_missing_key_wins_over_a_bad_static_header(http_server: FakeServer) -> None:
    result = run_plan(http_plan(http_server.url(), headers={"X-Org": "a\nb"}), env={})

    assert result.status == "auth_failed"


def test_edge_whitespace_is_trimmed_like_fetch_does() -> None:
    channel = http_channel("http://h/v1/chat/completions", headers={"X-Org": "  acme\t"})

    prepared = prepare_headers(channel, {"TEST_KEY": f" {KEY} "})

    assert dict(prepared.headers) == {b"X-Org": b"acme", b"Authorization": f"Bearer {KEY}".encode()}


def test_latin1_values_are_sent_as_bytes() -> None:
    channel = http_channel("http://h/v1/chat/completions", headers={"X-Title": "café"},
                           api_key_env=None)

    assert prepare_headers(channel, {}).headers == ((b"X-Title", "café".encode("latin-1")),)


def test_prepared_headers_never_show_the_key_in_repr() -> None:
    prepared = prepare_headers(http_channel("http://h/v1/chat/completions"), {"TEST_KEY": KEY})

    assert KEY in str(prepared.headers)
    assert KEY not in repr(prepared) and KEY not in str(prepared)


def test_later_headers_replace_earlier_ones_case_insensitively() -> None:
    channel = http_channel("http://h/v1/chat/completions", api_key_env=None,
                           headers={"Content-Type": "text/plain", "x-a": "1", "X-A": "2"})

    prepared = prepare_headers(channel, {}, base={"content-type": "application/json"})

    assert prepared.headers == ((b"Content-Type", b"text/plain"), (b"X-A", b"2"))


def test_missing_key_error_names_the_variable_only() -> None:
    with pytest.raises(ApiKeyMissingError, match=r"^API key env var TEST_KEY not set$"):
        prepare_headers(http_channel("http://h/v1/chat/completions"), {"OTHER": KEY})
    with pytest.raises(UnsafeHeaderError):
        prepare_headers(http_channel("http://h/v1/chat/completions"), {"TEST_KEY": "a\nb"})


def test_scrub_and_display_url() -> None:
    assert scrub(f"x {KEY} y {KEY}", KEY) == "x <redacted> y <redacted>"
    assert scrub("short key k stays", "k") == "short key k stays"
    assert scrub("text", None) == "text"
    assert display_url("https://user:pw@api.example.com:8443/v1/chat?key=sk#f") == \
        "https://api.example.com:8443/v1/chat"
    assert display_url("http://[::1]:11434/v1") == "http://[::1]:11434/v1"
    assert display_url("not a url") == "<invalid URL>"
    assert display_url("http://h:99999/") == "<invalid URL>"


def test_secret_shaped_static_headers_warn_at_load(tmp_path: Path) -> None:
    """The loader warns (``mmr.config.checks``); dispatch sends as configured."""
    from mmr.config.loaded import WorkingTree
    from mmr.config.loader import load_config

    (tmp_path / ".mmr.yaml").write_text(
        "channels:\n"
        "  remote:\n"
        "    kind: http\n"
        "    endpoint: https://api.example.com/v1/chat/completions\n"
        "    model: m\n"
        "    endpoint_convention: openai-chat\n"
        "    headers:\n"
        "      X-API-Key: literal-secret\n"
        "      X-Trace: t\n"
    )
    warnings: list[str] = []

    load_config(tmp_path, project_source=WorkingTree(), on_warning=warnings.append)

    secret_warnings = [w for w in warnings if "literal" in w]
    assert secret_warnings == [
        '[mmr] warning: channel "remote" has a literal "X-API-Key" header. For HTTP channels '
        "in v3.30, move the secret to an env var and reference it via api_key_env."
    ]
    assert all("literal-secret" not in w for w in warnings)


def test_diagnostic_hints_drop_the_key_and_secret_shaped_text() -> None:
    prepared = prepare_headers(http_channel("http://h/v1/chat/completions"), {"TEST_KEY": KEY})

    assert prepared.hint(f"ConnectError: refused for {KEY}") == \
        "ConnectError: refused for <redacted>"
    assert prepared.hint("InvalidURL: bad url https://h/?api_key=abc123") == "<redacted>"
    assert prepared.hint("ConnectError: [Errno 111] Connection refused") == \
        "ConnectError: [Errno 111] Connection refused"
