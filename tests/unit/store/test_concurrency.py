"""Concurrent writers never lose an update."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mmr.store.jobs import JobStore
from mmr.store.locking import LockTimeoutError, mkdir_lock

# Each process merges its own keys into one shared status file, then registers channels.
_WRITER = """
import sys
from pathlib import Path
from mmr.store.jobs import JobStore
from mmr.store.records import ChannelJobEntry

root, job_id, worker, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
store = JobStore(root)
sys.stdin.readline()  # start together
for i in range(count):
    store.update_channel(job_id, "codex", **{f"w{worker}_{i}": i})
for i in range(5):
    store.register_channel(job_id, f"agent-{worker}-{i}", ChannelJobEntry(status="dispatched"))
"""

PROCESSES = 4
UPDATES = 75


@pytest.mark.slow
def test_updates_from_several_processes_are_all_kept(store: JobStore) -> None:
    job = store.create_job(["codex"], fix_threshold="P2", format="json",
                           min_completed_channels=1)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(store.root), job.job_id, str(n), str(UPDATES)],
            stdin=subprocess.PIPE, text=True,
        )
        for n in range(PROCESSES)
    ]
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.close()
    for child in children:
        assert child.wait(timeout=120) == 0
    entry = store.load(job.job_id).channels["codex"]
    extra = entry.model_extra or {}
    assert len(extra) == PROCESSES * UPDATES
    assert all(extra[f"w{n}_{i}"] == i for n in range(PROCESSES) for i in range(UPDATES))
    channels = store.load(job.job_id).channels
    assert len(channels) == 1 + PROCESSES * 5
    assert not list((store.root / job.job_id).glob("*.lock"))
    assert not list((store.root / job.job_id / "channels").glob(".*.tmp"))


def test_updates_from_several_threads_are_all_kept(store: JobStore) -> None:
    job = store.create_job(["codex", "gemini"], fix_threshold="P2", format="json",
                           min_completed_channels=1)

    def write(worker: int) -> None:
        for i in range(40):
            store.update_channel(job.job_id, ("codex", "gemini")[i % 2], **{f"t{worker}_{i}": i})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    loaded = store.load(job.job_id)
    kept = {**(loaded.channels["codex"].model_extra or {}),
            **(loaded.channels["gemini"].model_extra or {})}
    assert len(kept) == 160


def test_concurrent_creates_never_share_an_id(store: JobStore) -> None:
    ids: list[str] = []

    def create() -> None:
        for _ in range(25):
            ids.append(store.create_job(["c"], fix_threshold="P2", format="json",
                                        min_completed_channels=1).job_id)

    threads = [threading.Thread(target=create) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(ids)) == 100
    assert len(list(store.root.iterdir())) == 100


def test_a_stale_lock_left_by_a_dead_holder_is_taken_over(tmp_path: Path) -> None:
    lock = tmp_path / "job.json.lock"
    lock.mkdir()
    old = time.time() - 60
    os.utime(lock, (old, old))
    with mkdir_lock(lock, stale_after=30, timeout=1):
        assert lock.is_dir()
    assert not lock.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_live_lock_makes_the_waiter_time_out(tmp_path: Path) -> None:
    lock = tmp_path / "job.json.lock"
    lock.mkdir()
    started = time.monotonic()
    with pytest.raises(LockTimeoutError, match="Timed out waiting for lock"), \
            mkdir_lock(lock, stale_after=30, timeout=0.2):
        pass
    assert time.monotonic() - started >= 0.2
    assert lock.is_dir()  # someone else's lock is left alone


def test_the_lock_excludes_a_second_holder(tmp_path: Path) -> None:
    lock = tmp_path / "l"
    order: list[str] = []

    def second() -> None:
        with mkdir_lock(lock, stale_after=30, timeout=5):
            order.append("second")

    with mkdir_lock(lock, stale_after=30, timeout=5):
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.1)
        order.append("first")
    thread.join()
    assert order == ["first", "second"]
