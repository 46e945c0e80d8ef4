"""The installed ``mmr`` console script reviewing a real repository with fake channels."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from mmr.config.paths import jobs_dir, user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.fakes.plugin import FakeCliFactory, wait_until_gone
from tests.integration.git_repo_builder import GitRepo

LINES = 300


def mmr_command() -> list[str]:
    found = shutil.which("mmr")
    return [found] if found else [sys.executable, "-m", "mmr"]


def test_sync_review_through_a_pipe(tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"big.py": "".join(f"v{i} = {i}\n"
                                                                for i in range(LINES))})
    repo.write({"big.py": "".join(f"v{i} = {i + 1}\n" for i in range(LINES))})
    findings = [{"severity": "P3", "location": f"big.py:{i + 1}",
                 "description": f"Constant v{i} changed without a note " + "x" * 150,
                 "suggestion": "Explain the change"} for i in range(LINES)]
    first = fake_cli("rev1", stdout={"approved": True, "findings": findings, "summary": "ok"})
    fake_cli("rev2", stdout={"approved": True, "findings": [], "summary": "ok"})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({
        "channels": {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}},
        "channels_disabled": ENABLED_BUILTINS,
    }))
    done = subprocess.run([*mmr_command(), "review", "--sync"], cwd=repo.root,
                          capture_output=True, env=dict(os.environ), timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert len(done.stdout) > 64 * 1024  # complete through the pipe, not cut at 64 KiB
    doc = json.loads(done.stdout)
    assert (doc["verdict"], doc["advisory_count"]) == ("pass", LINES)
    assert len(doc["reconciled_findings"]) == LINES
    assert "## Diff" in first.last_call()["stdin"]
    assert b"[mmr] rev1: completed" in done.stderr  # plain progress off a terminal


def test_usage_error_exits_1_not_2(tmp_path: Path) -> None:
    done = subprocess.run([*mmr_command(), "review", "--round", "0"], cwd=tmp_path,
                          capture_output=True, env=dict(os.environ), timeout=60, check=False)
    assert done.returncode == 1
    assert b"round must be >= 1" in done.stderr
    assert done.stdout == b""


def test_sigint_during_a_sync_dispatch_exits_130(tmp_path: Path,
                                                 fake_cli: FakeCliFactory) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x\n"})
    repo.write({"a.py": "y\n"})
    slow = fake_cli("slow", stdout={"approved": True, "findings": [], "summary": "ok"}, sleep=60)
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"channels": {"slow": {"command": "slow"}},
                                    "channels_disabled": ENABLED_BUILTINS}))
    process = subprocess.Popen([*mmr_command(), "review", "--sync"], cwd=repo.root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=dict(os.environ))
    try:
        call = slow.wait_for_call(timeout=30)
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err.decode()
    assert time.monotonic() - started < 20
    [job_id] = [p.name for p in jobs_dir().iterdir()]
    status = json.loads((jobs_dir() / job_id / "channels" / "slow.status.json").read_text())
    assert (status["status"], status["reason"]) == ("failed", "interrupted")
    assert wait_until_gone(call["pid"], timeout=10)
