"""The opencode preset against the real opencode CLI and a loopback chat-completions API."""

from __future__ import annotations

import json

import pytest

from tests.realcli import mockapi
from tests.realcli.conftest import RealEnv

pytestmark = [pytest.mark.realcli, pytest.mark.slow]


def test_review_parses_into_findings(real: RealEnv) -> None:
    real.only("opencode")
    entry = real.review("opencode")
    assert entry["status"] == "completed", entry
    [finding] = entry["findings"]
    assert "zero divisor" in finding["description"]
    assert any("divide" in json.dumps(r.body) for r in real.api.sent("chat"))


@pytest.mark.parametrize(("reply", "reason"), [
    (mockapi.TOO_LONG, "prompt is too long"),
    (mockapi.UNAUTHORIZED, "invalid x-api-key"),
])
def test_api_errors_fail_with_opencodes_reason_without_ansi(real: RealEnv,
                                                            reply: mockapi.Reply,
                                                            reason: str) -> None:
    real.api.script["chat"] = reply
    real.only("opencode")
    entry = real.review("opencode")
    assert entry["status"] == "failed"
    assert entry["error"].startswith("Channel failed: Error:")
    assert reason in entry["error"]
    assert "\x1b" not in entry["error"]


def test_auth_check_makes_no_model_call_and_needs_a_configured_model(real: RealEnv) -> None:
    real.only("opencode")
    row = real.doctor_row("opencode")
    assert row["status"] == "ok", row
    assert row["version"] == "1.18.33"
    assert real.api.sent("chat") == []  # no round trip, so no 30 s hang
    (real.home / ".config" / "opencode" / "opencode.json").write_text("{}")
    row = real.doctor_row("opencode")
    # Without the user's own model opencode would answer with a free default: not ready.
    assert row["status"] == "auth_failed"
    assert row["recovery"].startswith("opencode auth login")
    said = 'the check said: no "model" in the opencode config, and opencode auth list has ' \
           "0 credentials"
    assert row["recovery"].endswith(said)
    review = real.mmr("review", "--sync", "--quiet", "--channels", "opencode")
    assert review.code == 1
    assert "opencode: failed — opencode auth login" in review.err and said in review.err
    assert "\x1b" not in review.err
