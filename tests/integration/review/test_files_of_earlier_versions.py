"""Files an earlier mmr left behind are ignored: the results memo in a job directory
(``results-memo.json``) and the early start's recipes (``$MMR_HOME/cache/early/``)."""

from __future__ import annotations

import json

from mmr.config.paths import jobs_dir, mmr_home
from tests.cli_runner import RunMmr
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, finding, reply, write_user_config

CHANNELS = {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}}


def test_results_ignore_a_results_memo_that_says_otherwise(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=reply(finding()))
    fake_cli("rev2", stdout=CLEAN)
    write_user_config(CHANNELS)
    first = run_mmr("review", "--sync", cwd=repo.root)
    assert first.code == 2, first.err
    job_id = json.loads(first.out)["job_id"]
    memo = jobs_dir() / job_id / "results-memo.json"
    # The shape the memo had, claiming no findings at all: nothing reads it any more.
    memo.write_text(json.dumps({"format": 1, "key": "0" * 64, "probes": [], "per_channel": {},
                                "in_diff": [], "outside_diff": [], "unanchored": [],
                                "generated_ids": [[], [], []]}))
    again = run_mmr("results", job_id, cwd=repo.root)
    assert again.code == 2, again.err
    assert json.loads(again.out)["reconciled_findings"] == json.loads(first.out)[
        "reconciled_findings"]
    assert memo.exists()  # left alone; `jobs prune` removes it with its job


def test_a_review_ignores_early_start_recipes(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fakes = [fake_cli("rev1", stdout=CLEAN), fake_cli("rev2", stdout=CLEAN)]
    write_user_config(CHANNELS)
    recipes = mmr_home() / "cache" / "early"
    recipes.mkdir(parents=True)
    recipe = recipes / ("a" * 64 + ".json")
    recipe.write_text('{"key": "' + "a" * 64 + '", "channels": []}')
    recipe.chmod(0o600)
    for _ in range(2):  # a repeated review: the run an early start would have begun
        done = run_mmr("review", "--sync", "--no-cache", cwd=repo.root)
        assert done.code == 0, done.err
    assert [len(fake.calls()) for fake in fakes] == [2, 2]
    assert sorted(p.name for p in recipes.iterdir()) == [recipe.name]
