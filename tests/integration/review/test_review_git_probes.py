"""Issue 19: the review's set-up runs each ``git rev-parse`` probe once (``git.probe_memo``)."""

from __future__ import annotations

import os
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

from mmr import git
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, RunMmr, write_user_config

WRAPPER = """\
#!{python}
import os, sys
with open({log!r}, "a") as out:
    out.write(" ".join(sys.argv[1:]) + "\\n")
os.execv({git!r}, [{git!r}, *sys.argv[1:]])
"""


@pytest.fixture
def git_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every git command line mmr runs, one a line (a logging ``git`` first on PATH)."""
    real = shutil.which("git")
    assert real is not None
    bin_dir, log = tmp_path / "git-bin", tmp_path / "git.log"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(WRAPPER.format(python=sys.executable, log=str(log), git=real))
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def _runs(log: Path) -> Counter[str]:
    lines = log.read_text().splitlines() if log.exists() else []
    return Counter(line for line in lines if line.startswith("rev-parse"))


def test_inside_the_memo_each_probe_runs_once(repo: GitRepo, git_log: Path) -> None:
    with git.probe_memo():
        for _ in range(3):
            assert git.show_toplevel(repo.root) == repo.root.resolve()
            assert git.ref_exists("main", repo.root)
            assert not git.ref_exists("no-such-branch", repo.root)
            assert git.is_inside_work_tree(repo.root)
        assert not git.is_inside_work_tree(repo.root.parent)  # another directory asks again
    runs = _runs(git_log)
    assert runs.pop("rev-parse --is-inside-work-tree") == 2  # one per directory
    assert len(runs) == 3 and set(runs.values()) == {1}


def test_outside_the_memo_every_probe_runs(repo: GitRepo, git_log: Path) -> None:
    for _ in range(2):
        git.show_toplevel(repo.root)
        git.ref_exists("main", repo.root)
    assert set(_runs(git_log).values()) == {2}
    with git.probe_memo():
        git.ref_exists("main", repo.root)
    with git.probe_memo():  # a new memo forgets the last one's answers
        git.ref_exists("main", repo.root)
    assert _runs(git_log)["rev-parse --verify --quiet --end-of-options main^{commit}"] == 4


def test_a_review_asks_git_each_rev_parse_question_once(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, git_log: Path) -> None:
    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}}, {"min_completed_channels": 1})
    repo.git("add", "-A")
    repo.git("commit", "-qm", "change")
    repo.branch("feature")
    repo.commit({"src/app.py": "x = eval(input())\n"})

    result = run_mmr("review", "--base", "main", "--sync", "--no-cache", cwd=repo.root)

    assert result.code == 0, result.err
    runs = _runs(git_log)
    assert runs and set(runs.values()) == {1}, runs
