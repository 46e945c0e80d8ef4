"""A full disk or a read-only job store never costs the verdict (issue 16).

As root (CI and the dev machine) ``MMR_HOME`` is a small tmpfs: filled, remounted
read-only, or left with 20 MB while a channel prints 300 MB. Otherwise the cases are
skipped here and the fault is injected at the write chokepoint in
``tests/unit/test_fs_write_faults.py``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import jobs_dir
from tests.fakes.plugin import FakeCliFactory
from tests.integration.faults.conftest import (
    CLEAN,
    NO_COMPENSATOR,
    NO_COMPENSATOR_DEFAULTS,
    MmrProcess,
    RunMmr,
    job_ids,
    spawn_mmr,
    write_user_config,
)
from tests.integration.faults.test_misbehaving_channels import ADVISORY
from tests.integration.faults.test_store_fills_midrun import (
    BLOCKER,
    assert_consistent,
    saved_warnings,
)
from tests.integration.git_repo_builder import GitRepo

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


@contextlib.contextmanager
def _tmpfs(path: Path, size: str) -> Iterator[Path]:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
                   check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


@pytest.fixture
def small_home(tmp_path: Path, request: pytest.FixtureRequest,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    size = getattr(request, "param", "20m")
    with _tmpfs(tmp_path / "mmr-home", size) as home:
        monkeypatch.setenv("MMR_HOME", str(home))
        yield home


def _fill(home: Path) -> None:
    fd = os.open(home / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
    finally:
        os.close(fd)


def _no_traceback(err: str) -> None:
    assert "Traceback" not in err
    assert "this is a bug" not in err


def _review_with_a_300mb_flood(repo: GitRepo, fake_cli: FakeCliFactory,
                               run_mmr: RunMmr) -> tuple[Any, dict[str, Any]]:
    """Two good channels and one printing 300 MB: the verdict of the two must survive."""
    fake_cli("ok1", stdout=CLEAN)
    fake_cli("ok2", stdout={"approved": True, "findings": [ADVISORY], "summary": "one nit"})
    # The flood starts once both good channels' final statuses are on disk: the store
    # fills after they were saved, whatever the machine's load (it raced them before).
    bad = _script(repo.root.parent / "flooder", _FLOOD_AFTER_OK, reply=CLEAN,
                  size=300 * 1000 * 1000)
    write_user_config({"ok1": {"command": "ok1"}, "ok2": {"command": "ok2"},
                       "bad": {"command": bad, "timeout": 120}, **NO_COMPENSATOR},
                      defaults=NO_COMPENSATOR_DEFAULTS)
    result = run_mmr("review", "--sync", "--channels", "ok1,ok2,bad", cwd=repo.root)
    _no_traceback(result.err)
    doc = json.loads(result.out)
    assert result.code == 0 and doc["verdict"] == "degraded-pass"
    return result, doc


def test_a_channel_flooding_a_20mb_store_keeps_the_verdict(
        small_home: Path, repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    _, doc = _review_with_a_300mb_flood(repo, fake_cli, run_mmr)
    assert doc["per_channel"]["bad"]["status"] == "failed"
    assert doc["per_channel"]["ok2"]["status"] == "completed"


@pytest.mark.parametrize("small_home", ["200k"], indirect=True)
def test_a_full_store_is_the_documented_one_line_error(
        small_home: Path, repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("ok1", stdout=CLEAN)
    fake_cli("ok2", stdout=CLEAN)
    write_user_config({"ok1": {"command": "ok1"}, "ok2": {"command": "ok2"}})
    _fill(small_home)
    result = run_mmr("review", "--sync", cwd=repo.root)
    _no_traceback(result.err)
    assert result.code == 1 and result.out == ""
    [error] = [line for line in result.err.splitlines() if line.startswith("mmr: error:")]
    assert os.strerror(errno.ENOSPC) in error
    assert "MMR_HOME" in error


def test_a_read_only_store_still_answers_results_status_and_jobs(
        small_home: Path, repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    fake_cli("ok1", stdout=CLEAN)
    fake_cli("ok2", stdout={"approved": True, "findings": [ADVISORY], "summary": "one nit"})
    write_user_config({"ok1": {"command": "ok1"}, "ok2": {"command": "ok2"}})
    first = run_mmr("review", "--sync", cwd=repo.root)
    assert first.code == 0, first.err
    [job_id] = job_ids()
    write_user_config({"ok1": {"command": "ok1"}, "ok2": {"command": "ok2"}},
                      defaults={"job_retention_days": 0})  # every job is due for `prune`
    subprocess.run(["mount", "-o", "remount,ro", str(small_home)], check=True)

    results = run_mmr("results", job_id, cwd=repo.root)
    _no_traceback(results.err)
    assert results.code == 0
    assert json.loads(results.out)["verdict"] == json.loads(first.out)["verdict"]
    assert any("the job could not be saved" in line and os.strerror(errno.EROFS) in line
               for line in results.err.splitlines())
    for command in (["status", job_id], ["jobs", "list"]):
        done = run_mmr(*command, cwd=repo.root)
        _no_traceback(done.err)
        assert done.code == 0 or len(done.err.strip().splitlines()) == 1, (command, done.err)
    # Injecting a channel must write: the one-line store error, exit 1, nothing on stdout.
    injected = run_mmr("reconcile", job_id, "--channel", "extra", "--input", '{"findings": []}',
                       cwd=repo.root)
    _no_traceback(injected.err)
    assert injected.code == 1 and injected.out == ""
    assert injected.err.startswith("mmr: error: cannot write ")
    assert os.strerror(errno.EROFS) in injected.err and len(injected.err.splitlines()) == 1
    pruned = run_mmr("jobs", "prune", cwd=repo.root)
    _no_traceback(pruned.err)
    assert pruned.code == 1
    assert pruned.err.strip() == (
        f"mmr: error: cannot write {jobs_dir() / job_id}: {os.strerror(errno.EROFS)}. Make it "
        "writable or point MMR_HOME at a writable directory (default ~/.mmr)")


_FILLER = """\
import contextlib, json, os, sys
sys.stdin.read()
fd = os.open({filler!r}, os.O_WRONLY | os.O_CREAT, 0o600)
with contextlib.suppress(OSError):
    while True:
        os.write(fd, b"\\0" * 65536)
os.close(fd)
open({marker!r}, "w").close()
print(json.dumps({reply!r}))
"""

_AFTER_FILLER = """\
import json, os, sys, time
sys.stdin.read()
while not os.path.exists({marker!r}):
    time.sleep(0.02)
print(json.dumps({reply!r}))
"""


_FLOOD_AFTER_OK = """\
import glob, json, os, sys, time
sys.stdin.read()
pattern = os.path.join(os.environ["MMR_HOME"], "jobs", "*", "channels", "ok[12].status.json")
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    done = [p for p in glob.glob(pattern) if '"completed_at"' in open(p).read()]
    if len(done) == 2:
        break
    time.sleep(0.02)
sys.stdout.write(json.dumps({reply!r}) + "\\n")
sys.stdout.flush()
chunk = b"x" * 65536
with open(1, "wb", closefd=False) as out:
    for _ in range({size} // len(chunk)):
        out.write(chunk)
"""


def _script(path: Path, body: str, **values: object) -> str:
    path.write_text(f"#!{sys.executable}\n" + body.format(**values))
    path.chmod(0o755)
    return str(path)


def test_the_store_filling_while_channels_run_keeps_their_verdict(
        small_home: Path, tmp_path: Path, repo: GitRepo, run_mmr: RunMmr) -> None:
    """One channel fills the 20 MB store, the other replies only once it is full."""
    marker = str(tmp_path / "store-is-full")
    nit = {"approved": True, "findings": [ADVISORY], "summary": "one nit"}
    filler = _script(tmp_path / "filler", _FILLER, filler=str(small_home / "filler"),
                     marker=marker, reply=nit)
    late = _script(tmp_path / "late", _AFTER_FILLER, marker=marker,
                   reply={"approved": False, "findings": [BLOCKER], "summary": "blocker"})
    write_user_config({"filler": {"command": filler}, "late": {"command": late},
                       **NO_COMPENSATOR}, defaults=NO_COMPENSATOR_DEFAULTS)

    result = run_mmr("review", "--sync", "--channels", "filler,late", cwd=repo.root)
    _no_traceback(result.err)
    doc = json.loads(result.out)
    assert {name: c["status"] for name, c in doc["per_channel"].items()} == \
        {"filler": "completed", "late": "completed"}
    assert doc["verdict"] == "blocked" and result.code == 2
    [warning] = saved_warnings(result.err)
    assert os.strerror(errno.ENOSPC) in warning and "MMR_HOME" in warning
    [job_id] = job_ids()
    assert_consistent(jobs_dir() / job_id)
    _read_back(run_mmr, repo, job_id, results_code=3)  # nothing settled reached the disk
    (small_home / "filler").unlink()
    _read_back(run_mmr, repo, job_id, results_code=3)


def _read_back(run_mmr: RunMmr, repo: GitRepo, job_id: str, *, results_code: int) -> None:
    """``status``, ``results``, ``jobs list`` of a job whose last writes were refused: the
    unsaved channels read as ``worker_died``, never an error or a traceback."""
    status = run_mmr("status", job_id, cwd=repo.root)
    results = run_mmr("results", job_id, cwd=repo.root)
    listed = run_mmr("jobs", "list", cwd=repo.root)
    for done in (status, results, listed):
        _no_traceback(done.err)
        assert "mmr: error" not in done.err
        assert len(saved_warnings(done.err)) <= 1
    assert status.code == 2 and "worker_died" in status.out
    assert results.code == results_code, results.err
    assert listed.code == 0 and job_id in listed.out


@pytest.mark.parametrize("small_home", ["10m"], indirect=True)
def test_a_flood_filling_the_store_keeps_the_verdict_and_says_the_spool_is_short(
        small_home: Path, repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    """10 MB is less than the 16 MiB spool: the flood itself fills the store."""
    result, doc = _review_with_a_300mb_flood(repo, fake_cli, run_mmr)
    assert [doc["per_channel"][n]["status"] for n in ("ok1", "ok2", "bad")] == \
        ["completed", "completed", "failed"]
    assert f"cannot write stdout to {small_home}" in doc["per_channel"]["bad"]["error"]
    assert os.strerror(errno.ENOSPC) in doc["per_channel"]["bad"]["error"]
    [warning] = saved_warnings(result.err)
    assert os.strerror(errno.ENOSPC) in warning
    [job_id] = job_ids()
    assert_consistent(jobs_dir() / job_id)
    # ok1 and ok2 were saved before the flood filled the store; bad's failure was not: on
    # disk its worker died, and a verdict that would pass is the interrupted-job exit 4.
    _read_back(run_mmr, repo, job_id, results_code=4)


def test_an_interrupt_on_a_full_store_still_says_the_job_was_not_saved(
        small_home: Path, tmp_path: Path, repo: GitRepo, fake_cli: FakeCliFactory,
        mmr_processes: list[MmrProcess]) -> None:
    marker = tmp_path / "store-is-full"
    filler = _script(tmp_path / "filler", _FILLER, filler=str(small_home / "filler"),
                     marker=str(marker), reply=CLEAN)
    fake_cli("slow", stdout=CLEAN, sleep=60)
    write_user_config({"filler": {"command": filler}, "slow": {"command": "slow"},
                       **NO_COMPENSATOR}, defaults=NO_COMPENSATOR_DEFAULTS)
    mmr = spawn_mmr("review", "--sync", "--channels", "filler,slow", cwd=repo.root)
    mmr_processes.append(mmr)
    while not marker.exists() and mmr.popen.poll() is None:
        time.sleep(0.02)
    mmr.send(signal.SIGINT)
    result = mmr.wait(timeout=30)
    _no_traceback(result.err)
    assert result.code == 130 and result.out == ""
    [warning] = saved_warnings(result.err)  # the interrupt's own marks were refused too
    assert os.strerror(errno.ENOSPC) in warning
    [job_id] = job_ids()
    assert_consistent(jobs_dir() / job_id)
