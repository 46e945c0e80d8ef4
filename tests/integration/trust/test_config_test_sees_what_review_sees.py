"""Issue 18: ``mmr config test`` tells the truth about a channel review cannot see.

A channel defined only in an uncommitted ``.mmr.yaml`` used to test ``ok`` while ``mmr
review --channels <it>`` answered ``Channel "…" not found in config``: review reads the
project file from a commit (docs/trust.md). Now the report marks it and says the fix.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import RunMmr
from tests.fakes.plugin import FakeCli
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN


def local_config(command: Path) -> str:
    return f"version: 1\nchannels:\n  smol-a:\n    command: {command}\n"


def test_an_uncommitted_channel_is_reported_as_not_used_by_review(
        tmp_path: Path, run_mmr: RunMmr, fake_cli: FakeCli) -> None:
    reviewer = fake_cli("fake-reviewer", stdout=CLEAN)
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "a = 1\n"})
    repo.write({".mmr.yaml": local_config(reviewer.path), "src/app.py": "a = 2\n"})

    tested = run_mmr("config", "test", cwd=repo.root)
    assert json.loads(tested.out)["smol-a"] == {
        "installed": True, "auth": "ok", "used_by_review": False,
        "note": "mmr review will not use it: it is defined only in the uncommitted .mmr.yaml"}
    assert tested.err == (
        f"mmr: warning: smol-a is defined only in the uncommitted {repo.root / '.mmr.yaml'}; "
        "mmr review reads .mmr.yaml from a commit, so it will not use it. Commit .mmr.yaml "
        "(and merge it to the default branch), or pass --trust-project-config to mmr review.\n")
    # ... and review indeed cannot see it.
    reviewed = run_mmr("review", "--channels", "smol-a", "--dry-run", cwd=repo.root)
    assert reviewed.code == 1
    assert 'Channel "smol-a" not found in config' in reviewed.err

    trusted = run_mmr("config", "test", "--trust-project-config", cwd=repo.root)
    assert json.loads(trusted.out)["smol-a"] == {"installed": True, "auth": "ok"}
    assert tested.code == trusted.code  # the install and auth answer is unchanged


def test_a_committed_channel_is_reported_plainly(tmp_path: Path, run_mmr: RunMmr,
                                                 fake_cli: FakeCli) -> None:
    reviewer = fake_cli("fake-reviewer", stdout=CLEAN)
    repo = GitRepo.create(tmp_path / "repo", {".mmr.yaml": local_config(reviewer.path)})
    repo.write({"src/app.py": "a = 2\n"})

    tested = run_mmr("config", "test", cwd=repo.root)
    assert json.loads(tested.out)["smol-a"] == {"installed": True, "auth": "ok"}
    assert "smol-a" not in tested.err
    reviewed = run_mmr("review", "--channels", "smol-a", "--dry-run", cwd=repo.root)
    assert "not found in config" not in reviewed.err


def test_outside_git_no_project_channel_reaches_review(tmp_path: Path, run_mmr: RunMmr,
                                                      fake_cli: FakeCli) -> None:
    reviewer = fake_cli("fake-reviewer", stdout=CLEAN)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / ".mmr.yaml").write_text(local_config(reviewer.path))

    tested = run_mmr("config", "test", cwd=plain)
    assert json.loads(tested.out)["smol-a"]["used_by_review"] is False
    assert "no project .mmr.yaml is read outside a git repository" in tested.out
    assert tested.err.startswith(f"mmr: warning: smol-a is defined only in {plain / '.mmr.yaml'}")
