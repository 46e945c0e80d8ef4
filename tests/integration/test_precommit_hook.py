"""``.pre-commit-hooks.yaml``: the hook's entry, run the way pre-commit runs it.

Most tests run the hook's ``entry`` and ``args`` directly, with the environment pre-commit
gives a ``pre-push`` hook (``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF``) or none (the
``pre-commit`` stage). ``test_pre_commit_try_repo`` runs the real pre-commit (a test
dependency): it installs this checkout into its own hook environment and runs the hook at
the stage it ships with.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, finding, reply, write_user_config

REPO_ROOT = Path(__file__).resolve().parents[2]
[HOOK] = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
CHANGED = "def f(n):\n    for i in range(n + 1):\n        print(i)\n"


def test_hook_manifest():
    assert HOOK["id"] == "mmr-review"
    assert HOOK["language"] == "python"
    assert HOOK["pass_filenames"] is False
    assert HOOK["stages"] == ["pre-push"]
    assert HOOK["require_serial"] is True


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo.create(tmp_path / "repo", {"src/app.py": "def f(n):\n    return n\n"})


@pytest.fixture
def reviewers(fake_cli: FakeCliFactory) -> tuple[FakeCli, FakeCli]:
    fakes = (fake_cli("rev1", stdout=reply(finding())), fake_cli("rev2", stdout=CLEAN))
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    return fakes


def run_hook(repo: GitRepo, *args: str, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    """``entry`` + ``args`` with the hook environment's ``bin`` first on PATH."""
    argv = [*shlex.split(HOOK["entry"]), *HOOK.get("args", []), *args]
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
    return subprocess.run(argv, cwd=repo.root, env={**os.environ, "PATH": path, **(env or {})},
                          capture_output=True, text=True, timeout=120, check=False)


def test_pre_push_reviews_the_commits_being_pushed(repo, reviewers):
    pushed_from = repo.git("rev-parse", "HEAD").strip()
    pushed_to = repo.commit({"src/app.py": CHANGED})
    done = run_hook(repo, env={"PRE_COMMIT_FROM_REF": pushed_from,
                               "PRE_COMMIT_TO_REF": pushed_to})
    assert done.returncode == 2, done.stderr
    assert done.stdout.startswith("MMR BLOCKED — mmr-")
    assert "+    for i in range(n + 1):" in reviewers[0].last_call()["stdin"]


def test_pre_push_without_the_hook_would_see_no_diff(repo, reviewers):
    # Why the entry is not plain `mmr review --staged`: at push time nothing is staged.
    repo.commit({"src/app.py": CHANGED})
    done = subprocess.run([str(Path(sys.executable).parent / "mmr"), "review", "--staged",
                           "--sync"], cwd=repo.root, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 1
    assert "No diff content found" in done.stderr


def test_at_the_pre_commit_stage_the_staged_changes_are_reviewed(repo, reviewers):
    repo.stage({"src/app.py": CHANGED})
    done = run_hook(repo)
    assert done.returncode == 2, done.stderr
    assert "[P1] src/app.py:2" in done.stdout
    assert "+    for i in range(n + 1):" in reviewers[0].last_call()["stdin"]


def test_a_clean_review_lets_the_push_through(repo, fake_cli):
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    repo.stage({"src/app.py": CHANGED})
    done = run_hook(repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MMR PASSED — mmr-")


def test_hook_args_come_last_and_win(repo, reviewers):
    repo.stage({"src/app.py": CHANGED})
    done = run_hook(repo, "--format", "json", "--channels", "rev2")
    assert done.returncode == 3, done.stderr  # one channel is below the completion floor
    assert done.stdout.startswith("{")
    assert reviewers[0].calls() == []


@pytest.mark.slow
def test_pre_commit_try_repo(repo, reviewers, tmp_path):
    pre_commit = Path(sys.executable).parent / "pre-commit"
    assert pre_commit.exists(), "pre-commit is part of the test extra: pip install '.[test]'"
    pushed_from = repo.git("rev-parse", "HEAD").strip()
    pushed_to = repo.commit({"src/app.py": CHANGED})
    done = subprocess.run(
        [str(pre_commit), "try-repo", str(REPO_ROOT), "mmr-review", "--hook-stage", "pre-push",
         "--from-ref", pushed_from, "--to-ref", pushed_to],
        cwd=repo.root, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")},
    )
    assert done.returncode == 1, done.stdout + done.stderr  # pre-commit's "a hook failed"
    assert "MMR BLOCKED" in done.stdout
    assert "+    for i in range(n + 1):" in reviewers[0].last_call()["stdin"]
