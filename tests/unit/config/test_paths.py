"""State directories and the project root (Decisions: MMR_HOME, git top-level)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mmr.config import paths


def test_mmr_home_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMR_HOME", str(tmp_path / "state"))
    assert paths.mmr_home() == tmp_path / "state"
    assert paths.user_config_path() == tmp_path / "state" / "config.yaml"
    assert paths.jobs_dir() == tmp_path / "state" / "jobs"
    assert paths.sessions_dir() == tmp_path / "state" / "sessions"


@pytest.mark.parametrize("value", [None, ""])
def test_without_mmr_home_it_is_dot_mmr_in_home(value: str | None, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    if value is None:
        monkeypatch.delenv("MMR_HOME")
    else:
        monkeypatch.setenv("MMR_HOME", value)
    assert paths.mmr_home() == tmp_path / ".mmr"
    assert paths.user_config_path() == tmp_path / ".mmr" / "config.yaml"


def test_project_root_is_the_git_top_level_from_a_subdirectory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert paths.find_project_root(sub).resolve() == repo.resolve()
    assert paths.project_config_path(paths.find_project_root(sub)).name == ".mmr.yaml"


def test_project_root_outside_git_is_the_directory_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain" / "deeper"
    plain.mkdir(parents=True)
    # git looks no higher than tmp_path, wherever the temporary directory lives.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    probe = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=plain,
                           capture_output=True, check=False)
    assert probe.returncode != 0, probe.stdout
    assert paths.find_project_root(plain) == plain.absolute()


def test_project_root_without_git_on_path_is_the_directory_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The root comes from mmr.git's fenced rev-parse; a missing git is "not in a work tree".
    repo = tmp_path / "repo"
    sub = repo / "src"
    sub.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert paths.find_project_root(sub) == sub.absolute()
