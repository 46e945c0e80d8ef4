"""Timeouts, escalation and cancellation: the whole process group goes, grandchildren too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest

from mmr.process.subprocess import (
    ProcessOutcome,
    ProcessRequest,
    run_process,
)
from tests.fakes.plugin import FakeCliFactory, group_members, process_gone, wait_until_gone


def test_timeout_kills_the_grandchild(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("grok", spawn_grandchild=True, sleep=30, stderr="working\n")
    started = time.monotonic()

    outcome = anyio.run(run_process, ProcessRequest(("grok",), timeout_s=0.5, kill_grace_s=0.5))

    elapsed = time.monotonic() - started
    assert outcome.timed_out and not outcome.succeeded
    assert outcome.killed_by == signal.SIGTERM  # it obeyed the first, polite signal
    assert outcome.stderr == b"working\n"  # captured stderr survives a timeout
    assert 0.45 <= elapsed < 2.5  # the deadline, not the 30 s sleep
    call = fake.last_call()
    assert wait_until_gone(call["grandchild_pid"])
    assert group_members(call["pgid"]) == []
    assert not fake.marker.exists()


def test_sigterm_ignoring_child_and_grandchild_get_sigkill(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("stubborn", ignore_sigterm=True, spawn_grandchild=True, sleep=30)
    started = time.monotonic()

    outcome = anyio.run(run_process, ProcessRequest(("stubborn",), timeout_s=0.4, kill_grace_s=0.4))

    elapsed = time.monotonic() - started
    assert outcome.timed_out and outcome.killed_by == signal.SIGKILL
    assert 0.75 <= elapsed < 3.0  # deadline + grace, not the 30 s sleep
    call = fake.last_call()
    assert wait_until_gone(call["pid"]) and wait_until_gone(call["grandchild_pid"])
    assert group_members(call["pgid"]) == []


def test_grandchild_holding_stdout_keeps_the_run_open_until_the_deadline(
    fake_cli: FakeCliFactory,
) -> None:
    # The reference settles on "exited and stdout closed": a complete reply from a child
    # that exits 0 still times out while a grandchild holds the pipe.
    fake = fake_cli("leaky", stdout='{"findings": []}', spawn_grandchild=True)

    outcome = anyio.run(run_process, ProcessRequest(("leaky",), timeout_s=0.5, kill_grace_s=0.3))

    assert outcome.timed_out and outcome.rc == 0
    assert outcome.stdout == b'{"findings": []}'
    assert wait_until_gone(fake.last_call()["grandchild_pid"])


def test_child_that_never_reads_stdin_nor_exits_times_out(fake_cli: FakeCliFactory) -> None:
    fake_cli("stuck", ignore_stdin=True, sleep=30)
    started = time.monotonic()
    outcome = anyio.run(run_process, ProcessRequest(
        ("stuck",), stdin=b"z" * (10 * 1024 * 1024), timeout_s=0.5, kill_grace_s=0.3,
    ))
    assert outcome.timed_out
    assert time.monotonic() - started < 3


@pytest.mark.anyio
async def test_cancellation_kills_the_group(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("codex", spawn_grandchild=True, ignore_sigterm=True, sleep=30)
    results: list[ProcessOutcome] = []

    async def dispatch() -> None:
        results.append(await run_process(ProcessRequest(("codex",), timeout_s=30,
                                                        kill_grace_s=0.3)))

    started = time.monotonic()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(dispatch)
        call = await anyio.to_thread.run_sync(fake.wait_for_call)
        tasks.cancel_scope.cancel()

    assert results == []  # cancelled, not settled
    assert time.monotonic() - started < 5
    assert wait_until_gone(call["pid"]) and wait_until_gone(call["grandchild_pid"])
    assert group_members(call["pgid"]) == []


@pytest.mark.anyio
async def test_a_child_killed_by_sigterm_says_so(fake_cli: FakeCliFactory) -> None:
    fake = fake_cli("agy", sleep=30)
    results: list[ProcessOutcome] = []

    async def dispatch() -> None:
        results.append(await run_process(ProcessRequest(("agy",), timeout_s=30)))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(dispatch)
        call = await anyio.to_thread.run_sync(fake.wait_for_call)
        os.killpg(call["pgid"], signal.SIGTERM)

    (outcome,) = results
    assert outcome.killed_by == signal.SIGTERM and not outcome.timed_out
    assert outcome.exit_message() == "Process exited with code null (signal SIGTERM)"


def test_ctrl_c_in_a_real_process_kills_the_child_group(
    fake_cli: FakeCliFactory, tmp_path: Path
) -> None:
    fake = fake_cli("claude", spawn_grandchild=True, sleep=30)
    driver = tmp_path / "driver.py"
    driver.write_text(textwrap.dedent("""
        import anyio
        from mmr.process.subprocess import ProcessRequest, run_process
        try:
            anyio.run(run_process, ProcessRequest(("claude",), timeout_s=30, kill_grace_s=0.3))
        except KeyboardInterrupt:
            raise SystemExit(130)
        raise SystemExit(0)
    """))
    proc = subprocess.Popen([sys.executable, str(driver)], env=os.environ.copy())
    try:
        call = fake.wait_for_call(timeout=10)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=5) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    assert wait_until_gone(call["pid"]) and wait_until_gone(call["grandchild_pid"])
    assert process_gone(call["grandchild_pid"])


def test_grandchild_holding_only_stdin_does_not_keep_the_run_open(
    fake_cli: FakeCliFactory,
) -> None:
    # Settling needs exit + closed stdout/stderr, as Node's "close" event: stdin is not
    # waited for, so a sleeper that inherited an unread stdin cannot stall the run.
    fake = fake_cli("helper", stdout="ok", ignore_stdin=True, spawn_grandchild=True,
                    grandchild_holds="stdin")

    outcome = anyio.run(run_process, ProcessRequest(
        ("helper",), stdin=b"s" * (2 * 1024 * 1024), timeout_s=5, kill_grace_s=0.2,
    ))

    assert outcome.rc == 0 and outcome.stdout == b"ok" and not outcome.timed_out
    assert outcome.elapsed_s < 2
    # Issue 15: no descendant outlives its channel, so the helper is killed once it ends.
    assert wait_until_gone(fake.last_call()["grandchild_pid"])
