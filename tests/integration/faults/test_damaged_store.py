"""`status`, `results` and `jobs list` on a damaged job store: one line, no traceback (issue 16).

A finished review's files are damaged the ways a disk, a crash or a hand can damage them:
``job.json`` cut short or garbage, a directory where a file should be, a file that cannot
be opened (``EACCES``, injected into the store's read: as root no permission bit stops a
read). Each command must answer with a documented exit code and at most one line per
problem, naming the path — never a traceback or "this is a bug".
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mmr import fs
from mmr.config.paths import jobs_dir
from tests.fakes.plugin import FakeCliFactory
from tests.integration.faults.conftest import CLEAN, RunMmr, job_ids, write_user_config
from tests.integration.faults.test_misbehaving_channels import ADVISORY
from tests.integration.git_repo_builder import GitRepo


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:40])


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00garbage{{")


def _directory(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
    path.mkdir()
    (path / "inside").write_text("x")


NOT_FOUND = {"status": 5, "results": 5}
#: (file, damage, exit codes of status / results, what results' stderr must say)
CASES: dict[str, tuple[str, Callable[[Path], None], dict[str, int], str | None]] = {
    "job.json-truncated": ("job.json", _truncate, NOT_FOUND, "mmr: error: Job not found: "),
    "job.json-garbage": ("job.json", _garbage, NOT_FOUND, "mmr: error: Job not found: "),
    "job.json-a-directory": ("job.json", _directory, NOT_FOUND, "mmr: error: Job not found: "),
    "status-file-a-directory": ("channels/nit.status.json", _directory,
                                {"status": 2, "results": 3},
                                "mmr: warning: cannot read {path}: Is a directory; channel nit "
                                "counts as failed. Remove that file"),
    "status-file-garbage": ("channels/nit.status.json", _garbage,
                            {"status": 2, "results": 3},
                            "mmr: warning: cannot read {path}: Expecting value"),
    "reply-a-directory": ("channels/nit.json", _directory, {"status": 0, "results": 1},
                          "mmr: error: cannot read {path}: Is a directory."),
    "diff-a-directory": ("diff.patch", _directory, {"status": 0, "results": 1},
                         "mmr: error: cannot read {path}: Is a directory."),
    "results-a-directory": ("results.json", _directory, {"status": 0, "results": 0},
                            "mmr: warning: the job could not be saved: cannot write {path}: "
                            "Is a directory. Remove the directory in its place"),
}


def _finished_job(repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> Path:
    fake_cli("clean", stdout=CLEAN)
    fake_cli("nit", stdout={"approved": True, "findings": [ADVISORY], "summary": "one nit"})
    write_user_config({"clean": {"command": "clean"}, "nit": {"command": "nit"}})
    review = run_mmr("review", "--sync", cwd=repo.root)
    assert review.code == 0, review.err
    [job_id] = job_ids()
    return jobs_dir() / job_id


def _answers(run_mmr: RunMmr, repo: GitRepo, job_id: str) -> dict[str, Any]:
    done = {}
    for command in (["status", job_id], ["results", job_id], ["jobs", "list"]):
        result = run_mmr(*command, cwd=repo.root)
        assert "Traceback" not in result.err and "this is a bug" not in result.err, command
        errors = [line for line in result.err.splitlines() if line.startswith("mmr: error:")]
        assert len(errors) <= 1 and (result.code == 0 or result.out or errors), command
        done[command[0]] = result
    return done


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_job_is_one_line_never_a_traceback(
        case: str, repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    name, damage, codes, said = CASES[case]
    job = _finished_job(repo, fake_cli, run_mmr)
    damage(job / name)
    done = _answers(run_mmr, repo, job.name)
    assert {command: done[command].code for command in codes} == codes
    assert done["jobs"].code == 0
    if said is not None:
        # The first command to meet the damage says so, once (``results`` reads the job
        # twice); in one process, as here, the later commands do not repeat a warning.
        first = "status" if said.startswith("mmr: warning: cannot read") else "results"
        expected = said.format(path=job / name)
        said_lines = [line for line in done[first].err.splitlines()
                      if line.startswith(expected)]
        assert len(said_lines) == 1, done[first].err
    if codes["results"] in (0, 3):
        assert json.loads(done["results"].out)["job_id"] == job.name


@pytest.mark.parametrize("name", ["job.json", "channels/nit.json", "channels/nit.log",
                                  "diff.patch"])
def test_a_file_that_cannot_be_opened_is_one_line(
        name: str, repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr,
        monkeypatch: pytest.MonkeyPatch) -> None:
    job = _finished_job(repo, fake_cli, run_mmr)
    refused = job / name
    real_open = os.open

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path) == refused:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(fs.os, "open", open_)
    done = _answers(run_mmr, repo, job.name)
    assert done["results"].code == 1 and done["results"].out == ""
    assert done["results"].err.strip() == (
        f"mmr: error: cannot read {refused}: Permission denied. Make it readable by this "
        "user (check its owner and mode) and retry")
    if name == "job.json":  # was "Job not found" (exit 5), and `jobs list` dropped it unsaid
        assert done["status"].code == 1
        assert done["jobs"].code == 0
        assert f"mmr: warning: cannot read {refused}: Permission denied" in done["jobs"].err
