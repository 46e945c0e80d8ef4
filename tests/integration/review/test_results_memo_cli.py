"""Every command that builds a verdict goes through the results memo (issue 19):
``review --sync`` writes it, ``results`` in any format reads it, ``reconcile`` replaces it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import mmr
from mmr.config.paths import jobs_dir
from mmr.review import stage_memo
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import (
    RunMmr,
    finding,
    job_ids,
    reply,
    write_user_config,
)


def test_review_results_and_reconcile_share_the_memo(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, computes: list[str]) -> None:
    fake_cli("rev1", stdout=reply(finding()))
    fake_cli("rev2", stdout=reply(finding(location="lib/gone.py:3")))
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    review = run_mmr("review", "--sync", cwd=repo.root)
    assert review.code == 2, review.err
    [job_id] = job_ids()
    assert (jobs_dir() / job_id / "results-memo.json").is_file()
    assert len(computes) == 1

    results = run_mmr("results", job_id, cwd=repo.root)
    assert (results.code, results.json()) == (2, review.json())
    sarif = run_mmr("results", job_id, "--format", "sarif", cwd=repo.root)
    assert sarif.code == 2 and json.loads(sarif.out)["runs"]
    assert len(computes) == 1  # both read the memo

    extra = json.dumps({"findings": [finding(location="src/app.py:3", severity="P3",
                                             description="Loop prints every index")]})
    folded = run_mmr("reconcile", job_id, "--channel", "agent", "--input", extra,
                     cwd=repo.root)
    assert folded.code == 2, folded.err
    assert len(computes) == 2  # a new channel: computed again, memo replaced
    again = run_mmr("results", job_id, cwd=repo.root)
    assert again.json() == folded.json() and len(computes) == 2
    assert "memo" not in review.err + results.err + folded.err + again.err


def test_the_source_fingerprint_follows_an_edited_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A development install keeps its version string while its code changes."""
    package = tmp_path / "mmr"
    shutil.copytree(Path(mmr.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(mmr, "__file__", str(package / "__init__.py"))
    monkeypatch.setattr(stage_memo, "_fingerprint", [])
    before = stage_memo._source_fingerprint()
    module = package / "reconcile" / "grouping.py"
    module.write_text(module.read_text() + "\n")
    monkeypatch.setattr(stage_memo, "_fingerprint", [])
    assert stage_memo._source_fingerprint() != before
