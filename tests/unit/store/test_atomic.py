"""Atomic writes: whole files only, private modes, never through a symlink."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest

from mmr.fs import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    ensure_private_dir,
    read_bytes_nofollow,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_write_replaces_content_with_mode_0600_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "job.json"
    target.write_text("old")
    target.chmod(0o644)
    atomic_write_json(target, {"a": "é", "b": [1, 2]})
    assert target.read_bytes() == '{\n  "a": "é",\n  "b": [\n    1,\n    2\n  ]\n}'.encode()
    assert _mode(target) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json"]


def test_an_explicit_mode_is_set_before_the_rename_and_a_failed_rename_leaves_nothing(
        tmp_path: Path) -> None:
    target = tmp_path / "config.yaml"
    atomic_write_bytes(target, b"a: 1\n", mode=0o644)
    assert (target.read_bytes(), _mode(target)) == (b"a: 1\n", 0o644)
    (tmp_path / "dir").mkdir()
    with pytest.raises(OSError):
        atomic_write_bytes(tmp_path / "dir", b"x")  # a directory cannot be renamed over
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml", "dir"]


def test_private_dir_is_0700_and_a_symlinked_dir_is_refused(tmp_path: Path) -> None:
    ensure_private_dir(tmp_path / "a" / "jobs")
    assert _mode(tmp_path / "a" / "jobs") == 0o700
    (tmp_path / "link").symlink_to(tmp_path / "a")
    with pytest.raises(OSError, match="symlink"):
        ensure_private_dir(tmp_path / "link")


def test_a_symlink_at_the_target_is_replaced_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    link = tmp_path / "status.json"
    link.symlink_to(outside)
    atomic_write_text(link, "new")
    assert outside.read_text() == "precious"
    assert not link.is_symlink()
    assert link.read_text() == "new"


def test_follow_symlinks_replaces_the_link_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text("a: 1\n")
    link = tmp_path / "config.yaml"
    link.symlink_to(real)
    atomic_write_text(link, "a: 2\n", follow_symlinks=True)
    assert link.is_symlink()
    assert real.read_text() == "a: 2\n"


def test_lone_surrogates_round_trip_through_json(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    atomic_write_json(target, "half an emoji \ud83d and é")
    assert json.loads(target.read_bytes()) == "half an emoji \ud83d and é"


def test_undecodable_bytes_read_with_surrogateescape_are_written_back_unchanged(
    tmp_path: Path,
) -> None:
    raw = b"+latin1 \xe9\n"
    text = raw.decode("utf-8", "surrogateescape")
    target = tmp_path / "diff.patch"
    atomic_write_text(target, text)
    assert target.read_bytes() == raw
    assert read_bytes_nofollow(target) == raw


def test_read_nofollow_refuses_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OSError):
        read_bytes_nofollow(tmp_path / "link")


def test_a_concurrent_reader_only_ever_sees_whole_files(tmp_path: Path) -> None:
    target = tmp_path / "big.txt"
    versions = [b"a" * 400_000, b"b" * 300_000]
    atomic_write_bytes(target, versions[0])
    stop = threading.Event()
    seen: set[bytes] = set()

    def read_loop() -> None:
        while not stop.is_set():
            seen.add(target.read_bytes())

    reader = threading.Thread(target=read_loop)
    reader.start()
    try:
        for i in range(60):
            atomic_write_bytes(target, versions[i % 2])
    finally:
        stop.set()
        reader.join()
    assert seen <= set(versions)
