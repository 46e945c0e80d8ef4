"""HTTP channels through the real dispatcher and job store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmr.config.channel_schema import HttpChannel
from mmr.dispatch.auth import check_channel
from mmr.dispatch.plan import ChannelPlan
from tests.integration.dispatch.dispatch_helpers import FINDING_REPLY, new_job
from tests.integration.http.conftest import KEY, FakeServer, openai_envelope


def _http(server: FakeServer, **fields: object) -> HttpChannel:
    return HttpChannel.model_validate({
        "kind": "http", "endpoint": server.url(), "model": "m",
        "endpoint_convention": "openai-chat", "api_key_env": "MMR_TEST_KEY", **fields,
    })


def test_a_200_reply_completes_parses_and_is_stored(http_server: FakeServer, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMR_TEST_KEY", KEY)
    http_server.set(body=openai_envelope(json.dumps(FINDING_REPLY)))
    job = new_job(tmp_path, ["api"])

    plans = [ChannelPlan("api", _http(http_server), "review me", 5, "default")]
    outcome = job.dispatch(plans)["api"]

    assert outcome.status == "completed"
    assert outcome.parsed is not None and outcome.parsed.findings[0].description == "off by one"
    assert json.loads(job.output("api") or "")["findings"][0]["severity"] == "P1"
    assert http_server.requests[0].header("Authorization") == f"Bearer {KEY}"
    assert KEY not in "".join(p.read_text() for p in job.channels_dir.iterdir())


def test_a_500_reply_fails_without_leaking_the_key(http_server: FakeServer, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMR_TEST_KEY", KEY)
    http_server.set(status=500, body=f"boom, you sent {KEY}")
    job = new_job(tmp_path, ["api"])

    outcome = job.dispatch([ChannelPlan("api", _http(http_server), "p", 5, "default")])["api"]

    assert outcome.status == "failed"
    assert job.status("api")["status"] == "failed"
    assert KEY not in "".join(p.read_text() for p in job.channels_dir.iterdir())


def test_an_unset_key_is_an_auth_failure_in_the_preflight(http_server: FakeServer,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MMR_TEST_KEY", raising=False)

    result = check_channel("api", _http(http_server))

    assert result.status == "failed"
    assert http_server.requests == []
