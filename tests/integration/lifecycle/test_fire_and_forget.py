"""``mmr review`` without ``--sync``: a detached worker runs the job."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

import pytest

from mmr.config.paths import jobs_dir
from mmr.store.jobs import JobStore
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.lifecycle.conftest import (
    CLEAN,
    RunMmr,
    comparable,
    finding,
    reply,
    wait_for,
    wait_until_finished,
    write_user_config,
)

pytestmark = pytest.mark.slow

SLEEP = 4.0
STILL_RUNNING = ("Channels still running: rev1, rev2\n"
                 "Wait for completion or use `mmr status` to check progress.\n")


def _two_reviewers(fake_cli: FakeCliFactory, sleep: float = SLEEP) -> None:
    fake_cli("rev1", stdout=reply(finding()), sleep=sleep)
    fake_cli("rev2", stdout=reply(finding(), finding("src/app.py:3", "P3", "Prints in a loop")),
             sleep=sleep)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})


def test_review_returns_at_once_and_results_match_sync(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    _two_reviewers(fake_cli)
    started = time.monotonic()
    result = run_mmr("review", "--format", "text", cwd=repo.root)
    took = time.monotonic() - started
    assert result.code == 0, result.err
    assert took < SLEEP / 2, f"review took {took:.2f}s; the fakes sleep {SLEEP}s"
    summary = result.json()  # JSON whatever --format says
    assert list(summary) == ["job_id", "status", "trust_mode", "channels", "valid_channels",
                             "worker_pid"]
    job_id = summary["job_id"]
    assert summary["status"] == "dispatched"
    assert summary["channels"] == {"rev1": "dispatched", "rev2": "dispatched"}
    assert summary["valid_channels"] == ["rev1", "rev2"]
    assert summary["worker_pid"] != os.getpid()

    # While the worker runs: status exits 1; results --no-wait refuses with the spec's two
    # lines and exit 6 (issue 18: distinct from an error).
    assert run_mmr("status", job_id, cwd=repo.root).code == 1
    early = run_mmr("results", job_id, "--no-wait", cwd=repo.root)
    assert (early.code, early.out) == (6, "")
    assert early.err.endswith(STILL_RUNNING)

    status = wait_until_finished(run_mmr, job_id, repo.root)
    assert status.code == 0
    assert status.json()["worker"] in ("running", "finished")  # it may still save results
    wait_for(lambda: JobStore(jobs_dir()).is_worker_alive(job_id) is False, what="worker exit")
    saved = json.loads((jobs_dir() / job_id / "results.json").read_text())
    assert saved["job_id"] == job_id

    later = run_mmr("results", job_id, "--format", "json", cwd=repo.root)
    assert later.code == 2  # blocked by the P1
    assert later.json() == saved  # the worker wrote what `results` derives again
    record = json.loads((jobs_dir() / job_id / "job.json").read_text())
    assert record["worker"]["pid"] == summary["worker_pid"]

    # --no-cache: the same review again would reuse the replies (and say so). The same
    # replies, without the wait that showed the review returning at once.
    _two_reviewers(fake_cli, sleep=0)
    synced = run_mmr("review", "--sync", "--no-cache", "--format", "json", cwd=repo.root)
    assert synced.code == 2
    assert comparable(later.json()) == comparable(synced.json())
    assert comparable(later.json())["verdict"] == "blocked"


def test_the_worker_runs_in_its_own_session_with_no_terminal(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    slow = fake_cli("rev1", stdout=CLEAN, sleep=30)
    write_user_config({"rev1": {"command": "rev1"}})
    summary = run_mmr("review", cwd=repo.root).json()
    pid, job_id = summary["worker_pid"], summary["job_id"]
    slow.wait_for_call(timeout=30)  # the worker has read its plan and dispatched
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    assert int(stat[3]) == pid != os.getsid(0)  # a session leader: no controlling terminal
    assert stat[4] == "0"  # tty_nr
    job_dir = jobs_dir() / job_id
    fds = Path(f"/proc/{pid}/fd")
    assert str((fds / "0").readlink()) == os.devnull
    assert (fds / "1").readlink() == (fds / "2").readlink() == job_dir / "worker.log"
    # Exactly one copy of the lock: the worker's. Our foreground closed its own.
    assert JobStore(jobs_dir()).is_worker_alive(job_id) is True
    assert job_dir / "worker.lock" not in _open_files(Path("/proc/self/fd"))


def _open_files(fd_dir: Path) -> set[Path]:
    files = set()
    for fd in fd_dir.iterdir():
        with contextlib.suppress(OSError):  # the directory's own descriptor is gone by now
            files.add(fd.readlink())
    return files


def test_a_killed_worker_is_detected_and_results_use_what_finished(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=reply(finding()))
    fake_cli("rev2", stdout=CLEAN, sleep=60)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    summary = run_mmr("review", cwd=repo.root).json()
    job_id, pid = summary["job_id"], summary["worker_pid"]

    def rev1_done_rev2_running() -> bool:
        channels = run_mmr("status", job_id, cwd=repo.root).json()["channels"]
        return (channels["rev1"]["status"], channels["rev2"]["status"]) == (
            "completed", "running")

    wait_for(rev1_done_rev2_running, what="rev1 completed while rev2 runs")
    os.kill(pid, 9)
    wait_for(lambda: JobStore(jobs_dir()).is_worker_alive(job_id) is False, what="lock freed")

    status = run_mmr("status", job_id, cwd=repo.root)
    assert status.code == 2
    doc = status.json()
    assert doc["worker"] == "died"
    assert doc["channels"]["rev2"]["status"] == "failed"
    assert doc["channels"]["rev2"]["reason"] == "worker_died"
    assert doc["channels"]["rev1"]["status"] == "completed"

    results = run_mmr("results", job_id, cwd=repo.root)
    assert results.code == 2, results.err
    verdict = results.json()
    assert verdict["verdict"] == "blocked"
    assert [f["sources"] for f in verdict["reconciled_findings"]] == [["rev1"]]
    assert verdict["per_channel"]["rev2"]["status"] == "failed"
    assert verdict["per_channel"]["rev2"]["reason"] == "worker_died"
    assert verdict["per_channel"]["rev2"]["error"] == (
        "Channel failed: worker exited before this channel finished")


def test_sigterm_to_the_worker_marks_its_channels_interrupted(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    slow = fake_cli("rev1", stdout=CLEAN, sleep=60)
    write_user_config({"rev1": {"command": "rev1"}})
    summary = run_mmr("review", cwd=repo.root).json()
    job_id = summary["job_id"]
    slow.wait_for_call(timeout=30)
    wait_for(lambda: run_mmr("status", job_id, cwd=repo.root).json()["channels"]["rev1"]
             ["status"] == "running", what="rev1 running")
    os.kill(summary["worker_pid"], 15)
    status = wait_until_finished(run_mmr, job_id, repo.root)
    assert status.code == 2
    assert status.json()["channels"]["rev1"]["reason"] == "interrupted"


def test_two_reviews_at_once_in_one_repo_keep_separate_jobs(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=reply(finding()), sleep=1.5)
    fake_cli("rev2", stdout=CLEAN, sleep=1.5)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}},
                      defaults={"min_completed_channels": 1})
    first = run_mmr("review", "--channels", "rev1", cwd=repo.root).json()
    second = run_mmr("review", "--channels", "rev2", cwd=repo.root).json()
    assert first["job_id"] != second["job_id"]
    assert first["worker_pid"] != second["worker_pid"]
    for summary in (first, second):
        assert wait_until_finished(run_mmr, summary["job_id"], repo.root).code == 0
    wait_for(lambda: all(JobStore(jobs_dir()).is_worker_alive(s["job_id"]) is False
                         for s in (first, second)), what="both workers to exit")
    one = run_mmr("results", first["job_id"], cwd=repo.root)
    two = run_mmr("results", second["job_id"], cwd=repo.root)
    assert (one.code, list(one.json()["per_channel"])) == (2, ["rev1"])
    assert (two.code, list(two.json()["per_channel"])) == (0, ["rev2"])


def _json_files(root: Path) -> list[Path]:
    """The ``*.json`` files under ``root``. ``os.walk`` skips a directory that vanishes
    while it is listed: the job lock is one (``job.json.lock``), taken and released many
    times a second while the worker writes, and ``Path.rglob`` raises on it instead."""
    return [Path(top, name) for top, _, names in os.walk(root)
            for name in names if name.endswith(".json")]


def test_results_while_the_worker_writes_never_sees_a_mixed_state(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("rev1", stdout=reply(finding()), sleep=0.5)
    fake_cli("rev2", stdout=reply(finding()), sleep=1.0)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    job_id = run_mmr("review", cwd=repo.root).json()["job_id"]
    job_dir = jobs_dir() / job_id
    answers: list[int] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for path in _json_files(job_dir):  # every file a reader may open is whole
            json.loads(path.read_text())
        result = run_mmr("results", job_id, "--no-wait", cwd=repo.root)
        answers.append(result.code)
        if result.code == 6:  # channels still running, or the worker finishing the job
            assert result.out == ""
            assert result.err.startswith(("mmr: error: Channels still running: ",
                                          f"mmr: error: The review worker of job {job_id} "))
            assert result.err.endswith("Wait for completion or use `mmr status` to check "
                                       "progress.\n")
            continue
        assert result.code == 2, result.err
        assert result.json()["metadata"]["channels_completed"] == 2
        break
    assert answers[0] == 6 and answers[-1] == 2


def test_nothing_passing_the_gate_completes_the_job_in_the_worker(
        repo: GitRepo, run_mmr: RunMmr) -> None:
    write_user_config({"gone": {"command": "gone-tool"}})
    result = run_mmr("review", cwd=repo.root)
    assert result.code == 0
    job_id = result.json()["job_id"]
    # Issue 18 changed this from `dispatched`: the summary waits for the worker's gate.
    assert result.json()["channels"] == {"gone": "not_installed"}
    status = wait_until_finished(run_mmr, job_id, repo.root)
    assert status.json()["channels"]["gone"]["status"] == "not_installed"
    wait_for(lambda: JobStore(jobs_dir()).is_worker_alive(job_id) is False, what="worker exit")
    log = (jobs_dir() / job_id / "worker.log").read_text()
    assert "No channels passed auth check:\n  gone: not_installed" in log
    results = run_mmr("results", job_id, cwd=repo.root)
    assert (results.code, results.json()["verdict"]) == (3, "needs-user-decision")


def test_a_worker_that_cannot_start_leaves_a_job_reported_as_died(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}})
    monkeypatch.setattr("sys.executable", str(repo.root / "no-such-python"))
    result = run_mmr("review", cwd=repo.root)
    assert result.code == 1
    assert "mmr: error: Could not start the review worker for job mmr-" in result.err
    [job_id] = [path.name for path in jobs_dir().iterdir()]
    status = run_mmr("status", job_id, cwd=repo.root)
    assert (status.code, status.json()["worker"]) == (2, "died")


def test_closing_the_terminal_does_not_stop_the_review(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, workers: list[int]) -> None:
    import re
    import signal
    import subprocess
    import sys

    fake_cli("rev1", stdout=CLEAN, sleep=2)
    write_user_config({"rev1": {"command": "rev1"}}, defaults={"min_completed_channels": 1})
    helper = Path(__file__).with_name("close_terminal.py")
    done = subprocess.run(
        [sys.executable, str(helper), '"worker_pid"', sys.executable, "-m", "mmr", "review"],
        cwd=repo.root, capture_output=True, text=True, timeout=600, check=True)
    shell_status = int(done.stdout.rsplit("SHELL-STATUS ", 1)[1])
    # The hang-up reached the terminal's session: the shell that ran mmr died of SIGHUP.
    assert os.WIFSIGNALED(shell_status) and os.WTERMSIG(shell_status) == signal.SIGHUP
    job_id = re.search(r'"job_id": "(mmr-[0-9a-f]{12})"', done.stdout)
    pid = re.search(r'"worker_pid": (\d+)', done.stdout)
    assert job_id and pid, done.stdout
    workers.append(int(pid.group(1)))
    status = wait_until_finished(run_mmr, job_id.group(1), repo.root, timeout=600)
    assert status.code == 0
    assert status.json()["channels"]["rev1"]["status"] == "completed"
    wait_for(lambda: JobStore(jobs_dir()).is_worker_alive(job_id.group(1)) is False,
             what="worker exit")
    assert run_mmr("results", job_id.group(1), cwd=repo.root).code == 0


def test_results_wait_for_compensation_after_every_channel_settled(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    # rev1 fails at once; the compensator's auth check then takes 2 s. In that window every
    # channel is terminal, yet the job is not done: a compensating pass is coming.
    fake_cli("rev1", stdout="", exit_code=1)
    fake_cli("rev2", stdout=reply(finding()))
    fake_cli("comp", stdout=reply(finding()))
    write_user_config(
        {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"},
         "comp": {"command": "comp", "enabled": False,
                  "auth": {"check": "sleep 2", "failure_exit_codes": [1],
                           "recovery": "log in", "timeout": 20}}},
        defaults={"compensator": {"channel": "comp"}})
    job_id = run_mmr("review", cwd=repo.root).json()["job_id"]
    job_dir = jobs_dir() / job_id

    def settled_before_compensation() -> bool:
        job = JobStore(jobs_dir()).load(job_id)
        return (not job.running_channels and "compensating-rev1" not in job.channels
                and job.worker_state == "running")

    wait_for(settled_before_compensation, what="every channel settled, compensation pending")
    status = run_mmr("status", job_id, cwd=repo.root)
    early = run_mmr("results", job_id, "--no-wait", cwd=repo.root)
    assert (status.code, status.json()["worker"]) == (1, "running")
    assert (early.code, early.out) == (6, "")
    assert "is still running" in early.err
    assert early.err.endswith("Wait for completion or use `mmr status` to check progress.\n")
    assert not (job_dir / "results.json").exists()

    final = wait_until_finished(run_mmr, job_id, repo.root)
    assert final.json()["channels"]["compensating-rev1"]["status"] == "completed"
    done = run_mmr("results", job_id, cwd=repo.root)
    assert "compensating-rev1" in done.json()["per_channel"]


def test_a_script_reading_the_output_through_a_pipe_is_not_held_up(
        repo: GitRepo, fake_cli: FakeCliFactory, workers: list[int]) -> None:
    import subprocess
    import sys

    fake_cli("rev1", stdout=CLEAN, sleep=30)
    write_user_config({"rev1": {"command": "rev1"}})
    started = time.monotonic()
    # capture_output reads to EOF: a worker holding our stdout or stderr would block it.
    done = subprocess.run([sys.executable, "-m", "mmr", "review"], cwd=repo.root,
                          capture_output=True, text=True, timeout=60, check=False)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    workers.append(json.loads(done.stdout)["worker_pid"])
    assert took < 10, f"`mmr review` through a pipe took {took:.1f}s"
    assert json.loads(done.stdout)["status"] == "dispatched"


def test_a_reference_script_review_then_results_and_reconcile_just_works(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, tmp_path: Path) -> None:
    # The reference's guide: `review` (it blocks there), then results/reconcile on the id.
    # mmr's review returns at once; results and reconcile now wait for the job instead of
    # failing with "Channels still running".
    _two_reviewers(fake_cli, sleep=2.0)
    job_id = run_mmr("review", cwd=repo.root).json()["job_id"]
    findings = tmp_path / "findings.json"
    findings.write_text(json.dumps({"findings": [finding("src/app.py:3", "P2", "Agent note")]}))
    folded = run_mmr("reconcile", job_id, "--channel", "superpowers", "--input", str(findings),
                     cwd=repo.root)
    assert folded.code == 2, folded.err
    assert "superpowers" in folded.json()["per_channel"]
    again = run_mmr("results", job_id, cwd=repo.root)
    assert (again.code, again.json()["verdict"]) == (2, "blocked")


def test_a_wait_timeout_answers_still_running_with_exit_6(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, workers: list[int]) -> None:
    _two_reviewers(fake_cli, sleep=30.0)
    summary = run_mmr("review", cwd=repo.root).json()
    workers.append(summary["worker_pid"])
    result = run_mmr("results", summary["job_id"], "--wait-timeout", "0.5", cwd=repo.root)
    assert (result.code, result.out) == (6, "")
    assert result.err.endswith(STILL_RUNNING)


def test_results_of_a_job_whose_worker_was_killed_would_pass_exits_4(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    """Two clean reviews meet the floor, but the third never finished: not a pass (issue 16)."""
    fake_cli("rev1", stdout=CLEAN)
    fake_cli("rev3", stdout=CLEAN)
    fake_cli("rev2", stdout=CLEAN, sleep=60)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"},
                       "rev3": {"command": "rev3"}})
    summary = run_mmr("review", cwd=repo.root).json()
    job_id, pid = summary["job_id"], summary["worker_pid"]

    def others_done_rev2_running() -> bool:
        channels = run_mmr("status", job_id, cwd=repo.root).json()["channels"]
        return [channels[name]["status"] for name in ("rev1", "rev2", "rev3")] == [
            "completed", "running", "completed"]

    wait_for(others_done_rev2_running, what="rev1 and rev3 completed while rev2 runs")
    os.kill(pid, 9)
    wait_for(lambda: JobStore(jobs_dir()).is_worker_alive(job_id) is False, what="lock freed")

    results = run_mmr("results", job_id, cwd=repo.root)
    assert results.code == 4, results.err
    assert results.json()["verdict"] == "degraded-pass"
    assert (f"mmr: warning: job {job_id} was interrupted (rev2: "
            "worker exited before this channel finished") in results.err
