"""Two channels that send the same model to one endpoint are one reviewer: their copies of
one reply are not consensus and count once for the completed-reviewers floor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mmr.config.channel_schema import HttpChannel, ReplayChannel, ReplaySource, SubprocessChannel
from mmr.review.voices import reviewer_identities, voice, voice_text
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import finding, reply, write_user_config

from .conftest import FakeServer, openai_envelope

MMR = Path(sys.executable).with_name("mmr")


def _http(endpoint: str, model: str = "small") -> dict[str, str]:
    return {"kind": "http", "endpoint": endpoint, "model": model,
            "endpoint_convention": "openai-chat"}


def _review(tmp_path: Path, channels: dict[str, dict[str, str]]) -> dict[str, object]:
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "def f(n):\n    return n\n"})
    repo.write({"src/app.py": "def f(n):\n    for i in range(n + 1):\n        print(i)\n"})
    write_user_config(channels)
    done = subprocess.run([str(MMR), "review", "--sync"], cwd=repo.root, env=dict(os.environ),
                          capture_output=True, text=True, timeout=120, check=False)
    doc: dict[str, object] = json.loads(done.stdout)
    return doc


@pytest.mark.parametrize(("second_model", "agreement", "verdict"), [
    ("small", "unique", "needs-user-decision"),  # one voice: below the floor of 2
    ("other", "consensus", "pass"),
])
def test_one_model_served_twice_is_one_voice(
        tmp_path: Path, http_server: FakeServer, second_model: str, agreement: str,
        verdict: str) -> None:
    http_server.set(body=openai_envelope(json.dumps(reply(finding(severity="P3")))))
    doc = _review(tmp_path, {"a": _http(http_server.url()),
                             "b": _http(http_server.url() + "/", second_model)})
    [merged] = doc["reconciled_findings"]  # type: ignore[misc]
    assert merged["sources"] == ["a", "b"]
    assert merged["agreement"] == agreement
    assert doc["verdict"] == verdict
    assert doc["metadata"]["channels_independent"] == (  # type: ignore[index]
        1 if second_model == "small" else 2)


def test_voice_is_model_and_endpoint_or_cli_and_flags() -> None:
    one = HttpChannel.model_validate(_http("HTTP://127.0.0.1:8080/v1/chat/completions/"))
    same = HttpChannel.model_validate(_http("http://127.0.0.1:8080/v1/chat/completions"))
    other = HttpChannel.model_validate(_http("http://127.0.0.1:8080/v1/chat/completions",
                                             "big"))
    assert voice_text(one) == "http small http://127.0.0.1:8080/v1/chat/completions"
    assert voice(one) == voice(same) != voice(other)
    cli = SubprocessChannel.model_validate({"command": "claude -p", "flags": ["--model", "x"],
                                            "prompt_wrapper": "Security: {{prompt}}"})
    plain = SubprocessChannel.model_validate({"command": "claude  -p",
                                              "flags": ["--model", "x"]})
    assert voice_text(cli) == "cli claude -p --model x"
    assert voice(cli) == voice(plain) != voice(one)
    assert "claude" not in voice(cli)  # a digest: a credential in a command stays out


def test_identities_fold_voices_and_compensators() -> None:
    voices = {"a": "http m u", "b": "http m u", "c": "cli c"}
    assert reviewer_identities({"a": None, "b": None, "c": None, "compensating-d": "c",
                                "old": None}, voices) == {
        "a": "http m u", "b": "http m u", "c": "cli c", "compensating-d": "cli c"}
    # A job without voices: compensating passes as MMR 4.0.1 counts them.
    assert reviewer_identities({"a": None, "compensating-d": "a"}, None) == {
        "compensating-d": "a"}


def test_replay_channels_speak_with_the_voice_of_their_recording() -> None:
    """Three recordings of three reviewers are three voices (the demo's consensus)."""
    first = ReplayChannel(kind="replay", replay=ReplaySource(file="a.json"))
    second = ReplayChannel(kind="replay", replay=ReplaySource(file="b.json"))
    again = ReplayChannel(kind="replay", replay=ReplaySource(file="a.json"))
    from_job = ReplayChannel(kind="replay", replay=ReplaySource(job="mmr-1"))
    assert voice(first) == voice(again) != voice(second)
    assert voice_text(from_job, "codex") == "replay job mmr-1 codex"
    assert voice(from_job, "codex") != voice(from_job, "claude")
