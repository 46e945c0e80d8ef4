"""Issue 15 item 1: a checked-out branch's committed ``.mmr.yaml`` never runs unratified.

The attack: ``gh pr checkout N`` (here: a branch off ``main``) commits a project config
whose channel command and ``auth.check`` write a marker file. Every entry point that runs
commands — ``review --sync``, ``--staged``, ``--dry-run``, ``doctor``, ``config test`` —
is driven through the real CLI, and the marker must never appear.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import RunMmr
from tests.fakes.plugin import FakeCli
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, write_user_config


def hostile_config(marker: Path) -> str:
    return (
        "version: 1\n"
        "channels:\n"
        "  evil:\n"
        f"    command: touch {marker}.run\n"
        f"    auth: {{check: \"touch {marker}.auth\", timeout: 5, failure_exit_codes: [1],\n"
        "            recovery: none}\n"
    )


def trusted_fake(fake_cli: FakeCli) -> FakeCli:
    reviewer = fake_cli("fake-reviewer", stdout=CLEAN)
    write_user_config({"good": {"command": str(reviewer.path)},
                       # other flags: a second voice (one command twice counts once)
                       "other": {"command": str(reviewer.path), "flags": ["--other"]}})
    return reviewer


@pytest.fixture
def pr_branch(tmp_path: Path) -> tuple[GitRepo, Path]:
    """``main`` without project config; the checked-out ``pr-7`` commits a hostile one."""
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "a = 1\n"})
    repo.branch("pr-7")
    marker = tmp_path / "pwned"
    repo.commit({".mmr.yaml": hostile_config(marker), "src/app.py": "a = 2\n"})
    repo.write({"src/app.py": "a = 3\n"})
    return repo, marker


def ran(marker: Path) -> list[str]:
    return sorted(p.name for p in marker.parent.glob(marker.name + ".*"))


@pytest.mark.parametrize("args", [["review", "--sync"], ["review", "--staged", "--sync"],
                                  ["review", "--dry-run"], ["review"]])
def test_review_of_a_checked_out_branch_needs_ratification(
        run_mmr: RunMmr, fake_cli: FakeCli, pr_branch: tuple[GitRepo, Path],
        args: list[str]) -> None:
    repo, marker = pr_branch
    trusted_fake(fake_cli)
    if "--staged" in args:
        repo.stage({"src/app.py": "a = 3\n"})
    result = run_mmr(*args, cwd=repo.root)
    assert ran(marker) == []
    assert result.code == 2, result.err
    document = json.loads(result.out)
    assert document["verdict"] == "needs-user-decision"
    assert document["proposed_config_change"] is True
    assert "merge base with main" in document["summary"]
    assert "this branch changed .mmr.yaml" in result.err


def test_trust_project_config_ratifies_the_branch_config(
        run_mmr: RunMmr, fake_cli: FakeCli, pr_branch: tuple[GitRepo, Path]) -> None:
    repo, marker = pr_branch
    trusted_fake(fake_cli)
    result = run_mmr("review", "--sync", "--channels", "evil", "--trust-project-config",
                     cwd=repo.root)
    assert "evil" in json.loads(result.out)["per_channel"], result.err
    assert ran(marker) == ["pwned.auth", "pwned.run"]  # ratified: it runs, as asked


@pytest.mark.parametrize("args", [["doctor"], ["doctor", "--format", "json"],
                                  ["config", "test"]])
def test_doctor_and_config_test_do_not_run_the_branch_checks(
        run_mmr: RunMmr, fake_cli: FakeCli, pr_branch: tuple[GitRepo, Path],
        args: list[str]) -> None:
    repo, marker = pr_branch
    trusted_fake(fake_cli)
    result = run_mmr(*args, cwd=repo.root)
    assert ran(marker) == []
    assert "evil" not in result.out
    assert "this branch changed .mmr.yaml since its merge base with main" in result.err
    ratified = run_mmr(*args, "--trust-project-config", cwd=repo.root)
    assert "evil" in ratified.out
    assert ran(marker) == ["pwned.auth"]


def test_own_feature_branch_with_unchanged_config_needs_no_flag(
        run_mmr: RunMmr, fake_cli: FakeCli, tmp_path: Path) -> None:
    reviewer = trusted_fake(fake_cli)
    config = f"version: 1\nchannels:\n  mine:\n    command: {reviewer.path}\n"
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "a = 1\n", ".mmr.yaml": config})
    repo.branch("feature")
    repo.commit({"src/app.py": "a = 2\n"})
    repo.write({"src/app.py": "a = 3\n"})
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert result.code == 0, result.err
    assert set(json.loads(result.out)["per_channel"]) == {"good", "other", "mine"}
    assert "warning" not in result.err


def test_staged_change_with_committed_config_on_main_needs_no_flag(
        run_mmr: RunMmr, fake_cli: FakeCli, tmp_path: Path) -> None:
    reviewer = trusted_fake(fake_cli)
    config = f"version: 1\nchannels:\n  mine:\n    command: {reviewer.path}\n"
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "a = 1\n", ".mmr.yaml": config})
    repo.stage({"src/app.py": "a = 2\n"})
    result = run_mmr("review", "--staged", "--sync", cwd=repo.root)
    assert result.code == 0, result.err
    assert "mine" in json.loads(result.out)["per_channel"]
    assert "warning" not in result.err


def test_without_a_default_branch_one_warning_names_the_risk(
        run_mmr: RunMmr, fake_cli: FakeCli, tmp_path: Path) -> None:
    trusted_fake(fake_cli)
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "a = 1\n",
                                              ".mmr.yaml": "version: 1\n"})
    repo.git("branch", "-m", "main", "trunk")
    repo.write({"src/app.py": "a = 2\n"})
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert result.code == 0, result.err
    assert result.err.count("no default branch") == 1


def test_the_default_branch_comes_from_the_user_config_only(
        run_mmr: RunMmr, fake_cli: FakeCli, pr_branch: tuple[GitRepo, Path]) -> None:
    repo, marker = pr_branch
    reviewer = trusted_fake(fake_cli)
    repo.git("branch", "-m", "main", "trunk")  # neither main nor master exists now
    write_user_config({"good": {"command": str(reviewer.path)}},
                      {"default_branch": "trunk"})
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert ran(marker) == []
    assert result.code == 2 and "merge base with trunk" in json.loads(result.out)["summary"]
