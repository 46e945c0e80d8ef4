"""Issue 19: a channel's child is spawned before its locked ``running`` status write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from mmr.dispatch.runner import dispatch_all
from mmr.store.jobs import JobStore
from tests.fakes.plugin import FakeCliFactory
from tests.integration.dispatch.dispatch_helpers import CLEAN_REPLY, channel, new_job, plan


class RecordingStore(JobStore):
    """A real job store that records the order of the pid and status writes."""

    def __init__(self, root: Path, fail_running: bool = False) -> None:
        super().__init__(root)
        self.order: list[str] = []
        self.fail_running = fail_running

    def write_pid(self, job_id: str, channel: str, pid: int) -> None:
        self.order.append(f"pid {channel}")
        super().write_pid(job_id, channel, pid)

    def update_channel(self, job_id: str, channel: str, **partial: Any) -> None:
        self.order.append(f"{partial.get('status')} {channel}")
        if self.fail_running and partial.get("status") == "running":
            raise OSError(28, "No space left on device")
        super().update_channel(job_id, channel, **partial)


def _job(tmp_path: Path, names: list[str], *, fail_running: bool = False) -> Any:
    job = new_job(tmp_path, names)
    store = RecordingStore(job.store.root, fail_running=fail_running)
    job.store = store
    return job, store


def test_the_child_is_spawned_before_the_running_write(fake_cli: FakeCliFactory,
                                                      tmp_path: Path) -> None:
    for name in ("codex", "gemini"):
        fake_cli(name, stdout=CLEAN_REPLY)
    job, store = _job(tmp_path, ["codex", "gemini"])

    outcomes = job.dispatch([plan(n, channel(n)) for n in ("codex", "gemini")])

    assert {o.status for o in outcomes.values()} == {"completed"}
    for name in ("codex", "gemini"):
        mine = [entry for entry in store.order if entry.endswith(f" {name}")]
        assert mine == [f"pid {name}", f"running {name}", f"completed {name}"]
        status = job.status(name)
        assert status["status"] == "completed" and status["started_at"] <= status["completed_at"]
    assert [(e.channel, e.status) for e in job.events if e.channel == "codex"] == [
        ("codex", "running"), ("codex", "completed")]


def test_a_spawn_that_fails_still_goes_through_running(tmp_path: Path) -> None:
    job, store = _job(tmp_path, ["codex"])

    outcome = job.dispatch([plan("codex", channel("mmr-no-such-cli-here"))])["codex"]

    assert outcome.status == "failed"
    assert store.order == ["running codex", "failed codex"]


def test_a_failing_running_write_fails_the_channel_alone(fake_cli: FakeCliFactory,
                                                        tmp_path: Path) -> None:
    fake_cli("codex", stdout=CLEAN_REPLY, sleep=30)
    job, _ = _job(tmp_path, ["codex"], fail_running=True)

    outcome = job.dispatch([plan("codex", channel("codex"))])["codex"]

    assert outcome.status == "failed"
    assert outcome.error is not None and "No space left on device" in outcome.error
    assert "OSError" in outcome.error and "ExceptionGroup" not in outcome.error
    assert job.status("codex")["status"] == "failed"  # the child was stopped, not waited for


def test_an_interrupt_right_after_the_spawn_still_records_running(fake_cli: FakeCliFactory,
                                                                  tmp_path: Path) -> None:
    fake_cli("codex", stdout=CLEAN_REPLY, sleep=30)
    job, store = _job(tmp_path, ["codex"])
    write_pid = store.write_pid

    async def main() -> None:
        with anyio.CancelScope() as scope:
            def cancel_on_spawn(job_id: str, name: str, pid: int) -> None:
                write_pid(job_id, name, pid)
                scope.cancel()  # Ctrl-C between the spawn and the running write

            store.write_pid = cancel_on_spawn  # type: ignore[method-assign]
            await dispatch_all([plan("codex", channel("codex"))], job.context())

    anyio.run(main)

    assert store.order == ["pid codex", "running codex", "failed codex"]
    status = job.status("codex")
    assert status["status"] == "failed" and status["reason"] == "interrupted"
    assert "started_at" in status
