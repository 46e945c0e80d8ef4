"""Harness for the job lifecycle: fire-and-forget reviews, ``mmr results``, ``mmr reconcile``.

``run_mmr`` goes through the console entry point in-process (``tests/cli_runner.py``), so
parsing, the error boundary, exit codes and output writing are the real ones. A
fire-and-forget review started that way spawns its real detached worker, which inherits
the test's environment (``MMR_HOME``, the fakes first on ``PATH``). Workers still alive
when a test ends are killed, so a failing test leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import jobs_dir
from mmr.store.jobs import JobStore
from tests.cli_runner import CliResult as Result
from tests.cli_runner import RunCli, RunMmr
from tests.fakes.plugin import process_gone
from tests.integration.review.conftest import (
    BUILTIN_ENABLED,
    CLEAN,
    finding,
    reply,
    repo,
    write_user_config,
)

__all__ = ["BUILTIN_ENABLED", "CLEAN", "Result", "RunMmr", "comparable", "finding", "reply",
           "repo", "run_mmr", "store", "wait_for", "wait_until_finished", "workers",
           "write_user_config"]


@pytest.fixture
def run_mmr(run_cli: RunCli, workers: list[int]) -> RunMmr:
    """``mmr <args>`` in ``cwd`` (``stdin`` feeds ``--input -``); notes the worker it starts."""
    from mmr.cli.main import main

    def run(*args: str, cwd: Path, stdin: str | None = None) -> Result:
        result = run_cli(main, *args, cwd=cwd, stdin=stdin)
        if args[:1] == ("review",) and result.code == 0 and '"worker_pid"' in result.out:
            workers.append(result.json()["worker_pid"])
        return result

    return run


@pytest.fixture
def workers() -> Iterator[list[int]]:
    """Pids of the detached workers a test started; SIGKILLed at teardown if still alive."""
    started: list[int] = []
    yield started
    for pid in started:
        if not process_gone(pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def store() -> JobStore:
    return JobStore(jobs_dir())


def wait_for(predicate: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    """Poll ``predicate`` every 50 ms until it holds; fail the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")


def wait_until_finished(run_mmr: RunMmr, job_id: str, cwd: Path, timeout: float = 60) -> Result:
    """Poll ``mmr status`` until it stops exiting 1 (every channel terminal); its last result."""
    last: list[Result] = []

    def finished() -> bool:
        last[:] = [run_mmr("status", job_id, cwd=cwd)]
        return last[0].code != 1

    wait_for(finished, timeout, f"job {job_id} to finish")
    return last[0]


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A verdict document without what differs between two runs of the same review:
    the job id and the elapsed times."""
    doc = json.loads(json.dumps(document))
    doc.pop("job_id", None)
    doc.get("metadata", {}).pop("total_elapsed", None)
    for channel in doc.get("per_channel", {}).values():
        channel.pop("elapsed", None)
    return doc
