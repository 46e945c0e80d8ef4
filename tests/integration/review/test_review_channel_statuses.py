"""Each channel status, as the dispatcher and the gate leave it, reaches the report."""

from __future__ import annotations

from typing import Any

from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, RunMmr, write_user_config

COMPENSATOR = {"comp": {"command": "no-such-compensator"}}


def run_one(repo: GitRepo, run_mmr: RunMmr, channel: dict[str, Any],
            *extra: str) -> dict[str, Any]:
    """Review with ``rev`` (clean) plus ``probe`` configured as ``channel``; per_channel."""
    write_user_config({"rev": {"command": "rev"}, "probe": channel, **COMPENSATOR},
                      defaults={"compensator": {"channel": "comp"}})
    result = run_mmr("review", "--sync", "--channels", "rev,probe", *extra, cwd=repo.root)
    assert result.code in (0, 2, 3), result.err
    per_channel: dict[str, Any] = result.json()["per_channel"]
    return per_channel


def test_completed_and_failed(repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev", stdout=CLEAN)
    fake_cli("probe", stdout="", stderr="model overloaded", exit_code=1)
    per_channel = run_one(repo, run_mmr, {"command": "probe"})
    assert per_channel["rev"]["status"] == "completed"
    assert per_channel["rev"]["findings"] == []
    failed = per_channel["probe"]
    assert failed["status"] == "failed"
    assert failed["error"].startswith("Channel failed: ")
    assert "model overloaded" in failed["error"]


def test_timeout(repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev", stdout=CLEAN)
    fake_cli("probe", stdout=CLEAN, sleep=10)
    per_channel = run_one(repo, run_mmr, {"command": "probe", "timeout": 0.5})
    assert per_channel["probe"]["status"] == "timeout"
    assert per_channel["probe"]["error"].startswith("Channel timed out")
    assert per_channel["probe"]["elapsed"] != "0s"  # computed from the timestamps


def test_auth_failed_keeps_a_redacted_recovery(repo: GitRepo, fake_cli: FakeCliFactory,
                                               run_mmr: RunMmr) -> None:
    fake_cli("rev", stdout=CLEAN)
    probe = fake_cli("probe", stdout=CLEAN)
    channel = {"command": "probe", "auth": {"check": "exit 7", "failure_exit_codes": [7],
                                            "recovery": "probe login --token sk-secret"}}
    per_channel = run_one(repo, run_mmr, channel)
    assert per_channel["probe"]["status"] == "auth_failed"
    assert per_channel["probe"]["error"] == "Auth check failed"
    assert per_channel["probe"]["recovery"] == "<redacted>"
    assert probe.calls() == []


def test_not_installed_is_not_compensated_and_says_so(repo: GitRepo, fake_cli: FakeCliFactory,
                                                      run_mmr: RunMmr) -> None:
    fake_cli("rev", stdout=CLEAN)
    write_user_config({"rev": {"command": "rev"}, "gone": {"command": "gone-tool --flag"}})
    result = run_mmr("review", "--sync", "--channels", "rev", "gone", cwd=repo.root)
    per_channel = result.json()["per_channel"]
    assert per_channel["gone"]["status"] == "not_installed"
    assert per_channel["gone"]["error"] == "CLI not found on PATH"
    assert per_channel["gone"]["recovery"] == "gone-tool not found on PATH"
    assert "compensating-gone" not in per_channel
    assert "[mmr] not compensating structurally-absent channel(s): gone." in result.err


def test_compensate_missing_adds_a_pass(repo: GitRepo, fake_cli: FakeCliFactory,
                                        run_mmr: RunMmr) -> None:
    fake_cli("rev", stdout=CLEAN)
    comp = fake_cli("comp", stdout=CLEAN)
    write_user_config({"rev": {"command": "rev"}, "gone": {"command": "gone-tool"},
                       "comp": {"command": "comp"}},
                      defaults={"compensator": {"channel": "comp"}})
    result = run_mmr("review", "--sync", "--channels", "rev,gone", "--compensate-missing",
                     cwd=repo.root)
    per_channel = result.json()["per_channel"]
    assert per_channel["compensating-gone"]["status"] == "completed"
    assert "compensating for" in comp.last_call()["stdin"].lower()


def test_unparseable_reply_is_a_parse_error(repo: GitRepo, fake_cli: FakeCliFactory,
                                            run_mmr: RunMmr) -> None:
    fake_cli("rev", stdout=CLEAN)
    fake_cli("probe", stdout="I looked at it and it seems fine to me.")
    per_channel = run_one(repo, run_mmr, {"command": "probe"})
    probe = per_channel["probe"]
    assert (probe["status"], probe["reason"]) == ("failed", "parse_error")
    assert probe["error"].startswith("Failed to parse channel output: ")
    # Transient: a compensating pass was planned for it (Decisions), but the default
    # compensator (claude) is not installed here, so it leaves no row.
    assert "compensating-probe" not in per_channel


def test_refuse_channel_is_skipped_on_a_credential(fake_cli: FakeCliFactory, run_mmr: RunMmr,
                                                   repo: GitRepo) -> None:
    repo.write({"src/app.py": "TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'\n"})
    fake_cli("rev", stdout=CLEAN)
    probe = fake_cli("probe", stdout=CLEAN)
    per_channel = run_one(repo, run_mmr, {"command": "probe", "on_credentials": "refuse"})
    skipped = per_channel["probe"]
    assert (skipped["status"], skipped["reason"]) == ("skipped", "credential_refused")
    assert skipped["error"] == "Channel skipped: credential-shaped content in diff"
    assert probe.calls() == []
    assert "compensating-probe" not in per_channel  # the content is the problem


def test_channel_over_its_diff_budget_is_skipped(fake_cli: FakeCliFactory, run_mmr: RunMmr,
                                                 repo: GitRepo) -> None:
    fake_cli("rev", stdout=CLEAN)
    probe = fake_cli("probe", stdout=CLEAN)
    per_channel = run_one(repo, run_mmr, {"command": "probe", "max_diff_lines": 3})
    skipped = per_channel["probe"]
    assert (skipped["status"], skipped["reason"]) == ("skipped", "diff_too_large")
    assert skipped["error"].startswith("Channel skipped: diff too large: ")
    assert skipped["error"].endswith(" lines > 3")
    assert probe.calls() == []


def test_channel_diff_exclude_removing_everything_skips_it(
        fake_cli: FakeCliFactory, run_mmr: RunMmr, repo: GitRepo) -> None:
    fake_cli("rev", stdout=CLEAN)
    probe = fake_cli("probe", stdout=CLEAN)
    per_channel = run_one(repo, run_mmr, {"command": "probe", "diff_exclude": ["src/**"]})
    assert (per_channel["probe"]["status"], per_channel["probe"]["reason"]) == (
        "skipped", "nothing_to_review")
    assert probe.calls() == []


def test_run_budget_exits_1_before_anything_runs(fake_cli: FakeCliFactory, run_mmr: RunMmr,
                                                 repo: GitRepo) -> None:
    rev = fake_cli("rev", stdout=CLEAN)
    write_user_config({"rev": {"command": "rev"}})
    result = run_mmr("review", "--sync", "--max-diff-lines", "2", cwd=repo.root)
    assert result.code == 1
    assert "diff too large: " in result.err
    assert "raise --max-diff-lines or defaults.max_diff_lines" in result.err
    assert rev.calls() == []
