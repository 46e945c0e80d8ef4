"""``--dry-run`` and the round budget."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mmr.config.paths import sessions_dir
from mmr.dispatch.findings_schema import FINDINGS_SCHEMA_JSON
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, RunMmr, job_ids, write_user_config


@pytest.fixture
def channels(fake_cli: FakeCliFactory) -> None:
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({
        "rev1": {"command": "rev1", "prompt_wrapper": "BEGIN\n{{prompt}}\nEND {{prompt}}"},
        "rev2": {"command": "rev2"},
        "gone": {"command": "SECRET_TOKEN=abc123 gone-tool"},
        "locked": {"command": "rev2", "auth": {
            "check": "exit 4", "failure_exit_codes": [4],
            "recovery": 'curl -H "Authorization: Bearer sk-live-1"'}},
    })


def test_dry_run_prints_banner_failures_and_each_wrapped_prompt(
        repo: GitRepo, channels: None, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    rev1 = fake_cli("rev1", stdout=CLEAN)
    result = run_mmr("review", "--dry-run", "--focus", "loops", cwd=repo.root)
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == "=== DRY RUN - no channels will be dispatched ==="
    assert lines[1] == "Channels that would dispatch: rev1, rev2"
    assert lines[2] == "  gone: not_installed — <redacted>"
    assert lines[3] == "  locked: failed — <redacted>"
    assert lines[4] == ""
    assert lines[5] == "--- Assembled prompt for rev1 ---"
    assert lines[6] == "BEGIN"
    block = result.out.split("--- Assembled prompt for rev1 ---\n", 1)[1]
    rev1_prompt = block.split("\n\n--- Assembled prompt for rev2 ---\n", 1)[0]
    rev2_prompt = block.split("\n\n--- Assembled prompt for rev2 ---\n", 1)[1]
    rev2_prompt = rev2_prompt.split("\n\n--- Dispatch plan ---\n", 1)[0]  # issue 18's plan
    # Both placeholders replaced; rev2 has the default wrapper.
    assert rev1_prompt == f"BEGIN\n{rev2_prompt.rstrip(chr(10))}\nEND {rev2_prompt.rstrip(chr(10))}"
    assert "## Focus Areas\nloops" in rev2_prompt
    assert "sk-live-1" not in result.out + result.err
    assert "abc123" not in result.out + result.err
    assert rev1.calls() == []
    assert job_ids() == []


def test_dry_run_with_nothing_dispatchable_exits_1(repo: GitRepo, channels: None,
                                                   run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--dry-run", "--channels", "gone,locked", cwd=repo.root)
    assert result.code == 1
    assert "Channels that would dispatch: (none)" in result.out
    assert "--- Assembled prompt" not in result.out


def test_dry_run_ignores_format(repo: GitRepo, channels: None, run_mmr: RunMmr) -> None:
    # Issue 18: `--format json` now gives the JSON form; the other formats still do nothing.
    result = run_mmr("review", "--dry-run", "--format", "markdown", "--channels", "rev2",
                     cwd=repo.root)
    assert result.out.startswith("=== DRY RUN")
    assert "min_completed_channels is 2 but only 1 channel(s)" in result.err


def test_sync_with_no_channel_passing_exits_1_without_a_job(
        repo: GitRepo, channels: None, run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--sync", "--channels", "gone,locked", cwd=repo.root)
    assert result.code == 1
    assert "No channels passed auth check:\n  gone: not_installed — <redacted>\n" \
           "  locked: failed — <redacted>" in result.err
    assert job_ids() == []


# --- rounds -------------------------------------------------------------------------------

def test_round_over_the_cap_exits_3_before_reading_any_diff(
        tmp_path: Path, channels: None, run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--session", "s1", "--round", "6", cwd=tmp_path)
    assert result.code == 3
    doc = result.json()
    assert doc["job_id"] == "session-s1"
    assert doc["summary"] == 'max_rounds_exceeded: session="s1" round=6 > max_rounds=5'
    assert "trust_mode" not in doc
    assert job_ids() == []


def test_round_without_a_session_names_default_and_honours_text(
        tmp_path: Path, channels: None, run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--round", "7", "--format", "text", cwd=tmp_path)
    assert result.code == 3
    assert result.out.startswith("MMR NEEDS DECISION — session-default")


def test_configured_round_default_applies_with_a_session(
        tmp_path: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    write_user_config({}, defaults={"loop_control": {"max_rounds_default": 2}})
    result = run_mmr("review", "--session", "s", "--round", "3", cwd=tmp_path)
    assert result.code == 3
    assert "max_rounds=2" in result.json()["summary"]


def test_round_equal_to_the_cap_proceeds_and_links_the_session(
        repo: GitRepo, channels: None, run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--sync", "--channels", "rev1,rev2", "--session", "s2",
                     "--round", "5", "--max-rounds", "5", cwd=repo.root)
    assert result.code == 0, result.err
    doc = result.json()
    assert (doc["session_id"], doc["round"]) == ("s2", 5)
    session = json.loads((sessions_dir() / "s2.json").read_text())
    assert session["jobs"] == [doc["job_id"]]
    assert session["rounds"] == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--round", "0"), "round must be >= 1"),
        (("--max-rounds", "0"), "max-rounds must be >= 1"),
        (("--session", "con"), "Invalid session id. Must match"),
        (("--session", "../x"), "Invalid session id. Must match"),
        (("--timeout", "0"), "--timeout must be a number of seconds > 0"),
        (("--pr", "0"), "--pr must be a positive pull request number"),
    ],
)
def test_flag_checks_print_one_line_and_exit_1(tmp_path: Path, run_mmr: RunMmr,
                                               args: tuple[str, ...], message: str) -> None:
    result = run_mmr("review", *args, cwd=tmp_path)
    assert result.code == 1
    first, second = result.err.splitlines()
    assert first.startswith(f"mmr: error: {message}")
    assert second == "Try 'mmr review --help'"


def test_auth_checks_run_concurrently(repo: GitRepo, fake_cli: FakeCliFactory,
                                      run_mmr: RunMmr) -> None:
    import time

    fake_cli("rev1", stdout=CLEAN)
    slow_auth = {"check": "sleep 1", "failure_exit_codes": [9], "recovery": "login"}
    write_user_config({name: {"command": "rev1", "auth": slow_auth}
                       for name in ("a", "b", "c")})
    started = time.monotonic()
    result = run_mmr("review", "--dry-run", cwd=repo.root)
    assert result.code == 0
    assert "Channels that would dispatch: a, b, c" in result.out
    assert time.monotonic() - started < 2.5  # three 1 s checks, side by side


def test_dry_run_prints_each_channels_argv_delivery_auth_check_and_verdict(
        repo: GitRepo, channels: None, run_mmr: RunMmr) -> None:
    write_user_config({
        "rev1": {"command": "rev1 --api-key sk-live-abcdefghijklmnop1234", "flags": ["-p"]},
        "filed": {"command": "rev2 --read", "prompt_delivery": "prompt-file"},
        "gone": {"command": "SECRET_TOKEN=abc123 gone-tool"},
        "locked": {"command": "rev2", "auth": {
            "check": "rev2 auth status", "failure_exit_codes": [4, 5],
            "recovery": "rev2 login"}},
    })
    result = run_mmr("review", "--dry-run", cwd=repo.root)
    assert result.code == 0
    plan = [re.sub(r"~\d+ ", "~N ", line)
            for line in result.out.split("\n--- Dispatch plan ---\n", 1)[1].splitlines()]
    one_prompt = "  prompt: ~N estimated tokens, budget none, one prompt"
    assert plan == [
        "rev1: would dispatch",
        "  argv: rev1 --api-key '<redacted>' -p",
        "  prompt delivery: stdin",
        "  auth check: (none: only the install check)",
        one_prompt,
        "filed: would dispatch",
        "  argv: rev2 --read '{{prompt_file}}'",
        "  prompt delivery: prompt-file",
        "  auth check: (none: only the install check)",
        one_prompt,
        "gone: would not dispatch — not_installed: <redacted>",
        "  argv: '<redacted>' gone-tool",
        "  prompt delivery: stdin",
        "  auth check: (none: only the install check)",
        one_prompt,
        "locked: would dispatch",
        "  argv: rev2",
        "  prompt delivery: stdin",
        "  auth check: sh -c 'rev2 auth status' (fails on exit 4, 5)",
        one_prompt,
    ]
    assert "sk-live" not in result.out and "abc123" not in result.out


def test_dry_run_json_has_the_same_plan(repo: GitRepo, channels: None, run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--dry-run", "--format", "json", "--channels", "rev2,locked",
                     cwd=repo.root)
    assert result.code == 0
    document = result.json()
    assert document["would_dispatch"] == ["rev2"]
    rev2, locked = document["channels"]
    assert rev2 == {"channel": "rev2", "would_dispatch": True, "status": "ok", "reason": None,
                    "argv": ["rev2"], "prompt_delivery": "stdin", "auth_check": None,
                    "prompt": rev2["prompt"], "estimated_tokens": rev2["estimated_tokens"],
                    "max_prompt_tokens": None, "shards": None}
    assert rev2["estimated_tokens"] > 500  # the core prompt alone
    assert "## Diff" in rev2["prompt"] or "diff --git" in rev2["prompt"]
    assert locked["would_dispatch"] is False
    assert (locked["status"], locked["reason"]) == ("failed", "<redacted>")
    assert locked["auth_check"] == "sh -c 'exit 4' (fails on exit 4)"
    assert locked["prompt"] is None


def test_dry_run_argv_holds_the_findings_schema_the_dispatch_would_send(
        repo: GitRepo, channels: None, run_mmr: RunMmr) -> None:
    # The schema is a constant, not a value that exists only at dispatch: the plan shows it
    # as the CLI would receive it.
    write_user_config({"rev2": {"command": "rev2",
                                "flags": ["--json-schema", "{{findings_schema}}"]}})
    result = run_mmr("review", "--dry-run", "--format", "json", "--channels", "rev2",
                     cwd=repo.root)
    assert result.code == 0
    [rev2] = result.json()["channels"]
    assert rev2["argv"] == ["rev2", "--json-schema", FINDINGS_SCHEMA_JSON]
