"""Issue 15 item 5 / issue 16: no descendant of a channel outlives it.

The three escape patterns are fake channel CLIs whose grandchild leaves the process group
(``setpgid``), leaves the session (``setsid``), or keeps stdout open after its parent
exited; each runs through the real ``mmr review``, and the grandchild must be gone when
the channel is over: ended, timed out, interrupted, or its worker ``kill -9``-ed.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from contextlib import suppress
from typing import Any

import pytest

from tests.fakes.plugin import FakeCliFactory, process_gone, wait_until_gone
from tests.integration.faults.conftest import (
    CLEAN,
    MmrProcess,
    RunMmr,
    load_job,
    spawn_mmr,
    wait_for_calls,
    write_user_config,
)
from tests.integration.git_repo_builder import GitRepo

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the subreaper and /proc are Linux's")


@pytest.mark.parametrize("case", [
    ("setpgid", "stdin", "completed"),   # leaves the group, lets the channel settle
    ("setsid", "stdin", "completed"),    # leaves the session
    (None, "stdin", "completed"),        # stays in the group, outlives its parent
    ("setsid", "all", "timeout"),        # leaves the session holding stdout open
])
def test_no_grandchild_outlives_its_channel(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr,
        case: tuple[str | None, str, str]) -> None:
    escape, holds, status = case
    good = fake_cli("good", stdout=CLEAN)
    sneaky = fake_cli("sneaky", stdout=CLEAN, spawn_grandchild=True, grandchild_sleep=60,
                      grandchild_holds=holds, grandchild_escape=escape)
    write_user_config({"good": {"command": str(good.path)},
                       "sneaky": {"command": str(sneaky.path), "timeout": 2}},
                      {"min_completed_channels": 1})
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert result.code == 0, result.err
    call = sneaky.last_call()
    assert call["grandchild_pid"]
    assert load_job()["channels"]["sneaky"]["status"] == status
    assert wait_until_gone(call["grandchild_pid"], timeout=5)


def wait_until_escaped(call: dict[str, Any], timeout: float = 10) -> bool:
    """The grandchild has left its parent's session (so a group kill cannot reach it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with suppress(ProcessLookupError):
            if os.getsid(call["grandchild_pid"]) != call["sid"]:
                return True
        time.sleep(0.01)
    return False


@pytest.fixture
def mmr_processes() -> list[MmrProcess]:
    started: list[MmrProcess] = []
    yield started  # type: ignore[misc]
    for proc in started:
        if proc.popen.poll() is None:
            proc.popen.kill()
            proc.popen.communicate()


def test_interrupt_kills_a_grandchild_that_left_the_session(
        repo: GitRepo, fake_cli: FakeCliFactory, mmr_processes: list[MmrProcess]) -> None:
    slow = fake_cli("slow", stdout=CLEAN, sleep=60, spawn_grandchild=True,
                    grandchild_sleep=60, grandchild_escape="setsid")
    write_user_config({"slow": {"command": str(slow.path)}})
    mmr = spawn_mmr("review", "--sync", cwd=repo.root)
    mmr_processes.append(mmr)
    [call] = wait_for_calls(slow)
    assert wait_until_escaped(call)
    mmr.send(signal.SIGINT)
    assert mmr.wait(timeout=30).code == 130
    assert wait_until_gone(call["pid"], timeout=5)
    assert wait_until_gone(call["grandchild_pid"], timeout=5)


def test_kill_9_of_the_worker_kills_its_channels(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    slow = fake_cli("slow", stdout=CLEAN, sleep=60, spawn_grandchild=True,
                    grandchild_sleep=60, grandchild_escape="setsid")
    write_user_config({"slow": {"command": str(slow.path)}})
    started = run_mmr("review", cwd=repo.root)
    assert started.code == 0, started.err
    [call] = wait_for_calls(slow)
    assert wait_until_escaped(call)
    worker = load_job()["worker"]["pid"]
    assert not process_gone(call["pid"])
    os.kill(worker, signal.SIGKILL)
    assert wait_until_gone(worker, timeout=10)
    assert wait_until_gone(call["pid"], timeout=10)
    assert wait_until_gone(call["grandchild_pid"], timeout=10)
    status = run_mmr("status", json.loads(started.out)["job_id"], cwd=repo.root)
    assert status.json()["channels"]["slow"]["reason"] == "worker_died"
