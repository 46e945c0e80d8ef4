"""The review cache end to end: a second identical review calls no channel (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

from mmr.config.paths import mmr_home
from tests.cli_runner import RunMmr
from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import finding, reply, write_user_config

CHANNELS = {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}}


def reviewers(fake_cli: FakeCliFactory) -> tuple[FakeCli, FakeCli]:
    fakes = (fake_cli("rev1", stdout=reply(finding())), fake_cli("rev2", stdout=reply(finding())))
    write_user_config(CHANNELS)
    return fakes


def review(run_mmr: RunMmr, repo: GitRepo, *args: str) -> dict:
    done = run_mmr("review", "--sync", *args, cwd=repo.root)
    assert done.code == 2, done.err
    return json.loads(done.out)


def calls(*fakes: FakeCli) -> list[int]:
    return [len(fake.calls()) for fake in fakes]


def comparable(document: dict) -> dict:
    doc = json.loads(json.dumps(document))
    doc.pop("job_id")
    doc["metadata"].pop("total_elapsed", None)
    for channel in doc["per_channel"].values():
        for key in ("elapsed", "cached", "cached_from"):
            channel.pop(key, None)
    return doc


def test_a_second_identical_review_reuses_every_reply(repo, fake_cli, run_mmr) -> None:
    fakes = reviewers(fake_cli)
    first = review(run_mmr, repo)
    assert calls(*fakes) == [1, 1]
    assert "cached" not in first["per_channel"]["rev1"]

    second = review(run_mmr, repo)
    assert calls(*fakes) == [1, 1]  # no channel ran
    assert comparable(second) == comparable(first)
    for name in ("rev1", "rev2"):
        assert second["per_channel"][name]["cached"] is True
        assert second["per_channel"][name]["cached_from"] == first["job_id"]
    # Still two reviewers agreeing, not four: a cached reply is the same reviewer again.
    assert second["reconciled_findings"][0]["agreement"] == first["reconciled_findings"][0][
        "agreement"]
    text = run_mmr("results", second["job_id"], "--format", "text", cwd=repo.root)
    assert "rev1: completed" in text.out and f"(cached from {first['job_id']})" in text.out


def test_any_change_to_what_a_channel_would_see_misses(repo, fake_cli, run_mmr) -> None:
    fakes = reviewers(fake_cli)
    review(run_mmr, repo)
    assert calls(*fakes) == [1, 1]
    review(run_mmr, repo, "--focus", "security")          # the prompt's parts
    assert calls(*fakes) == [2, 2]
    repo.write({"src/app.py": "def f(n):\n    for i in range(n + 2):\n        print(i)\n"})
    review(run_mmr, repo)                                  # the diff
    assert calls(*fakes) == [3, 3]
    write_user_config({**CHANNELS, "rev1": {"command": "rev1", "timeout": 77}})
    review(run_mmr, repo)                                  # rev1's config only
    assert calls(*fakes) == [4, 3]
    fakes[1].path.write_text(fakes[1].path.read_text() + "\n# upgraded\n")
    review(run_mmr, repo)                                  # rev2's CLI changed
    assert calls(*fakes) == [4, 4]


def test_no_cache_and_max_age_zero_run_every_channel(repo, fake_cli, run_mmr) -> None:
    fakes = reviewers(fake_cli)
    review(run_mmr, repo)
    review(run_mmr, repo, "--no-cache")
    assert calls(*fakes) == [2, 2]
    write_user_config(CHANNELS, {"cache": {"max_age": 0}})
    review(run_mmr, repo)
    assert calls(*fakes) == [3, 3]


def test_a_failed_run_is_never_cached(repo, fake_cli, run_mmr) -> None:
    good = fake_cli("rev1", stdout=reply(finding()))
    bad = fake_cli("rev2", stdout="", exit_code=1)
    write_user_config(CHANNELS, {"min_completed_channels": 1})
    for expected in ([1, 1], [1, 2]):
        done = run_mmr("review", "--sync", cwd=repo.root)
        assert done.code == 2, done.err
        assert calls(good, bad) == expected
    entries = list((mmr_home() / "cache" / "reviews").rglob("*.json"))
    assert [json.loads(p.read_text())["channel"] for p in entries] == ["rev1"]


def test_the_cache_holds_no_raw_secret(repo, fake_cli, run_mmr) -> None:
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    fake_cli("rev1", stdout=reply(finding(description=f"Token {key} is committed")))
    fake_cli("rev2", stdout=reply(finding()))
    write_user_config(CHANNELS)
    repo.write({"src/app.py": f'TOKEN = "{key}"\n'})
    run_mmr("review", "--sync", cwd=repo.root)
    stored = "".join(p.read_text() for p in Path(mmr_home(), "cache").rglob("*.json"))
    assert stored and key not in stored
