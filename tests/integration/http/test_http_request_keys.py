"""HTTP channels with ``request:`` keys, server error messages, the model-list check and
usage, end to end through ``mmr review``/``mmr doctor`` against a loopback chat API; the
vLLM / llama.cpp and Ollama recipes as written."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from mmr.config.paths import user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.cli_runner import RunMmr
from tests.integration.git_repo_builder import GitRepo
from tests.realcli import mockapi
from tests.realcli.mockapi import MockApi, MockServer

RECIPES = Path(__file__).resolve().parents[3] / "docs" / "recipes"


@pytest.fixture
def api() -> Iterator[MockApi]:
    with MockServer() as server:
        yield server


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo.create(tmp_path / "repo", {"app.py": "def divide(a, b):\n    return 0\n"})
    repo.write({"app.py": "def divide(a, b):\n    return a / b\n"})
    return repo


def configure(channel: dict[str, Any], name: str = "llm") -> None:
    doc = {"version": 1, "channels": {name: channel}, "channels_disabled": ENABLED_BUILTINS,
           "defaults": {"min_completed_channels": 1}}
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def channel(api: MockApi, **extra: Any) -> dict[str, Any]:
    return {"kind": "http", "endpoint": f"{api.base}/v1/chat/completions",
            "model": "mock-model", "endpoint_convention": "openai-chat", **extra}


def review(run_mmr: RunMmr, repo: GitRepo, *extra: str) -> Any:
    result = run_mmr("review", "--sync", "--quiet", "--channels", "llm", *extra,
                     cwd=repo.root)
    assert result.code in (0, 2, 3), result.err
    return result


def test_request_keys_are_sent(api: MockApi, repo: GitRepo, run_mmr: RunMmr) -> None:
    configure(channel(api, request={
        "max_tokens": 512, "temperature": 0, "seed": 7, "system": "Be strict.",
        "extra_body": {"top_p": 1, "model": "ignored"}}))
    entry = review(run_mmr, repo, "--format", "json").json()["per_channel"]["llm"]
    assert entry["status"] == "completed"
    [sent] = api.sent("chat")
    body = sent.body
    assert (body["max_tokens"], body["temperature"], body["seed"], body["top_p"]) == \
        (512, 0, 7, 1)
    assert body["model"] == "mock-model"
    assert body["messages"][0] == {"role": "system", "content": "Be strict."}
    assert body["messages"][1]["role"] == "user"
    assert body["response_format"] == {"type": "json_object"}


def test_json_schema_falls_back_to_json_object(api: MockApi, repo: GitRepo,
                                               run_mmr: RunMmr) -> None:
    api.reject_json_schema = True
    configure(channel(api, request={"json_schema": True}))
    entry = review(run_mmr, repo, "--format", "json").json()["per_channel"]["llm"]
    assert entry["status"] == "completed"
    assert [r.body["response_format"]["type"] for r in api.sent("chat")] == \
        ["json_schema", "json_object"]
    assert "findings" in str(api.sent("chat")[0].body["response_format"]["json_schema"])


@pytest.mark.parametrize(("reply", "text"), [
    (mockapi.SERVER_ERROR, "upstream model crashed"),
    (mockapi.Reply(status=404, message="The model `mock-modl` does not exist",
                   error_type="model_not_found"), "model_not_found"),
])
def test_the_servers_error_message_is_in_the_reason(api: MockApi, repo: GitRepo,
                                                    run_mmr: RunMmr, reply: mockapi.Reply,
                                                    text: str) -> None:
    api.script["chat"] = reply
    configure(channel(api))
    entry = review(run_mmr, repo, "--format", "json").json()["per_channel"]["llm"]
    assert entry["status"] == "failed"
    assert entry["error"].startswith(f"Channel failed: HTTP {reply.status}")
    assert text in entry["error"]


def test_usage_is_reported_in_json_and_text(api: MockApi, repo: GitRepo,
                                            run_mmr: RunMmr) -> None:
    configure(channel(api))
    entry = review(run_mmr, repo, "--format", "json").json()["per_channel"]["llm"]
    assert entry["telemetry"] == {"input_tokens": 1100, "output_tokens": 70}
    # --no-cache: a reused reply spends no tokens, so it reports none.
    text = review(run_mmr, repo, "--format", "text", "--no-cache").out
    assert re.search(r"tokens in 1[,.]?100", text), text


def test_doctor_checks_the_model_against_v1_models(api: MockApi, repo: GitRepo,
                                                   run_mmr: RunMmr) -> None:
    configure(channel(api, model="mock-modl"))
    run = run_mmr("doctor", "--format", "json", cwd=repo.root)
    [row] = [r for r in run.json() if r["name"] == "llm"]
    assert row["status"] == "auth_failed"
    assert "mock-model" in row["recovery"] and "mock-modl" in row["recovery"]
    configure(channel(api))
    run = run_mmr("doctor", "--format", "json", cwd=repo.root)
    [row] = [r for r in run.json() if r["name"] == "llm"]
    assert row["status"] == "ok"


def _recipe_channel(doc: str, api: MockApi) -> tuple[str, dict[str, Any]]:
    text = (RECIPES / doc).read_text(encoding="utf-8")
    block = re.findall(r"^```yaml\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)[0]
    [(name, config)] = yaml.safe_load(block)["channels"].items()
    config["endpoint"] = f"{api.base}/v1/chat/completions"
    api.models.append(config["model"])
    return name, config


@pytest.mark.parametrize("doc", ["vllm-llamacpp.md", "ollama.md"])
def test_recipes_review_against_the_loopback_server(api: MockApi, repo: GitRepo,
                                                    run_mmr: RunMmr, doc: str) -> None:
    name, config = _recipe_channel(doc, api)
    configure(config, name)
    result = run_mmr("review", "--sync", "--quiet", "--format", "json", "--channels", name,
                     cwd=repo.root)
    entry = result.json()["per_channel"][name]
    assert entry["status"] == "completed", entry
    assert "zero divisor" in entry["findings"][0]["description"]
    body = api.sent("chat")[0].body
    assert body["max_tokens"] == 4096 and body["temperature"] == 0 and body["seed"] == 7
    assert body["response_format"]["type"] == "json_schema"
