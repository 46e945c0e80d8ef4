"""The ``minimax`` channel inside ``mmr review``: credential refusal,
consensus with JSON-speaking channels, telemetry per channel, and compensation."""

from __future__ import annotations

from typing import Any

import yaml

from mmr.cli.main import main
from mmr.config.paths import user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.minimax.conftest import RunCli, envelope, minimax, sessions

JSON_FINDING = {"severity": "P1", "location": "src/app.py:4",
                "description": "Shell injection: src/app.py:4 passes the user name to a shell",
                "suggestion": "call subprocess.run with an argument list"}
#: The same finding as a MiniMax block whose citation sits in its prose.
CITED_IN_PROSE = (
    "### [BLOCKER] Shell injection: src/app.py:4 passes the user name to a shell\n"
    "Category: injection\nConfidence: confirmed\n"
    "Suggestion: call subprocess.run with an argument list\n"
)


def json_channel(command: str) -> dict[str, Any]:
    return {"command": command, "flags": [], "prompt_delivery": "stdin",
            "output_parser": "default", "timeout": 30}


def configure(**defaults: Any) -> None:
    """Two JSON-speaking fake channels plus ``minimax``; the built-ins stay off."""
    document = {
        "version": 1,
        "defaults": {"min_completed_channels": 1, **defaults},
        # minimax-m3 extends minimax and would inherit its `enabled: true` from this layer.
        "channels": {"alpha": json_channel("alpha-cli"), "beta": json_channel("beta-cli"),
                     "minimax": {"enabled": True}, "minimax-m3": {"enabled": False}},
        "channels_disabled": ENABLED_BUILTINS,
    }
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def review(run_cli: RunCli, repo: GitRepo) -> Any:
    return run_cli(main, "review", "--base", "main", "--sync", "--format", "json",
                   cwd=repo.root)


def test_credential_in_the_diff_skips_minimax_and_says_why(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    configure()
    branch_repo.commit({"src/settings.py": "AWS_KEY = 'AKIAABCDEFGHIJKLMNOP'\n"})
    fake = minimax(fake_cli)
    alpha = fake_cli("alpha-cli", stdout={"approved": True, "findings": [], "summary": "ok"})
    fake_cli("beta-cli", stdout={"approved": True, "findings": [], "summary": "ok"})
    run = review(run_cli, branch_repo)
    entry = run.json()["per_channel"]["minimax"]
    assert entry["status"] == "skipped"
    assert entry["reason"] == "credential_refused"
    assert "credential-shaped content in diff" in entry["error"]
    assert fake.calls() == []  # not dispatched, not even an install check
    assert "AKIAABCDEFGHIJKLMNOP" not in alpha.last_call()["stdin"]  # others get it redacted


def test_markdown_and_json_findings_reconcile_into_one_consensus_finding(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    configure()
    minimax(fake_cli, envelope(CITED_IN_PROSE, input_tokens=2000, output_tokens=100))
    reply = {"approved": False, "findings": [JSON_FINDING], "summary": "one issue"}
    fake_cli("alpha-cli", stdout=reply)
    fake_cli("beta-cli", stdout=reply)
    run = review(run_cli, branch_repo)
    assert run.code == 2, run.err
    document = run.json()
    findings = document["reconciled_findings"]
    assert len(findings) == 1
    assert findings[0]["agreement"] == "consensus"
    assert set(findings[0]["sources"]) == {"alpha", "beta", "minimax"}
    assert findings[0]["location"] == "src/app.py:4"
    telemetry = document["per_channel"]["minimax"]["telemetry"]
    assert telemetry == {"context_window": 1_000_000, "input_tokens": 2000,
                         "output_tokens": 100, "cost_usd": 0.0123, "turns": 7}
    assert "telemetry" not in document["per_channel"]["alpha"]


def test_minimax_failing_transiently_falls_back_to_compensation(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    configure(compensator={"channel": "alpha"})
    fake = minimax(fake_cli, envelope("API Error: invalid system role", is_error=True))
    alpha = fake_cli("alpha-cli", stdout={"approved": False, "findings": [JSON_FINDING],
                                          "summary": "one issue"})
    fake_cli("beta-cli", stdout={"approved": True, "findings": [], "summary": "ok"})
    run = review(run_cli, branch_repo)
    per_channel = run.json()["per_channel"]
    assert per_channel["minimax"]["status"] == "failed"
    assert len(sessions(fake)) == 2  # the failed run and its one retry
    assert per_channel["compensating-minimax"]["status"] == "completed"
    assert len(alpha.calls()) == 2  # its own review and the compensating pass


def test_citation_line_does_not_keep_a_markdown_finding_out_of_consensus(
        *, branch_repo: GitRepo, fake_cli: FakeCliFactory, run_cli: RunCli) -> None:
    configure()
    minimax(fake_cli, envelope("### [BLOCKER] Shell injection through the user name\n"
                               "`src/app.py:4`\nCategory: injection\n"))
    same = dict(JSON_FINDING, description="Shell injection through the user name")
    reply = {"approved": False, "findings": [same], "summary": "one issue"}
    fake_cli("alpha-cli", stdout=reply)
    fake_cli("beta-cli", stdout=reply)
    findings = review(run_cli, branch_repo).json()["reconciled_findings"]
    assert len(findings) == 1
