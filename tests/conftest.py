"""Test-wide guards: no test touches the real home, the real ~/.mmr, or inherits CI variables."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = ["tests.fakes.plugin", "tests.cli_runner"]

FIXTURES = Path(__file__).parent / "fixtures"

# Variables that change mmr's behaviour (trust mode, colour, debug) and that CI itself sets.
_ISOLATED_VARS = (
    "CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS", "JENKINS_URL",
    "TEAMCITY_VERSION", "TF_BUILD", "BITBUCKET_BUILD_NUMBER", "CODEBUILD_BUILD_ID",
    "DRONE", "APPVEYOR", "GITHUB_STEP_SUMMARY", "FORCE_COLOR", "MMR_DEBUG", "MMR_HOME",
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME and MMR_HOME at fresh directories and clear CI variables."""
    before = _environment()
    root = tmp_path_factory.mktemp("home")
    home = root / "home"
    home.mkdir()
    for var in _ISOLATED_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MMR_HOME", str(home / ".mmr"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "mmr tests")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "tests@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "mmr tests")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "tests@example.invalid")
    yield home
    # Undo every monkeypatch (ours and the test's) first: what remains leaked past it.
    monkeypatch.undo()
    assert _environment() == before, "a test changed os.environ outside monkeypatch"


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
