"""The store fails while channels run: the verdict of what completed is still printed (issue 16).

The disk "fills" the moment the first channel's terminal status is written: from then on
every write at the chokepoint (:func:`mmr.fs.write_temp`, where each store file's bytes go)
fails with the kernel's errno, while the other channel is still running. The review must
still print the verdict of both channels and exit with its code, warn once on one line that
the job could not be saved (naming the path and the fix), and leave no half-written file.
Without root this injection is the test; as root the same case runs on a real full tmpfs in
``test_store_faults.py``.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from mmr import fs
from mmr.config.paths import jobs_dir
from tests.fakes.plugin import FakeCliFactory
from tests.integration.faults.conftest import (
    CLEAN,
    NO_COMPENSATOR,
    NO_COMPENSATOR_DEFAULTS,
    RunMmr,
    job_ids,
    write_user_config,
)
from tests.integration.faults.test_misbehaving_channels import ADVISORY
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import finding

BLOCKER = finding(severity="P0", description="Deletes the user's data")


def _fail_after_first_terminal_status(monkeypatch: pytest.MonkeyPatch, code: int) -> list[Path]:
    """Patch the chokepoint: the first terminal status write and every write after it fail."""
    real = fs.write_temp
    refused: list[Path] = []

    def write_temp(target: Path, data: bytes, mode: int, *, durable: bool = True) -> Path:
        terminal = target.name.endswith(".status.json") and b'"completed_at"' in data
        if refused or terminal:
            refused.append(target)
            raise OSError(code, os.strerror(code))
        return real(target, data, mode, durable=durable)

    monkeypatch.setattr(fs, "write_temp", write_temp)
    return refused


def assert_consistent(job_dir: Path) -> None:
    """No temp file left behind, every JSON file of the job whole."""
    for path in job_dir.rglob("*"):
        assert not path.name.endswith(".tmp"), path
        if path.is_file() and path.suffix == ".json":
            json.loads(path.read_bytes())


def saved_warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "the job could not be saved" in line]


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT],
                         ids=["ENOSPC", "EROFS", "EACCES", "EDQUOT"])
def test_a_status_write_failing_mid_dispatch_keeps_the_verdict(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr,
        monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    fake_cli("quick", stdout={"approved": True, "findings": [ADVISORY], "summary": "one nit"})
    fake_cli("slow", stdout={"approved": False, "findings": [BLOCKER], "summary": "blocker"},
             sleep=1)
    write_user_config({"quick": {"command": "quick"}, "slow": {"command": "slow"},
                       **NO_COMPENSATOR}, defaults=NO_COMPENSATOR_DEFAULTS)
    with monkeypatch.context() as patch:
        refused = _fail_after_first_terminal_status(patch, code)
        result = run_mmr("review", "--sync", "--channels", "quick,slow", cwd=repo.root)

    assert refused, "the fault was never injected"
    assert "Traceback" not in result.err and "this is a bug" not in result.err
    doc: dict[str, Any] = json.loads(result.out)
    assert {name: c["status"] for name, c in doc["per_channel"].items()} == \
        {"quick": "completed", "slow": "completed"}
    assert doc["verdict"] == "blocked" and result.code == 2
    assert [f["description"] for f in doc["per_channel"]["quick"]["findings"]] == \
        [ADVISORY["description"]]
    assert [f["description"] for f in doc["per_channel"]["slow"]["findings"]] == \
        [BLOCKER["description"]]
    [warning] = saved_warnings(result.err)
    assert warning.startswith("mmr: warning: the job could not be saved: cannot write ")
    assert str(refused[0]) in warning and os.strerror(code) in warning
    assert "MMR_HOME" in warning
    [job_id] = job_ids()
    assert_consistent(jobs_dir() / job_id)


def test_the_unsaved_job_reads_back_as_a_dead_worker_never_a_pass(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Afterwards, with the store still refusing writes and once it takes them again."""
    fake_cli("quick", stdout={"approved": True, "findings": [ADVISORY], "summary": "one nit"})
    fake_cli("slow", stdout=CLEAN, sleep=1)
    write_user_config({"quick": {"command": "quick"}, "slow": {"command": "slow"},
                       **NO_COMPENSATOR}, defaults=NO_COMPENSATOR_DEFAULTS)
    with monkeypatch.context() as patch:
        _fail_after_first_terminal_status(patch, errno.ENOSPC)
        review = run_mmr("review", "--sync", "--channels", "quick,slow", cwd=repo.root)
        assert review.code == 0 and json.loads(review.out)["verdict"] == "pass"
        [job_id] = job_ids()
        still_full = [run_mmr(*command, cwd=repo.root)
                      for command in (["status", job_id], ["results", job_id])]
    assert_consistent(jobs_dir() / job_id)
    # What reached the disk is a whole, older state: the channels never saved as settled
    # read as a dispatcher that died, never as a pass — and the readers' own sweep of that
    # state is held in memory while the store refuses it, one warning, no error.
    for status, results in (still_full, [run_mmr("status", job_id, cwd=repo.root),
                                         run_mmr("results", job_id, cwd=repo.root)]):
        assert "Traceback" not in status.err + results.err
        assert "mmr: error" not in status.err + results.err
        assert status.code == 2
        assert {c["reason"] for c in json.loads(status.out)["channels"].values()} == \
            {"worker_died"}
        assert results.code == 3 and json.loads(results.out)["verdict"] == "needs-user-decision"
    assert len(saved_warnings(still_full[0].err)) == 1


def test_a_refused_prompt_file_fails_that_channel_in_one_line(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A prompt file the disk refuses was a StoreWriteError out of the attempt: a logged
    traceback on stderr and "mmr could not run this channel" as its reason."""
    fake_cli("filed", stdout={"approved": True, "findings": [], "summary": "clean"})
    fake_cli("piped", stdout={"approved": False, "findings": [BLOCKER], "summary": "blocker"})
    write_user_config({"filed": {"command": "filed", "prompt_delivery": "prompt-file"},
                       "piped": {"command": "piped"}, **NO_COMPENSATOR},
                      defaults={**NO_COMPENSATOR_DEFAULTS, "min_completed_channels": 1})
    real = fs.write_temp

    def write_temp(target: Path, data: bytes, mode: int, *, durable: bool = True) -> Path:
        if target.name.endswith(".prompt.txt"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(target, data, mode, durable=durable)

    monkeypatch.setattr(fs, "write_temp", write_temp)
    result = run_mmr("review", "--sync", "--channels", "filed,piped", cwd=repo.root)

    assert "Traceback" not in result.err and "could not run this channel" not in result.err
    doc: dict[str, Any] = json.loads(result.out)
    filed = doc["per_channel"]["filed"]
    assert filed["status"] == "failed"
    assert "cannot write" in filed["error"] and os.strerror(errno.ENOSPC) in filed["error"]
    assert doc["per_channel"]["piped"]["status"] == "completed"
    assert doc["verdict"] == "blocked" and result.code == 2
