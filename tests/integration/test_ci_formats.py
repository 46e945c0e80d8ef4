"""The CI formats through ``mmr review --sync`` and ``mmr results``: the real pipeline, fake
reviewers, a real repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import finding, reply, write_user_config
from tests.sarif_schema import sarif_errors

MMR = str(Path(sys.executable).parent / "mmr")


@pytest.fixture
def blocked_repo(tmp_path: Path, fake_cli: FakeCliFactory) -> GitRepo:
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "def f(n):\n    return n\n"})
    repo.write({"src/app.py": "def f(n):\n    for i in range(n + 1):\n        print(i)\n"})
    fake_cli("rev1", stdout=reply(finding()))
    fake_cli("rev2", stdout=reply(finding(location="src/app.py:3")))
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    return repo


def mmr(*args: str, cwd: Path, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MMR, *args], cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=120, check=False)


def test_review_in_sarif_is_valid_and_exits_with_the_verdict(blocked_repo):
    done = mmr("review", "--sync", "--format", "sarif", cwd=blocked_repo.root)
    assert done.returncode == 2, done.stderr
    log = json.loads(done.stdout)
    assert sarif_errors(log) == []
    [result] = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/app.py"
    assert log["runs"][0]["properties"]["verdict"] == "blocked"


def test_review_in_github_format_annotates_and_writes_the_step_summary(blocked_repo, tmp_path):
    summary = tmp_path / "summary.md"
    done = mmr("review", "--sync", "--format", "github", cwd=blocked_repo.root,
               env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 2, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("::error file=src/app.py,line=2,title=mmr P1 · consensus · ")
    assert lines[1] == "::error title=mmr verdict::Review blocked — 1 finding(s) at or above P2"
    assert lines[2].startswith("::stop-commands::mmr-")
    assert summary.read_text(encoding="utf-8").startswith("## Multi-Model Review — BLOCKED")


def test_results_renders_a_finished_job_in_each_ci_format(blocked_repo):
    review = mmr("review", "--sync", "--format", "json", cwd=blocked_repo.root)
    job_id = json.loads(review.stdout)["job_id"]
    rdjsonl = mmr("results", job_id, "--format", "rdjsonl", cwd=blocked_repo.root)
    assert rdjsonl.returncode == 2, rdjsonl.stderr
    [line] = rdjsonl.stdout.splitlines()
    assert json.loads(line)["severity"] == "ERROR"
    sarif = mmr("results", job_id, "--format", "sarif", cwd=blocked_repo.root)
    assert json.loads(sarif.stdout)["runs"][0]["properties"]["job_id"] == job_id


def test_rdjsonl_without_findings_prints_nothing(tmp_path, fake_cli):
    # reviewdog cannot parse a blank line.
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    repo.write({"a.py": "x = 2\n"})
    clean = {"approved": True, "findings": [], "summary": "fine"}
    fake_cli("rev1", stdout=clean)
    fake_cli("rev2", stdout=clean)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    review = mmr("review", "--sync", "--format", "json", cwd=repo.root)
    job_id = json.loads(review.stdout)["job_id"]
    done = mmr("results", job_id, "--format", "rdjsonl", cwd=repo.root)
    assert (done.returncode, done.stdout) == (0, "")
