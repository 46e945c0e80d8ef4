"""Host isolation: neutral HOME/cwd, the credential symlink, the stale-dir sweep."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from mmr.dispatch import isolation
from mmr.dispatch.isolation import (
    NEUTRAL_CWD,
    NEUTRAL_HOME,
    Posture,
    cleanup_all_postures,
    open_posture,
    sweep_once,
    sweep_stale_neutral_dirs,
)
from mmr.process.subprocess import ProcessRequest, run_process
from tests.fakes.plugin import FakeCliFactory

GROK_ENV = {"HOME": NEUTRAL_HOME, "XDG_CONFIG_HOME": NEUTRAL_HOME}


@contextmanager
def neutral_posture(channel_env: dict[str, str], cwd: str | None,
                    **options: Any) -> Iterator[Posture]:
    """``open_posture`` that always cleans up."""
    posture = open_posture(channel_env, cwd, **options)
    try:
        yield posture
    finally:
        posture.cleanup()


@pytest.fixture
def tmp_root(tmp_path: Path) -> Path:
    root = tmp_path / "tmp"
    root.mkdir()
    return root


@pytest.mark.parametrize(("env", "cwd", "isolated"), [
    ({"OPENCODE_PERMISSION": '{"*":"deny"}'}, None, False), ({}, "/work/repo", False),
    ({}, NEUTRAL_CWD, True), ({"HOME": NEUTRAL_HOME}, None, True),
    ({"XDG_CONFIG_HOME": NEUTRAL_HOME + "/cfg"}, None, True),
])
def test_a_directory_only_for_placeholders(tmp_root: Path, env: dict[str, str], cwd: str | None,
                                           isolated: bool) -> None:
    with neutral_posture(env, cwd, parent_env={}, tmp_root=tmp_root) as posture:
        assert (posture.directory is not None) is isolated


def test_expanding_leaves_the_channel_env_alone_and_pins_pwd_only_for_a_neutral_cwd(
        tmp_root: Path) -> None:
    env = {"HOME": NEUTRAL_HOME, "KEEP": "x"}
    with neutral_posture(env, None, parent_env={}, tmp_root=tmp_root) as home_only:
        assert home_only.env == {"HOME": str(home_only.directory), "KEEP": "x"}
        assert home_only.cwd is None
    assert env == {"HOME": NEUTRAL_HOME, "KEEP": "x"}
    with neutral_posture({}, NEUTRAL_CWD, parent_env={}, tmp_root=tmp_root) as with_cwd:
        where = str(with_cwd.directory)
        assert with_cwd.cwd == with_cwd.directory
        assert with_cwd.env == {"PWD": where, "OLDPWD": where, "INIT_CWD": where}


def test_child_env_is_parent_plus_channel_but_mmrs_own_gh_token(tmp_root: Path) -> None:
    parent = {"OPENAI_API_KEY": "sk-1", "GITHUB_TOKEN": "ghp_x", "PATH": "/bin", "A": "1"}
    for placeholder in ({}, {"HOME": "{{neutral_home}}"}):
        with neutral_posture({"A": "2", "B": "3", **placeholder}, None,
                             parent_env={**parent, "MMR_GH_TOKEN": "ghs_mmr"},
                             tmp_root=tmp_root) as posture:
            assert {k: v for k, v in posture.env.items() if k != "HOME"} == {
                **parent, "A": "2", "B": "3"}


def test_no_placeholders_create_nothing(tmp_root: Path, tmp_path: Path) -> None:
    with neutral_posture({"X": "1"}, None, parent_env={"P": "p"}, tmp_root=tmp_root) as posture:
        assert posture.directory is None and posture.cwd is None
        assert posture.env == {"P": "p", "X": "1"}
    assert list(tmp_root.iterdir()) == []


def test_relative_cwd_resolves_against_mmr_cwd(tmp_path: Path, tmp_root: Path) -> None:
    posture = open_posture({}, "sub/dir", base_cwd=tmp_path, tmp_root=tmp_root)
    assert posture.cwd == tmp_path / "sub" / "dir"


def test_grok_posture_uses_one_private_dir_everywhere(tmp_root: Path) -> None:
    parent = {"HOME": "/real/home", "PATH": "/bin"}
    with neutral_posture(GROK_ENV, NEUTRAL_CWD, parent_env=parent, tmp_root=tmp_root) as p:
        directory = p.directory
        assert directory is not None and directory.parent == tmp_root
        assert directory.name.startswith("mmr-grok-")
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
        assert p.cwd == directory
        for key in ("HOME", "XDG_CONFIG_HOME", "PWD", "OLDPWD", "INIT_CWD"):
            assert p.env[key] == str(directory)
        assert p.env["PATH"] == "/bin"
        assert not any("{{" in value for value in p.env.values())
    assert not directory.exists()


def test_calls_get_distinct_dirs_and_cleanup_is_idempotent(tmp_root: Path) -> None:
    first = open_posture({"HOME": NEUTRAL_HOME}, None, tmp_root=tmp_root)
    second = open_posture({"HOME": NEUTRAL_HOME}, None, tmp_root=tmp_root)
    assert first.directory != second.directory
    first.cleanup()
    first.cleanup()
    assert first.directory is not None and not first.directory.exists()
    assert second.directory is not None and second.directory.exists()
    second.cleanup()


def test_only_auth_json_is_linked_and_survives_cleanup(tmp_path: Path, tmp_root: Path) -> None:
    home = tmp_path / "realhome"
    grok = home / ".grok"
    (grok / "skills").mkdir(parents=True)
    (grok / "auth.json").write_text('{"token": "t"}')
    (grok / "config.toml").write_text("x = 1")

    with neutral_posture(GROK_ENV, NEUTRAL_CWD, parent_env={"HOME": str(home)},
                         tmp_root=tmp_root) as posture:
        assert posture.directory is not None
        linked = posture.directory / ".grok"
        assert sorted(p.name for p in linked.iterdir()) == ["auth.json"]
        assert (linked / "auth.json").is_symlink()
        assert (linked / "auth.json").read_text() == '{"token": "t"}'
        assert stat.S_IMODE(linked.stat().st_mode) == 0o700
    assert (grok / "auth.json").read_text() == '{"token": "t"}'


@pytest.mark.parametrize(("env", "cwd"), [({}, NEUTRAL_CWD), ({"XDG_CONFIG_HOME": NEUTRAL_HOME},
                                                               None)])
def test_no_credential_link_without_a_neutral_home(
    tmp_path: Path, tmp_root: Path, env: dict[str, str], cwd: str | None
) -> None:
    home = tmp_path / "realhome"
    (home / ".grok").mkdir(parents=True)
    (home / ".grok" / "auth.json").write_text("{}")
    with neutral_posture(env, cwd, parent_env={"HOME": str(home)}, tmp_root=tmp_root) as p:
        assert p.directory is not None and not (p.directory / ".grok").exists()
        assert ("PWD" in p.env) == (cwd is not None)


def test_prefix_placeholder_expands_to_a_subpath(tmp_root: Path) -> None:
    env = {"XDG_CONFIG_HOME": NEUTRAL_HOME + "/cfg", "OTHER": "a{{neutral_home}}"}
    with neutral_posture(env, None, parent_env={}, tmp_root=tmp_root) as p:
        assert p.env["XDG_CONFIG_HOME"] == f"{p.directory}/cfg"
        assert p.env["OTHER"] == "a{{neutral_home}}"


def test_cleanup_all_postures_is_the_interrupt_backstop(tmp_root: Path) -> None:
    postures = [open_posture({"HOME": NEUTRAL_HOME}, None, tmp_root=tmp_root) for _ in range(2)]
    assert cleanup_all_postures() >= 2
    assert all(p.directory is not None and not p.directory.exists() for p in postures)
    assert cleanup_all_postures() == 0


def test_child_really_runs_in_the_neutral_dir(fake_cli: FakeCliFactory, tmp_root: Path) -> None:
    fake = fake_cli("grok", stdout="ok")
    with neutral_posture(GROK_ENV, NEUTRAL_CWD, tmp_root=tmp_root) as posture:
        anyio.run(run_process, ProcessRequest(("grok",), cwd=posture.cwd, env=posture.env))
    call = fake.last_call()
    assert call["cwd"] == str(posture.directory) == call["env"]["HOME"] == call["env"]["PWD"]
    assert call["env"]["PATH"] == os.environ["PATH"]  # parent environment inherited


def _aged(path: Path, hours: float) -> Path:
    then = time.time() - hours * 3600
    os.utime(path, (then, then))
    return path


def test_sweep_removes_only_old_prefixed_directories(tmp_root: Path) -> None:
    old = isolation._create_neutral_dir(tmp_root)
    (old / "inner").mkdir()
    _aged(old, 25)
    fresh = isolation._create_neutral_dir(tmp_root)
    old_file = tmp_root / "mmr-grok-file"
    old_file.write_text("x")
    _aged(old_file, 48)
    other = tmp_root / "other-dir"
    other.mkdir()
    _aged(other, 48)
    target = tmp_root / "elsewhere"
    target.mkdir()
    link = tmp_root / "mmr-grok-link"
    link.symlink_to(target)
    os.utime(link, (0, 0), follow_symlinks=False)

    removed = sweep_stale_neutral_dirs(tmp_root=tmp_root)

    assert removed == [old]
    assert not old.exists()
    assert fresh.exists() and old_file.exists() and other.exists()
    assert link.is_symlink() and target.exists()


def test_sweep_runs_once_per_root(tmp_root: Path) -> None:
    first = _aged(isolation._create_neutral_dir(tmp_root), 30)
    assert sweep_once(tmp_root=tmp_root) == [first]
    second = _aged(isolation._create_neutral_dir(tmp_root), 30)
    assert sweep_once(tmp_root=tmp_root) == []
    assert second.exists()


def test_sweep_of_a_missing_root_is_silent(tmp_path: Path) -> None:
    assert sweep_stale_neutral_dirs(tmp_root=tmp_path / "absent") == []
