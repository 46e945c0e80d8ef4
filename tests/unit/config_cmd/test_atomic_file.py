"""Atomic config writes: modes, symlink policy, exclusive creation, rollback."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mmr.config_edit.atomic_file import (
    SymlinkRefused,
    create_file,
    read_snapshot,
    replace_file,
    restore_snapshot,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


def test_new_file_is_0600_even_under_a_permissive_umask(tmp_path: Path):
    old = os.umask(0)
    try:
        replace_file(tmp_path / "c.yaml", b"a: 1\n", follow_symlink=False)
    finally:
        os.umask(old)
    assert mode(tmp_path / "c.yaml") == 0o600
    assert siblings(tmp_path / "c.yaml") == ["c.yaml"]


def test_existing_file_keeps_its_mode_and_inode_is_replaced(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("old\n")
    path.chmod(0o644)
    inode = path.stat().st_ino
    replace_file(path, b"new\n", follow_symlink=False)
    assert path.read_text() == "new\n"
    assert mode(path) == 0o644
    assert path.stat().st_ino != inode  # renamed into place, not rewritten
    assert siblings(path) == ["c.yaml"]


def test_symlink_refused_or_followed(tmp_path: Path):
    target = tmp_path / "real.yaml"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    with pytest.raises(SymlinkRefused, match="refusing to write through a symlink"):
        replace_file(link, b"new\n", follow_symlink=False)
    assert target.read_text() == "old\n"
    written = replace_file(link, b"new\n", follow_symlink=True)
    assert written == target and link.is_symlink()
    assert target.read_text() == "new\n" and mode(target) == 0o640


def test_create_file_never_replaces(tmp_path: Path):
    path = tmp_path / ".mmr.yaml"
    create_file(path, b"version: 1\n")
    assert mode(path) == 0o600
    with pytest.raises(FileExistsError):
        create_file(path, b"other\n")
    assert path.read_text() == "version: 1\n"
    assert siblings(path) == [".mmr.yaml"]


def test_snapshot_and_restore(tmp_path: Path):
    path = tmp_path / "c.yaml"
    assert read_snapshot(path, follow_symlink=False) is None
    path.write_bytes(b"keep me\n")
    snapshot = read_snapshot(path, follow_symlink=False)
    path.write_bytes(b"changed\n")
    restore_snapshot(path, snapshot, follow_symlink=False)
    assert path.read_bytes() == b"keep me\n"
    restore_snapshot(path, None, follow_symlink=False)
    assert not path.exists()
