"""Issue 18: a project file that exists but is not read gets one notice saying why and what
would read it; following the notice's advice reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_runner import RunMmr
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, write_user_config

CRITERION = "Every public function documents its errors"
PROJECT = f"version: 1\nreview_criteria:\n  - {CRITERION}\n"
ACK = ".mmr/acks/" + "b" * 40 + ".json"
NOTICE = "[mmr] notice: "


@pytest.fixture
def project(tmp_path: Path, fake_cli: FakeCliFactory) -> GitRepo:
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "one\n", ".mmr.yaml": PROJECT})
    repo.write({"src/app.py": "one\ntwo\n"})
    (repo.root / "change.patch").write_text(repo.git("diff"))
    repo.git("checkout", "--", "src/app.py")  # a clean tree: only the sample patch
    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}})
    return repo


def notices(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(NOTICE)]


def test_diff_mode_names_the_unread_config_and_the_flag_that_reads_it(
        project: GitRepo, run_mmr: RunMmr) -> None:
    result = run_mmr("review", "--diff", "change.patch", "--dry-run", cwd=project.root)
    assert result.code == 0, result.err
    assert CRITERION not in result.out
    assert notices(result.err) == [
        "[mmr] notice: .mmr.yaml not read: a --diff input may come from anywhere (trust mode "
        "untrusted-head); commit it and add --config-base-ref HEAD to read the committed "
        "copy, or pass --trust-project-config to use the working-tree file as it is."]
    advised = run_mmr("review", "--diff", "change.patch", "--dry-run", "--config-base-ref",
                      "HEAD", cwd=project.root)
    assert advised.code == 0, advised.err
    assert CRITERION in advised.out  # the committed file is read; no notice then
    assert notices(advised.err) == []


def test_stdin_diff_with_acks_names_both_files(project: GitRepo, run_mmr: RunMmr) -> None:
    project.commit({ACK: '{"finding_key": "' + "b" * 40 + '"}'})
    result = run_mmr("review", "--diff", "-", "--dry-run", cwd=project.root,
                     stdin=(project.root / "change.patch").read_text())
    [notice] = notices(result.err)
    assert notice.startswith("[mmr] notice: .mmr.yaml and .mmr/acks/ not read: ")
    assert "--trust-project-config / --trust-project-acks" in notice


def test_ci_mode_says_ci_and_how_to_read_from_a_base(project: GitRepo, run_mmr: RunMmr) -> None:
    project.write({"src/app.py": "one\ntwo\n"})
    result = run_mmr("review", "--dry-run", cwd=project.root, env={"CI": "true"})
    assert result.code == 0, result.err
    [notice] = notices(result.err)
    assert "in CI (CI is set)" in notice and "--base <ref>" in notice
    assert "--config-base-ref <ref>" in notice


def test_no_notice_without_a_project_file(tmp_path: Path, fake_cli: FakeCliFactory,
                                          run_mmr: RunMmr) -> None:
    repo = GitRepo.create(tmp_path / "bare", {"src/app.py": "one\n"})
    repo.write({"src/app.py": "one\ntwo\n"})
    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}})
    patch = tmp_path / "change.patch"
    patch.write_text(repo.git("diff"))
    result = run_mmr("review", "--diff", str(patch), "--dry-run", cwd=repo.root)
    assert result.code == 0, result.err
    assert notices(result.err) == []


def test_an_uncommitted_channel_under_base_says_it_is_not_committed(
        tmp_path: Path, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    repo = GitRepo.create(tmp_path / "r", {"src/app.py": "one\n"})
    repo.branch("feature")
    repo.commit({"src/app.py": "one\ntwo\n"})
    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}})
    repo.write({".mmr.yaml": "version: 1\nchannels:\n  smol-a:\n    command: rev1\n"})
    result = run_mmr("review", "--base", "main", "--channels", "smol-a", "--sync",
                     cwd=repo.root)
    assert result.code == 1
    assert 'Channel "smol-a" not found in config' in result.err
    assert notices(result.err) == [
        "[mmr] notice: the working-tree .mmr.yaml is not read: this review reads it from "
        "main, where it is not there; commit it (and merge it to the default branch), or "
        "pass --trust-project-config to use it for this run."]
