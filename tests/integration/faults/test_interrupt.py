"""Ctrl-C (and SIGTERM) during ``mmr review --sync``.

mmr runs as a real child process; the test waits until every fake channel has started
(each records its invocation once it has read its prompt), then signals mmr. Expected:
exit 130 (SIGINT) or 143 (SIGTERM); no channel process and no grandchild left alive, even
one that ignores SIGTERM; every channel that was in flight recorded as ``failed`` with
reason ``interrupted`` and the log ``interrupted by SIG<NAME>``; a channel that had already
finished keeps its result.
"""

from __future__ import annotations

import json
import signal
import time

import pytest

from mmr.config.paths import jobs_dir
from tests.fakes.plugin import FakeCliFactory, group_members, wait_until_gone
from tests.integration.faults.conftest import (
    CLEAN,
    MmrProcess,
    job_ids,
    load_job,
    spawn_mmr,
    wait_for_calls,
    write_user_config,
)
from tests.integration.git_repo_builder import GitRepo

#: mmr's kill grace for a child that ignores SIGTERM plus start-up slack.
EXIT_BUDGET_S = 6.0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_kills_every_channel_and_marks_the_job(
        repo: GitRepo, fake_cli: FakeCliFactory, mmr_processes: list[MmrProcess],
        sig: signal.Signals) -> None:
    quick = fake_cli("quick", stdout=CLEAN)
    forking = fake_cli("forking", stdout=CLEAN, sleep=60, spawn_grandchild=True,
                       grandchild_sleep=60)
    stubborn = fake_cli("stubborn", stdout=CLEAN, sleep=60, ignore_sigterm=True)
    write_user_config({"quick": {"command": "quick"}, "forking": {"command": "forking"},
                       "stubborn": {"command": "stubborn"}})
    mmr = spawn_mmr("review", "--sync", cwd=repo.root)
    mmr_processes.append(mmr)
    calls = wait_for_calls(quick, forking, stubborn)
    [job_id] = job_ids()
    _wait_for_status(job_id, "quick", "completed")

    sent = mmr.send(sig)
    result = mmr.wait(timeout=30)
    seconds = time.monotonic() - sent

    assert result.code == 128 + int(sig), result.err
    print(f"\n{sig.name} to exit: {seconds:.2f}s")
    assert seconds < EXIT_BUDGET_S
    for call in calls:
        assert wait_until_gone(call["pid"], timeout=1)
        assert group_members(call["pgid"]) == []
    assert wait_until_gone(calls[1]["grandchild_pid"], timeout=1)
    assert not forking.marker.exists()

    channels = load_job()["channels"]
    assert channels["quick"]["status"] == "completed"  # finished before the signal: kept
    for name in ("forking", "stubborn"):
        assert (channels[name]["status"], channels[name]["reason"]) == ("failed", "interrupted")
        assert channels[name]["completed_at"]
        log = (jobs_dir() / job_id / "channels" / f"{name}.log").read_text()
        assert log == f"interrupted by {sig.name}"
    assert result.out == ""  # no verdict printed for a review that did not finish


def test_interrupted_job_reports_honestly_afterwards(
        repo: GitRepo, fake_cli: FakeCliFactory, mmr_processes: list[MmrProcess]) -> None:
    """``mmr status`` and ``mmr results`` on the interrupted job: failed, never a pass."""
    slow = fake_cli("slow", stdout=CLEAN, sleep=60)
    quick = fake_cli("quick", stdout=CLEAN)
    write_user_config({"quick": {"command": "quick"}, "slow": {"command": "slow"}})
    mmr = spawn_mmr("review", "--sync", cwd=repo.root)
    mmr_processes.append(mmr)
    wait_for_calls(quick, slow)
    [job_id] = job_ids()
    _wait_for_status(job_id, "quick", "completed")
    mmr.send(signal.SIGINT)
    assert mmr.wait(timeout=30).code == 130

    status = spawn_mmr("status", job_id, cwd=repo.root).wait()
    doc = json.loads(status.out)
    assert doc["status"] == "completed"  # every channel is terminal
    assert doc["channels"]["slow"]["status"] == "failed"
    results = spawn_mmr("results", job_id, cwd=repo.root).wait()
    verdict = json.loads(results.out)
    assert verdict["per_channel"]["slow"]["status"] == "failed"
    assert "interrupted by SIGINT" in verdict["per_channel"]["slow"]["error"]
    assert verdict["verdict"] != "pass" and results.code != 0


def _wait_for_status(job_id: str, channel: str, status: str, timeout: float = 20) -> None:
    path = jobs_dir() / job_id / "channels" / f"{channel}.status.json"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if json.loads(path.read_text()).get("status") == status:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    raise AssertionError(f"{channel} did not reach {status}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_during_the_auth_preflight_kills_the_check(
        repo: GitRepo, fake_cli: FakeCliFactory, mmr_processes: list[MmrProcess],
        sig: signal.Signals) -> None:
    """Ctrl-C while an ``auth.check`` runs (before any job exists): 130, the check's whole
    process group gone, nothing dispatched, no job left behind."""
    checker = fake_cli("slow-login", stdout="ok", sleep=60, spawn_grandchild=True)
    rev = fake_cli("rev", stdout=CLEAN)
    write_user_config({"rev": {"command": "rev", "auth": {
        "check": "slow-login", "timeout": 120, "failure_exit_codes": [1],
        "recovery": "rev login"}}})
    mmr = spawn_mmr("review", "--sync", cwd=repo.root)
    mmr_processes.append(mmr)
    [call] = wait_for_calls(checker)
    sent = mmr.send(sig)
    result = mmr.wait(timeout=30)
    assert result.code == 128 + int(sig), result.err
    assert time.monotonic() - sent < EXIT_BUDGET_S
    assert wait_until_gone(call["pid"], timeout=1)
    assert wait_until_gone(call["grandchild_pid"], timeout=1)
    assert rev.calls() == []
    assert job_ids() == []
    assert "Traceback" not in result.err


def test_results_of_an_interrupted_job_that_would_pass_exits_4_with_the_reason(
        repo: GitRepo, fake_cli: FakeCliFactory, mmr_processes: list[MmrProcess]) -> None:
    """Issue 16: two channels finished (degraded-pass, exit 0 before), one was interrupted."""
    slow = fake_cli("slow", stdout=CLEAN, sleep=60)
    quick = fake_cli("quick", stdout=CLEAN)
    quick2 = fake_cli("quick2", stdout=CLEAN)
    write_user_config({"quick": {"command": "quick"}, "quick2": {"command": "quick2"},
                       "slow": {"command": "slow"}})
    mmr = spawn_mmr("review", "--sync", cwd=repo.root)
    mmr_processes.append(mmr)
    wait_for_calls(quick, quick2, slow)
    [job_id] = job_ids()
    _wait_for_status(job_id, "quick", "completed")
    _wait_for_status(job_id, "quick2", "completed")
    mmr.send(signal.SIGINT)
    assert mmr.wait(timeout=30).code == 130

    results = spawn_mmr("results", job_id, cwd=repo.root).wait()
    assert json.loads(results.out)["verdict"] == "degraded-pass"
    assert results.code == 4
    assert (f"mmr: warning: job {job_id} was interrupted (slow: interrupted by SIGINT)"
            in results.err)
