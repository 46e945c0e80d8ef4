"""``mmr results <job-id> [--format F] [--raw]``."""

from __future__ import annotations

import json

import pytest

from mmr.config.paths import jobs_dir
from mmr.store.jobs import JobStore
from tests.integration.git_repo_builder import GitRepo
from tests.integration.lifecycle.conftest import CLEAN, RunMmr, finding, reply
from tests.integration.lifecycle.jobs import finished_job


@pytest.mark.parametrize(
    ("outputs", "floor", "code", "verdict"),
    [
        ({"a": CLEAN, "b": CLEAN}, 2, 0, "pass"),
        ({"a": CLEAN, "b": CLEAN, "c": None}, 2, 0, "degraded-pass"),
        ({"a": reply(finding()), "b": CLEAN}, 2, 2, "blocked"),
        ({"a": CLEAN, "b": None}, 2, 3, "needs-user-decision"),
        ({"a": None}, 1, 3, "needs-user-decision"),
    ],
)
def test_exit_code_is_the_verdicts(*, store: JobStore, repo: GitRepo, run_mmr: RunMmr,
                                   outputs: dict[str, object], floor: int, code: int,
                                   verdict: str) -> None:
    job_id = finished_job(store, outputs, min_completed_channels=floor)  # type: ignore[arg-type]
    result = run_mmr("results", job_id, cwd=repo.root)
    assert (result.code, result.json()["verdict"]) == (code, verdict), result.err
    assert result.json()["job_id"] == job_id


def test_results_json_is_overwritten_with_json_whatever_is_printed(
        store: JobStore, repo: GitRepo, run_mmr: RunMmr) -> None:
    job_id = finished_job(store, {"a": reply(finding()), "b": CLEAN}, fmt="markdown")
    results_file = jobs_dir() / job_id / "results.json"
    results_file.write_text('{"stale": true}')
    result = run_mmr("results", job_id, cwd=repo.root)  # the job's format: markdown
    assert result.code == 2
    assert result.out.startswith("#") and not result.out.lstrip().startswith("{")
    saved = json.loads(results_file.read_text())
    assert saved["verdict"] == "blocked" and "stale" not in saved
    text = run_mmr("results", job_id, "--format", "text", cwd=repo.root)
    assert text.out.startswith(f"MMR BLOCKED — {job_id}")
    as_json = run_mmr("results", job_id, "--format", "json", cwd=repo.root)
    assert as_json.json() == saved


def test_raw_adds_each_channels_output(store: JobStore, repo: GitRepo, run_mmr: RunMmr) -> None:
    job_id = finished_job(store, {"a": CLEAN, "b": CLEAN})
    plain = run_mmr("results", job_id, cwd=repo.root).json()
    raw = run_mmr("results", job_id, "--raw", cwd=repo.root).json()
    assert "raw_output" not in plain["per_channel"]["a"]
    assert json.loads(raw["per_channel"]["a"]["raw_output"]) == CLEAN


def test_running_channels_exit_6_with_two_lines(store: JobStore, repo: GitRepo,
                                                run_mmr: RunMmr) -> None:
    # No worker will ever finish this job, so even a waiting `results` answers at once.
    job_id = finished_job(store, {"a": CLEAN}, running=("b", "c"))
    result = run_mmr("results", job_id, cwd=repo.root)
    assert (result.code, result.out) == (6, "")
    assert result.err == ("mmr: error: Channels still running: b, c\n"
                          "Wait for completion or use `mmr status` to check progress.\n")
    assert not (jobs_dir() / job_id / "results.json").exists()


@pytest.mark.parametrize("job_id", ["mmr-000000000000", "../etc", "."])
def test_unknown_job_exits_5(repo: GitRepo, run_mmr: RunMmr, job_id: str) -> None:
    result = run_mmr("results", job_id, cwd=repo.root)
    assert result.code == 5
    assert f"Job not found: {job_id}" in result.err


def test_a_critique_job_is_refused(store: JobStore, repo: GitRepo, run_mmr: RunMmr) -> None:
    job_id = finished_job(store, {"a": CLEAN}, kind="critique")
    result = run_mmr("results", job_id, cwd=repo.root)
    assert result.code == 5
    assert "is a critique job" in result.err


def test_missing_job_id_is_a_usage_error(repo: GitRepo, run_mmr: RunMmr) -> None:
    result = run_mmr("results", cwd=repo.root)
    assert result.code == 1
    assert result.err == "mmr: error: missing argument JOB_ID\nTry 'mmr results --help'\n"


@pytest.mark.parametrize("description", ["Plain words", "Undecodable \udcff byte"])
def test_printed_json_and_results_json_are_the_formatters_bytes(
        store: JobStore, repo: GitRepo, run_mmr: RunMmr, description: str) -> None:
    from mmr.formatters.json import render_json
    from mmr.review.results import job_results

    job_id = finished_job(store, {"a": reply(finding(description=description)), "b": CLEAN})
    result = run_mmr("results", job_id, cwd=repo.root)
    expected = render_json(job_results(store, job_id))
    assert result.out == expected + "\n"
    assert (jobs_dir() / job_id / "results.json").read_text(encoding="utf-8") == expected
