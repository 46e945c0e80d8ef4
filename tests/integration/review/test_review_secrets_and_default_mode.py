"""Credentials never leave redacted-by-default channels; the default mode."""

from __future__ import annotations

import json
import time
from pathlib import Path

from mmr.config.paths import jobs_dir
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, RunMmr, job_ids, write_user_config

TOKEN = "ghp_" + "A1b2C3d4" * 5
AWS_KEY = "AKIA" + "ABCDEFGHIJKLMNOP"


def test_credentials_are_redacted_before_a_channel_sees_them(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    repo.write({"src/app.py": f"TOKEN = '{TOKEN}'\nKEY = '{AWS_KEY}'\n"})
    redacting = fake_cli("rev1", stdout=CLEAN)
    allowing = fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"},
                       "rev2": {"command": "rev2", "on_credentials": "allow"}})
    result = run_mmr("review", "--sync", cwd=repo.root)
    seen = redacting.last_call()["stdin"]
    assert TOKEN not in seen and AWS_KEY not in seen
    assert "+TOKEN = '<redacted:github-token>'" in seen
    assert "+KEY = '<redacted:aws-access-key>'" in seen
    assert TOKEN in allowing.last_call()["stdin"]  # `allow` sends the diff verbatim
    assert "[mmr] warning: redacted 2 credential-shaped string(s)" in result.err
    # The job store holds nothing credential-shaped.
    [job_id] = job_ids()
    for name in ("prompt.txt", "diff.patch"):
        stored = (jobs_dir() / job_id / name).read_text()
        assert TOKEN not in stored and AWS_KEY not in stored
    # Each committed credential is a finding of its own, and blocks.
    doc = result.json()
    secrets = [f for f in doc["reconciled_findings"] if f["sources"] == ["mmr-secrets"]]
    assert sorted(f["location"] for f in secrets) == ["src/app.py:1", "src/app.py:2"]
    assert (result.code, doc["verdict"]) == (2, "blocked")
    assert "mmr-secrets" not in doc["per_channel"]
    assert doc["metadata"]["channels_dispatched"] == 2


def test_secret_findings_can_be_turned_off(repo: GitRepo, fake_cli: FakeCliFactory,
                                           run_mmr: RunMmr) -> None:
    repo.write({"src/app.py": f"TOKEN = '{TOKEN}'\n"})
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}},
                      defaults={"secret_findings": False})
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert (result.code, result.json()["reconciled_findings"]) == (0, [])


def _wait_for_worker(run_mmr: RunMmr, job_id: str, cwd: Path) -> dict[str, object]:
    """Default mode returns at once (Decisions): poll `mmr status` until the worker is done."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = run_mmr("status", job_id, cwd=cwd)
        if status.code != 1 and status.json().get("worker") != "running":
            return dict(status.json())
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


def test_default_mode_prints_the_dispatch_summary_and_exits_0(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev2", stdout="", exit_code=1)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"},
                       "gone": {"command": "gone-tool"}})
    result = run_mmr("review", "--format", "text", cwd=repo.root)
    assert result.code == 0
    summary = result.json()  # JSON whatever --format says
    assert list(summary) == ["job_id", "status", "trust_mode", "channels", "valid_channels",
                             "not_dispatched", "worker_pid"]
    assert summary["trust_mode"] == "base-ref"
    # Printed after the worker's gate, before it dispatched (issue 18: `gone` used to be
    # listed as dispatched and valid).
    assert summary["status"] == "dispatched"
    assert summary["channels"] == {"rev1": "dispatched", "rev2": "dispatched",
                                   "gone": "not_installed"}
    assert summary["valid_channels"] == ["rev1", "rev2"]
    status = _wait_for_worker(run_mmr, summary["job_id"], repo.root)
    assert {name: entry["status"] for name, entry in status["channels"].items()  # type: ignore[attr-defined]
            if not name.startswith("compensating-")} == {
        "rev1": "completed", "rev2": "failed", "gone": "not_installed"}
    # The worker left the job its results, for `mmr results`.
    saved = json.loads((jobs_dir() / summary["job_id"] / "results.json").read_text())
    assert saved["per_channel"]["rev1"]["status"] == "completed"


def test_default_mode_with_nothing_passing_still_creates_the_job(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    write_user_config({"gone": {"command": "gone-tool"}})
    result = run_mmr("review", cwd=repo.root)
    assert result.code == 0
    job_id = result.json()["job_id"]
    assert _wait_for_worker(run_mmr, job_id, repo.root)["channels"] == {
        "gone": {"status": "not_installed"}}
    # The gate ran in the worker: its lines are in worker.log, not on our stderr.
    assert "No channels passed auth check:" not in result.err
    assert "No channels passed auth check:" in (jobs_dir() / job_id / "worker.log").read_text()


def test_summary_names_proposed_changes(tmp_path: Path, fake_cli: FakeCliFactory,
                                        run_mmr: RunMmr) -> None:
    repo = GitRepo.create(tmp_path / "r", {"a.py": "x\n"})
    repo.write({".mmr.yaml": "version: 1\n", "a.py": "y\n"})
    repo.stage({".mmr.yaml": "version: 1\n", "a.py": "y\n"})
    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}})
    result = run_mmr("review", "--staged", "--trust-project-config", cwd=repo.root)
    summary = result.json()
    assert summary["proposed_config_change"] is True
    # The reference's keys in its order, then mmr's additive worker_pid.
    assert list(summary)[-2:] == ["proposed_config_change", "worker_pid"]
    _wait_for_worker(run_mmr, summary["job_id"], repo.root)
