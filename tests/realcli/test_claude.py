"""The claude preset against the real Claude Code CLI and a loopback Messages API."""

from __future__ import annotations

import pytest

from tests.realcli import mockapi
from tests.realcli.conftest import RealEnv

pytestmark = [pytest.mark.realcli, pytest.mark.slow]


def test_review_parses_into_findings_with_usage(real: RealEnv) -> None:
    real.only("claude")
    run = real.mmr("review", "--sync", "--quiet", "--format", "json", "--channels", "claude")
    entry = run.json()["per_channel"]["claude"]
    assert entry["status"] == "completed", entry
    [finding] = entry["findings"]
    assert finding["severity"] == "P1"
    assert finding["location"].startswith("app.py:2")
    assert "zero divisor" in finding["description"]
    # usage from claude's envelope (the mock reports 1200 in / 80 out)
    assert entry["telemetry"]["input_tokens"] == 1200
    assert entry["telemetry"]["output_tokens"] == 80
    assert entry["telemetry"]["cost_usd"] > 0
    sent = real.api.sent("anthropic")
    assert sent, "claude never called the model API"
    assert any("divide" in str(r.body.get("messages")) for r in sent)
    # ...and the text summary's channel line shows the same figures
    text = real.mmr("results", run.json()["job_id"], "--format", "text").out
    cost = entry["telemetry"]["cost_usd"]
    assert f"tokens in 1,200 · out 80 · context {entry['telemetry']['context_window']:,} · " \
           f"cost ${cost:.4f} · turns 1" in text, text


@pytest.mark.parametrize(("reply", "reason"), [
    (mockapi.TOO_LONG, "Prompt is too long"),
    (mockapi.UNAUTHORIZED, "Invalid API key"),
    (mockapi.RATE_LIMITED, "rate limit reached"),
    (mockapi.SERVER_ERROR, "upstream model crashed"),
])
def test_api_errors_fail_with_claudes_own_reason(real: RealEnv, reply: mockapi.Reply,
                                                 reason: str) -> None:
    real.api.script["anthropic"] = reply
    real.only("claude")
    entry = real.review("claude")
    assert entry["status"] == "failed"
    assert reason in entry["error"]
    assert "Process exited with code 1" not in entry["error"]


def test_logged_out_is_auth_failed_with_the_real_login_command(real: RealEnv) -> None:
    del real.env["ANTHROPIC_API_KEY"]
    real.only("claude")
    run = real.mmr("review", "--sync", "--quiet", "--format", "json", "--channels", "claude")
    assert run.code == 1
    assert "claude: failed — claude auth login" in run.err
    assert "npm install -g @anthropic-ai/claude-code" in run.err
    # claude's own reason, from `claude auth status --text`
    assert "the check said: Not logged in. Run claude auth login to authenticate." in run.err
    assert "\x1b" not in run.err
    assert real.api.sent("anthropic") == []  # the check made no model call


def test_doctor_reports_ready_then_logged_out(real: RealEnv) -> None:
    real.only("claude")
    row = real.doctor_row("claude")
    assert row["status"] == "ok", row
    assert row["version"].startswith("2.1.332")
    del real.env["ANTHROPIC_API_KEY"]
    row = real.doctor_row("claude")
    assert row["status"] == "auth_failed"
    assert row["recovery"].startswith("claude auth login")
    assert row["recovery"].endswith(
        "the check said: Not logged in. Run claude auth login to authenticate.")
    assert real.api.sent("anthropic") == []


def test_a_slow_reply_is_a_timeout(real: RealEnv) -> None:
    real.api.script["anthropic"] = mockapi.Reply(delay_s=30)
    real.only("claude", timeout=3)
    entry = real.review("claude")
    assert entry["status"] == "timeout"
    assert entry["error"].startswith("Channel timed out")
