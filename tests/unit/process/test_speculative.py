"""Claiming a child the early start began: only an identical request adopts it (issue 19).

Real children (``cat`` echoes its stdin), real adoption through ``run_process``.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from mmr.process import speculative
from mmr.process.reaper import MARK_VAR
from mmr.process.subprocess import live_process_groups, run_process
from mmr.process.types import ProcessRequest
from tests.fakes.plugin import group_members, process_gone, wait_until_gone

PROMPT = b"the whole prompt\n" * 100


@pytest.fixture(autouse=True)
def nothing_left() -> Iterator[None]:
    yield
    speculative.kill_unclaimed()


def _request(**changes: Any) -> ProcessRequest:
    base = ProcessRequest(("cat",), cwd=Path("/"), env={**os.environ, "EXTRA": "1"},
                          stdin=PROMPT, timeout_s=30, max_capture_bytes=1 << 20)
    return dataclasses.replace(base, **changes)


def _poll(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _start(req: ProcessRequest) -> speculative.SpeculativeChild:
    identity = speculative.request_identity(req)
    assert identity is not None
    child = speculative.start(identity)
    assert child is not None
    return child


@pytest.mark.parametrize("change", [
    {"argv": ("cat", "-")},
    {"env": {**os.environ, "EXTRA": "2"}},
    {"env": None},
    {"cwd": Path("/tmp")},
    {"cwd": None},
    {"stderr": "suppress"},
    {"stdin": PROMPT + b"!"},
    {"stdin": None},
    {"max_capture_bytes": 1 << 19},
    {"max_stderr_bytes": 10},
], ids=lambda change: next(iter(change)))
def test_one_field_different_is_no_claim(change: dict[str, Any]) -> None:
    child = _start(_request())
    assert speculative.claim(_request(**change)) is None
    assert speculative.waiting_groups() == [child.pid]
    assert speculative.claim(_request()) is child  # the identical request still claims it
    assert speculative.waiting_groups() == []


def test_a_prompt_file_request_never_claims(tmp_path: Path) -> None:
    _start(_request(stdin=None))  # alike in every field the identity compares
    prompt = tmp_path / "prompt"
    prompt.write_bytes(PROMPT)
    assert speculative.claim(_request(stdin=None, prompt_file=prompt)) is None
    assert speculative.claim(_request(stdin=None)) is not None


def test_the_reaper_mark_is_not_part_of_the_identity() -> None:
    child = _start(_request())
    marked = _request(env={**os.environ, "EXTRA": "1", MARK_VAR: "other:1"})
    assert speculative.claim(marked) is child
    speculative.kill_unclaimed()
    child.popen.kill()
    child.popen.wait()


def test_each_child_is_claimed_once() -> None:
    first, second = _start(_request()), _start(_request())
    claimed = [speculative.claim(_request()), speculative.claim(_request())]
    assert {child.pid for child in claimed if child is not None} == {first.pid, second.pid}
    assert speculative.claim(_request()) is None
    for child in (first, second):
        child.popen.kill()
        child.popen.wait()


def test_run_process_adopts_an_identical_child_and_supervises_it() -> None:
    req = _request()
    child = _start(req)
    seen: list[int] = []

    outcome = anyio.run(lambda: run_process(req, on_spawn=seen.append))

    assert seen == [child.pid] and outcome.pid == child.pid
    assert outcome.succeeded and outcome.stdout == PROMPT  # fed once, by the early start
    assert process_gone(child.pid) and live_process_groups() == frozenset()


def test_an_adopted_child_gets_the_requests_deadline_and_kill() -> None:
    req = _request(argv=("sleep", "30"), stdin=b"", timeout_s=0.3, kill_grace_s=0.2)
    child = _start(req)

    outcome = anyio.run(run_process, req)

    assert outcome.pid == child.pid and outcome.timed_out
    assert outcome.killed_by in (signal.SIGTERM, signal.SIGKILL)
    assert wait_until_gone(child.pid)


def test_unclaimed_children_are_killed_with_their_group() -> None:
    child = _start(_request(argv=("sh", "-c", "sleep 30 & sleep 30"), stdin=b""))
    assert child.pid in live_process_groups()  # the interrupt path signals it too
    assert _poll(lambda: len(group_members(child.pid)) >= 2)  # sh and its backgrounded sleep

    assert speculative.kill_unclaimed() == 1

    assert process_gone(child.pid) and speculative.waiting_groups() == []
    assert live_process_groups() == frozenset()
    # The backgrounded sleep went with its group. Orphaned, it may stay a zombie until some
    # reaper waits for it (PID 1 on a CI machine may never), so zombies count as gone.
    assert _poll(lambda: group_members(child.pid) == [])


def test_a_prompt_longer_than_the_pipe_is_fed_whole() -> None:
    big = bytes(range(256)) * 1200  # 300 KiB: more than a pipe holds
    req = _request(stdin=big, max_capture_bytes=None)
    child = _start(req)

    outcome = anyio.run(run_process, req)

    assert outcome.pid == child.pid and outcome.stdout == big


def test_a_child_that_never_reads_a_long_prompt_is_still_killed() -> None:
    child = _start(_request(argv=("sleep", "30"), stdin=b"x" * (1 << 20)))
    assert speculative.kill_unclaimed() == 1
    assert process_gone(child.pid)


_SIGTERM_MIDWAY = """
import os, signal, sys
from pathlib import Path
from mmr.process import speculative
from mmr.process.types import ProcessRequest

children = []
for _ in range(2):
    req = ProcessRequest(("sleep", "30"), cwd=Path("/"), env=dict(os.environ), stdin=b"",
                         timeout_s=30)
    children.append(speculative.start(speculative.request_identity(req)))
print(" ".join(str(child.pid) for child in children), flush=True)
speculative.stop_on_sigterm()
real = os.killpg
calls = []
def killpg_then_sigterm(pgid, sig):
    real(pgid, sig)
    calls.append(pgid)
    if len(calls) == 1:
        os.kill(os.getpid(), signal.SIGTERM)  # arrives between the first and the second kill
speculative.os.killpg = killpg_then_sigterm
speculative.kill_unclaimed()
"""


def test_a_sigterm_while_unclaimed_children_are_killed_still_kills_them_all() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _SIGTERM_MIDWAY], capture_output=True,
                          text=True, timeout=60, check=False)
    pids = [int(pid) for pid in done.stdout.split()]
    assert done.returncode == -signal.SIGTERM and len(pids) == 2, done.stderr
    assert all(wait_until_gone(pid) for pid in pids)
