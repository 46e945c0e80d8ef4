"""The codex preset against the real Codex CLI and a loopback Responses API."""

from __future__ import annotations

import socket

import pytest

from tests.realcli import mockapi
from tests.realcli.conftest import RealEnv

pytestmark = [pytest.mark.realcli, pytest.mark.slow]


def test_review_parses_into_findings(real: RealEnv) -> None:
    real.only("codex")
    entry = real.review("codex")
    assert entry["status"] == "completed", entry
    [finding] = entry["findings"]
    assert finding["severity"] == "P1"
    assert "zero divisor" in finding["description"]
    [sent] = real.api.sent("responses")
    assert "divide" in str(sent.body["input"])
    headers = {k.lower(): v for k, v in sent.headers.items()}
    assert headers["authorization"] == "Bearer sk-mock-test-key"


@pytest.mark.parametrize(("reply", "reason"), [
    (mockapi.TOO_LONG, "prompt is too long"),
    (mockapi.UNAUTHORIZED, "401 Unauthorized"),
    (mockapi.SERVER_ERROR, "ERROR:"),
])
def test_api_errors_fail_with_codex_reason_and_no_prompt(real: RealEnv, reply: mockapi.Reply,
                                                         reason: str) -> None:
    real.api.script["responses"] = reply
    real.only("codex")
    entry = real.review("codex")
    assert entry["status"] == "failed"
    assert entry["error"].startswith("Channel failed: ERROR:")
    assert reason in entry["error"]
    assert "def divide" not in entry["error"]  # codex echoes the prompt on stderr
    log = next((real.home / ".mmr" / "jobs").glob("*/channels/codex.log"), None)
    if log is not None:
        assert "def divide" not in log.read_text()


def test_env_key_provider_passes_the_auth_check_and_no_key_fails(real: RealEnv) -> None:
    real.only("codex")
    row = real.doctor_row("codex")
    assert row["status"] == "ok", row  # `codex login status` says Not logged in
    assert row["version"] == "codex-cli 0.171.0"
    del real.env["MOCK_API_KEY"]
    row = real.doctor_row("codex")
    assert row["status"] == "auth_failed"
    assert row["recovery"].startswith("codex login")
    said = "the check said: Not logged in, and MOCK_API_KEY (env_key of model provider " \
           "mock) is not set"
    assert row["recovery"].endswith(said)
    review = real.mmr("review", "--sync", "--quiet", "--channels", "codex")
    assert review.code == 1
    assert "codex: failed — codex login" in review.err and said in review.err
    assert real.api.sent("responses") == []


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_offline_codex_names_the_network_and_not_the_prompt(real: RealEnv) -> None:
    """Offline, codex loops "Reconnecting... waiting for network" (0 s, 5 s, 15 s, …): mmr
    stops it after the third line, with the reason; it used to sit until the 300 s timeout
    (a shorter timeout gives the same reason, as ``timeout``)."""
    config = real.home / ".codex" / "config.toml"
    config.write_text(config.read_text().replace(real.api.base,
                                                 f"http://127.0.0.1:{_closed_port()}"))
    real.only("codex", timeout=300)
    run = real.mmr("review", "--sync", "--format", "json", "--channels", "codex")
    entry = run.json()["per_channel"]["codex"]
    assert entry["status"] == "failed", entry
    assert entry["error"].startswith('Channel failed: stopped after 3 lines of "Reconnecting'
                                     '... waiting for network": the CLI cannot reach its '
                                     'model API'), entry["error"]
    assert "def divide" not in entry["error"]
    text = real.mmr("results", run.json()["job_id"], "--format", "text").out
    [reason] = [line for line in text.splitlines() if "waiting for network" in line]
    assert reason.strip().startswith("Reason:")  # the user sees why, not a bare timeout
    assert "def divide" not in text
