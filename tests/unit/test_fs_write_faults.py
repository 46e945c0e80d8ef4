"""Write faults at the store's chokepoint (issue 16): a typed one-line error, nothing half written.

Runs without root: the fault is injected into ``os.fsync`` / ``tempfile.mkstemp`` as the
kernel would raise it.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from mmr import fs
from mmr.errors import MmrError, StoreWriteError


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT])
@pytest.mark.parametrize("where", ["mkstemp", "fsync"])
def test_a_write_fault_is_a_store_error_and_leaves_the_old_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, where: str) -> None:
    target = tmp_path / "job.json"
    target.write_bytes(b'{"old": true}')

    def fail(*_: Any, **__: Any) -> Any:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(fs.tempfile if where == "mkstemp" else fs.os, where, fail)
    with pytest.raises(StoreWriteError) as caught:
        fs.atomic_write_json(target, {"new": True})
    assert isinstance(caught.value, MmrError) and isinstance(caught.value, OSError)
    message = str(caught.value)
    assert message.startswith(f"cannot write {target}: {os.strerror(code)}. ")
    assert "MMR_HOME" in message and "\n" not in message
    assert target.read_bytes() == b'{"old": true}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json"]  # no temp file left


def test_other_os_errors_are_not_relabelled(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        fs.atomic_write_bytes(tmp_path / "missing-dir" / "x", b"x")
