"""Job writes a failing disk refuses mid-run are held in memory (mmr.store.held, issue 16)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from mmr import fs
from mmr.errors import StoreWriteError
from mmr.store import held


def _refuse_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any, **__: Any) -> Any:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fs, "write_temp", fail)


def test_outside_a_run_a_refused_write_raises(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _refuse_writes(monkeypatch)
    with pytest.raises(StoreWriteError):
        held.write_text(tmp_path / "job" / "job.json", "{}")


def test_a_held_write_is_read_back_and_saved_once_space_returns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = tmp_path / "mmr-1"
    (job / "channels").mkdir(parents=True)
    status = job / "channels" / "a.status.json"
    status.write_text('{"status": "running"}')
    with held.holding(job) as holder:
        with monkeypatch.context() as patch:
            _refuse_writes(patch)
            held.write_text(status, '{"status": "completed"}')
            held.write_text(job / "results.json", "{}")
        assert held.read_text(status) == '{"status": "completed"}'
        assert status.read_text() == '{"status": "running"}'  # the disk keeps the whole old file
        assert holder.error is not None and str(status) in str(holder.error)
    assert status.read_text() == '{"status": "completed"}'
    assert (job / "results.json").read_text() == "{}"
    assert holder.error is None
    assert held.holder(status) is None


def test_a_write_still_refused_at_the_end_is_the_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = tmp_path / "mmr-2"
    job.mkdir()
    _refuse_writes(monkeypatch)
    with held.holding(job) as holder:
        held.write_text(job / "job.json", "{}")
        held.remove(job / "missing.log")
    assert holder.error is not None
    assert held.unsaved_warning(holder.error).startswith(
        "mmr: warning: the job could not be saved: cannot write ")
    assert not (job / "job.json").exists()
