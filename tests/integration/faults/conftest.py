"""Harness for the fault and secret end-to-end tests: ``mmr review --sync`` against fakes.

The in-process runner is ``run_mmr`` (``tests/cli_runner.py``) and the repository fixture
is the review suite's own (re-exported here); :class:`MmrProcess` runs ``python -m mmr`` as
a real child instead, for the tests that need a separate process: its peak memory, or a
signal sent to it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import jobs_dir
from tests.fakes.plugin import FakeCli
from tests.integration.review.conftest import (
    BUILTIN_ENABLED,
    CLEAN,
    Result,
    RunMmr,
    job_ids,
    repo,
    write_user_config,
)

__all__ = ["BUILTIN_ENABLED", "CLEAN", "MmrProcess", "Result", "RunMmr", "channel_files",
           "job_ids", "load_job", "repo", "spawn_mmr", "write_user_config"]

#: A compensator that is never installed, so failed channels are not re-run by `claude`.
NO_COMPENSATOR = {"comp": {"command": "no-such-compensator"}}
NO_COMPENSATOR_DEFAULTS = {"compensator": {"channel": "comp"}}


@dataclass
class MmrProcess:
    """``python -m mmr <args>`` running as a child of the test."""

    popen: subprocess.Popen[str]

    def wait(self, timeout: float = 60) -> Result:
        out, err = self.popen.communicate(timeout=timeout)
        return Result(self.popen.returncode, out, err)

    def send(self, sig: signal.Signals) -> float:
        """Send ``sig``; return the monotonic time it was sent."""
        sent = time.monotonic()
        self.popen.send_signal(sig)
        return sent


def spawn_mmr(*args: str, cwd: Path, env: Mapping[str, str] | None = None) -> MmrProcess:
    """Start mmr with the test's environment (plus ``env``); stdout/stderr are piped."""
    child_env = {**os.environ, **(env or {})}
    popen = subprocess.Popen(
        [sys.executable, "-m", "mmr", *args], cwd=cwd, env=child_env, text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    return MmrProcess(popen)


@pytest.fixture
def mmr_processes() -> Iterator[list[MmrProcess]]:
    """Children a test started; any still running at teardown is killed (never leaked)."""
    started: list[MmrProcess] = []
    yield started
    for proc in started:
        if proc.popen.poll() is None:
            proc.popen.kill()
            proc.popen.communicate()


def wait_for_calls(*fakes: FakeCli, timeout: float = 20) -> list[dict[str, Any]]:
    """Each fake's first recorded invocation (the fake records once it has read its stdin)."""
    return [fake.wait_for_call(timeout) for fake in fakes]


def the_job() -> Path:
    """The one job directory the run created."""
    [job_id] = job_ids()
    return jobs_dir() / job_id


def load_job() -> dict[str, Any]:
    """``job.json`` with each channel's status file merged over its entry."""
    root = the_job()
    job: dict[str, Any] = json.loads((root / "job.json").read_text())
    for name in list(job["channels"]):
        status = root / "channels" / f"{name}.status.json"
        if status.exists():
            job["channels"][name] = {**job["channels"][name], **json.loads(status.read_text())}
    return job


def channel_files(root: Path | None = None) -> dict[str, int]:
    """Every file under the job directory, by relative path, with its size."""
    base = root or the_job()
    return {str(p.relative_to(base)): p.stat().st_size for p in sorted(base.rglob("*"))
            if p.is_file()}
