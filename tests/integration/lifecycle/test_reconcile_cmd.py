"""``mmr reconcile <job-id> --channel NAME --input SRC``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import jobs_dir
from mmr.store.jobs import JobStore
from tests.integration.git_repo_builder import GitRepo
from tests.integration.lifecycle.conftest import CLEAN, RunMmr, finding
from tests.integration.lifecycle.jobs import finished_job

P3 = finding("src/app.py:3", "P3", "Prints in a loop")
P1 = finding()


def _one_channel_job(store: JobStore) -> str:
    """One completed channel against a floor of 2: `needs-user-decision` until a second."""
    return finished_job(store, {"claude": CLEAN})


def _entry(job_id: str, name: str) -> dict[str, Any]:
    job_json = json.loads((jobs_dir() / job_id / "job.json").read_text())
    status = json.loads((jobs_dir() / job_id / "channels" / f"{name}.status.json").read_text())
    return {**job_json["channels"][name], **status}


def test_bare_array_inline_lifts_the_job_over_the_floor(
        store: JobStore, repo: GitRepo, run_mmr: RunMmr) -> None:
    job_id = _one_channel_job(store)
    assert run_mmr("results", job_id, cwd=repo.root).code == 3
    result = run_mmr("reconcile", job_id, "--channel", "Agent", "--input", json.dumps([P3]),
                     cwd=repo.root)
    assert result.code == 0, result.err
    doc = result.json()
    assert (doc["verdict"], doc["metadata"]["channels_completed"]) == ("pass", 2)
    assert [f["sources"] for f in doc["reconciled_findings"]] == [["agent"]]
    assert doc["per_channel"]["agent"]["status"] == "completed"
    assert doc["metadata"]["total_elapsed"] == "12.3s"  # the injected channel is left out
    stored = json.loads((jobs_dir() / job_id / "channels" / "agent.json").read_text())
    assert stored == {"approved": True, "findings": [P3], "summary": "Injected external findings"}
    entry = _entry(job_id, "agent")
    assert (entry["status"], entry["output_parser"], entry["injected"]) == (
        "completed", "default", True)
    assert entry["started_at"] == entry["completed_at"]
    saved = json.loads((jobs_dir() / job_id / "results.json").read_text())
    assert saved == doc


@pytest.mark.parametrize("form", ["file", "stdin", "inline"])
def test_every_input_source(store: JobStore, repo: GitRepo, run_mmr: RunMmr,
                            tmp_path: Path, form: str) -> None:
    job_id = _one_channel_job(store)
    text = json.dumps({"approved": False, "findings": [P1], "summary": "one issue"})
    stdin = None
    if form == "file":
        (tmp_path / "findings.json").write_text(text)
        source = str(tmp_path / "findings.json")
    elif form == "stdin":
        source, stdin = "-", text
    else:
        source = "  " + text  # leading whitespace: still inline JSON
    result = run_mmr("reconcile", job_id, "--channel", "agent", "--input", source,
                     stdin=stdin, cwd=repo.root)
    assert result.code == 2, result.err
    assert result.json()["reconciled_findings"][0]["sources"] == ["agent"]
    stored = json.loads((jobs_dir() / job_id / "channels" / "agent.json").read_text())
    assert stored == {"approved": False, "findings": [P1], "summary": "one issue"}


@pytest.mark.parametrize(
    ("text", "approved", "summary"),
    [
        ("```json\n" + json.dumps([P3]) + ",\n```", True, "Injected external findings"),
        ("Here is my review:\n" + json.dumps({"findings": [P3], "summary": "s"}) + "\nThanks",
         False, "s"),
        ("See [docs] for more. Findings:\n" + json.dumps([P1]), False,
         "Injected external findings"),
        ('{"approved": true, "findings": [], "summary": 3}', True, ""),
        ('{"findings": []}', False, ""),  # approved:false is kept even with no findings
        ("[]", True, "Injected external findings"),
    ],
)
def test_accepted_shapes(*, store: JobStore, repo: GitRepo, run_mmr: RunMmr, tmp_path: Path,
                         text: str, approved: bool, summary: str) -> None:
    job_id = _one_channel_job(store)
    (tmp_path / "in.md").write_text(text)
    result = run_mmr("reconcile", job_id, "--channel", "agent", "--input",
                     str(tmp_path / "in.md"), cwd=repo.root)
    assert result.code in (0, 2), result.err
    stored = json.loads((jobs_dir() / job_id / "channels" / "agent.json").read_text())
    assert (stored["approved"], stored["summary"]) == (approved, summary)


@pytest.mark.parametrize(
    ("findings", "message"),
    [
        ([P3, {**P1, "location": ""}],
         "Invalid input: Finding missing location (finding 2 of 2, index 1)"),
        ([{**P3, "severity": "p1"}],
         "Invalid input: Finding missing or invalid severity (must be P0-P3) "
         "(finding 1 of 1, index 0)"),
        ([P3, P3, {**P3, "description": 42}],
         "Invalid input: Finding missing description (finding 3 of 3, index 2)"),
        ([P3, "not an object"],
         "Invalid input: Finding must be an object (finding 2 of 2, index 1)"),
    ],
)
@pytest.mark.parametrize("wrapped", [False, True])
def test_an_invalid_finding_is_named_and_nothing_is_written(
        *, store: JobStore, repo: GitRepo, run_mmr: RunMmr, findings: list[Any], message: str,
        wrapped: bool) -> None:
    job_id = _one_channel_job(store)
    job_json = (jobs_dir() / job_id / "job.json").read_text()
    text = json.dumps({"findings": findings} if wrapped else findings)
    result = run_mmr("reconcile", job_id, "--channel", "agent", "--input", text, cwd=repo.root)
    assert result.code == 5
    assert result.err == f"mmr: error: {message}\n"
    assert (jobs_dir() / job_id / "job.json").read_text() == job_json
    assert not (jobs_dir() / job_id / "channels" / "agent.json").exists()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (json.dumps(P1), "Invalid input: Invalid input format: expected JSON object with "
                         "findings array or bare array of findings"),
        ('{"approved": true}', "Invalid input: Invalid input format"),
        ("[" + json.dumps(P1), "Invalid input: Unbalanced brackets in array input"),
        ('{"findings": [1,,]}', "Invalid input: "),
        ("no-such-file.json", 'Input not found: "no-such-file.json" is not a file, stdin (-), '
                              "or valid JSON"),
    ],
)
def test_bad_input_exits_5(store: JobStore, repo: GitRepo, run_mmr: RunMmr, source: str,
                           message: str) -> None:
    job_id = _one_channel_job(store)
    result = run_mmr("reconcile", job_id, "--channel", "agent", "--input", source, cwd=repo.root)
    assert result.code == 5
    assert result.err.startswith(f"mmr: error: {message}")
    assert "agent" not in json.loads((jobs_dir() / job_id / "job.json").read_text())["channels"]


def test_prose_only_input_is_no_json(store: JobStore, repo: GitRepo, run_mmr: RunMmr,
                                     tmp_path: Path) -> None:
    job_id = _one_channel_job(store)
    (tmp_path / "notes.txt").write_text("Looks fine to me.")
    result = run_mmr("reconcile", job_id, "--channel", "agent", "--input",
                     str(tmp_path / "notes.txt"), cwd=repo.root)
    assert (result.code, result.err) == (
        5, "mmr: error: Invalid input: No JSON object or array found in input\n")


@pytest.mark.parametrize(
    ("channel", "message"),
    [
        ("a b", 'Invalid channel name: "a b"'),
        ("../x", 'Invalid channel name: "../x"'),
        ("", 'Invalid channel name: ""'),
        ("claude", "Channel 'claude' already exists in job "),
        ("CLAUDE", "Channel 'claude' already exists in job "),
        ("mmr-secrets", 'Invalid channel name: "mmr-secrets" is reserved'),
    ],
)
def test_invalid_or_duplicate_channel_name_exits_5(store: JobStore, repo: GitRepo,
                                                   run_mmr: RunMmr, channel: str,
                                                   message: str) -> None:
    job_id = _one_channel_job(store)
    result = run_mmr("reconcile", job_id, "--channel", channel, "--input", "[]", cwd=repo.root)
    assert result.code == 5
    assert result.err.startswith(f"mmr: error: {message}")


def test_check_order_job_then_running_then_name_then_input(
        store: JobStore, repo: GitRepo, run_mmr: RunMmr) -> None:
    missing = run_mmr("reconcile", "mmr-000000000000", "--channel", "a b", "--input", "x",
                      cwd=repo.root)
    assert (missing.code, missing.err) == (5, "mmr: error: Job not found: mmr-000000000000\n")
    running = finished_job(store, {"claude": CLEAN}, running=("codex",))
    busy = run_mmr("reconcile", running, "--channel", "a b", "--input", "x", cwd=repo.root)
    assert busy.code == 6
    assert busy.err.startswith("mmr: error: Channels still running: codex\n")
    job_id = _one_channel_job(store)
    name_first = run_mmr("reconcile", job_id, "--channel", "a b", "--input", "x", cwd=repo.root)
    assert name_first.err.startswith('mmr: error: Invalid channel name: "a b"')


def test_injected_findings_pass_through_the_diff_filter(
        store: JobStore, repo: GitRepo, run_mmr: RunMmr) -> None:
    job_id = _one_channel_job(store)
    # P1: an unacknowledged P0 outside the diff would ask for a decision (exit 3).
    outside = finding("src/other.py:1", "P1", "Outside the diff")
    result = run_mmr("reconcile", job_id, "--channel", "agent", "--input",
                     json.dumps([outside, P3]), "--format", "json", cwd=repo.root)
    assert result.code == 0
    assert [f["location"] for f in result.json()["reconciled_findings"]] == ["src/app.py:3"]


def test_text_format_and_the_jobs_default(store: JobStore, repo: GitRepo,
                                          run_mmr: RunMmr) -> None:
    job_id = finished_job(store, {"claude": CLEAN}, fmt="text")
    result = run_mmr("reconcile", job_id, "--channel", "agent", "--input", "[]", cwd=repo.root)
    assert result.code == 0
    assert result.out.startswith(f"MMR PASSED — {job_id}")


@pytest.mark.parametrize("had_worker", [True, False])
def test_the_channel_appears_already_completed(
        store: JobStore, repo: GitRepo, run_mmr: RunMmr, monkeypatch: pytest.MonkeyPatch,
        had_worker: bool) -> None:
    job_id = _one_channel_job(store)
    if had_worker:
        store.acquire_worker_lock(job_id).release()  # a finished worker left worker.lock
    seen: list[tuple[str, bool | None]] = []
    register = JobStore.register_channel

    def register_and_look(self: JobStore, job: str, channel: str, entry: Any) -> None:
        register(self, job, channel, entry)
        # The moment the channel becomes visible, a reader (which runs the dead-worker
        # sweep) finds it completed, and no worker running that would make it wait.
        reader = JobStore(self.root)
        seen.append((reader.load(job).channels[channel].status, reader.is_worker_alive(job)))

    monkeypatch.setattr(JobStore, "register_channel", register_and_look)
    result = run_mmr("reconcile", job_id, "--channel", "agent", "--input", "[]", cwd=repo.root)
    assert result.code == 0, result.err
    assert seen == [("completed", False if had_worker else None)]
    assert "reason" not in _entry(job_id, "agent")
    assert (jobs_dir() / job_id / "worker.lock").exists() is had_worker  # none added


def test_two_reconciles_with_one_name_at_once_add_it_once(
        store: JobStore, repo: GitRepo) -> None:
    job_id = _one_channel_job(store)
    command = [sys.executable, "-m", "mmr", "reconcile", job_id, "--channel", "agent"]
    runs = [subprocess.Popen([*command, "--input", json.dumps([{**P3, "description": d}])],
                             cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
            for d in ("first reviewer", "second reviewer")]
    outcomes = [(run.wait(timeout=60), run.communicate()) for run in runs]
    codes = sorted(code for code, _ in outcomes)
    assert codes == [0, 5], outcomes
    [(_, (winner_out, _))] = [o for o in outcomes if o[0] == 0]
    [(_, (_, loser_err))] = [o for o in outcomes if o[0] == 5]
    assert f"Channel 'agent' already exists in job {job_id}" in loser_err
    stored = json.loads((jobs_dir() / job_id / "channels" / "agent.json").read_text())
    winner = json.loads(winner_out)["reconciled_findings"][0]["description"]
    assert stored["findings"][0]["description"] == winner
