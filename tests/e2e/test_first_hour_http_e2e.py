"""A model server on 127.0.0.1 as a new user meets one (llama.cpp's server answers so),
through the installed ``mmr``: each failure says why, and only points at doctor when
doctor can tell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from mmr.config.paths import user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.e2e.test_first_hour_e2e import changed_repo, run_piped
from tests.fakes.plugin import FakeCliFactory
from tests.integration.http.conftest import CHAT_PATH, FakeServer, Reply

DOCTOR_HINT = "run `mmr doctor`"
CLEAN = {"approved": True, "findings": [], "summary": "ok"}


def envelope(content: str, finish_reason: str = "stop") -> str:
    return json.dumps({"choices": [{"index": 0, "finish_reason": finish_reason,
                                    "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": 1234, "completion_tokens": 56}})


def configure(server: FakeServer, fake_cli: FakeCliFactory, **local: Any) -> None:
    """A local model channel beside one CLI reviewer, in the user config."""
    fake_cli("rev", stdout=CLEAN)
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({
        "channels": {"rev": {"command": "rev"},
                     "local": {"kind": "http", "endpoint": server.url(), "model": "m",
                               "endpoint_convention": "openai-chat", **local}},
        "channels_disabled": ENABLED_BUILTINS,
    }))


def review(repo_root: Path) -> tuple[dict[str, Any], str]:
    """The review's JSON document and its text report."""
    done = run_piped(["review", "--sync", "--format", "json"], repo_root)
    doc = json.loads(done.stdout)
    text = run_piped(["results", doc["job_id"], "--format", "text"], repo_root).stdout
    return doc, text


def test_a_reply_cut_at_the_token_limit_says_so(tmp_path: Path, http_server: FakeServer,
                                                fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    http_server.set(CHAT_PATH, body=envelope('{"approved": false, "findings": [{"sev',
                                             finish_reason="length"))
    configure(http_server, fake_cli, request={"max_tokens": 64})
    doc, text = review(repo.root)
    local = doc["per_channel"]["local"]
    assert local["status"] == "failed"
    assert "cut off at the model's token limit" in local["error"]
    assert "Unbalanced" not in text and DOCTOR_HINT not in text


def test_json_schema_falls_back_when_the_server_answers_500(
        tmp_path: Path, http_server: FakeServer, fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)

    def answer(path: str) -> Reply:
        recorded = http_server.requests[-1]
        if recorded.method != "POST":  # the auth probe
            return Reply()
        asked = recorded.json().get("response_format", {})
        if asked.get("type") == "json_schema":
            return Reply(status=500, body=json.dumps({"error": {
                "code": 500, "message": "Unsupported response_format type: json_schema"}}))
        return Reply(body=envelope(json.dumps(CLEAN)))

    http_server.reply_for = answer  # type: ignore[method-assign]
    configure(http_server, fake_cli, request={"json_schema": True})
    doc, _ = review(repo.root)
    assert doc["per_channel"]["local"]["status"] == "completed", doc["per_channel"]["local"]
    kinds = [r.json()["response_format"]["type"] for r in http_server.requests
             if r.method == "POST"]
    assert kinds == ["json_schema", "json_object"]


def test_doctor_says_why_an_endpoint_failed(tmp_path: Path, http_server: FakeServer,
                                            fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    # A one-request server busy with another review: the check waits past its deadline.
    http_server.set("/v1/models", delay_s=5, body="{}")
    configure(http_server, fake_cli, auth={"timeout": 0.5})
    rows = {row["name"]: row for row in json.loads(
        run_piped(["doctor", "--format", "json"], repo.root).stdout)}
    assert rows["local"]["status"] == "timeout"
    assert (f"auth probe GET {http_server.url('/v1/models')} timed out after 0.5s"
            in rows["local"]["recovery"])
    doc, _ = review(repo.root)
    assert "auth probe GET" in doc["per_channel"]["local"]["error"]
    # Nothing listens there any more: the probe says the connection was refused.
    configure(http_server, fake_cli, endpoint="http://127.0.0.1:9/v1/chat/completions")
    rows = {row["name"]: row for row in json.loads(
        run_piped(["doctor", "--format", "json"], repo.root).stdout)}
    assert "connection refused" in rows["local"]["recovery"]


def test_a_cached_reply_keeps_its_token_counts(tmp_path: Path, http_server: FakeServer,
                                               fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    http_server.set(CHAT_PATH, body=envelope(json.dumps(CLEAN)))
    configure(http_server, fake_cli)
    first, _ = review(repo.root)
    second, text = review(repo.root)
    assert second["per_channel"]["local"].get("cached_from") == first["job_id"]
    for doc in (first, second):
        telemetry = doc["per_channel"]["local"]["telemetry"]
        assert (telemetry["input_tokens"], telemetry["output_tokens"]) == (1234, 56)
    assert "tokens in 1,234" in text


def test_a_finding_with_a_blank_description_is_a_parse_failure(
        tmp_path: Path, http_server: FakeServer, fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    blank: dict[str, Any] = {"approved": False, "findings": [
        {"severity": "P1", "location": "a.py:1", "description": "  "}]}
    http_server.set(CHAT_PATH, body=envelope(json.dumps(blank)))
    configure(http_server, fake_cli)
    doc, text = review(repo.root)
    local = doc["per_channel"]["local"]
    assert (local["status"], local["reason"]) == ("failed", "parse_error")
    assert "blank description" in local["error"]
    assert doc["reconciled_findings"] == [] and DOCTOR_HINT not in text
