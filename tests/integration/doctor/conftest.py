"""Fixtures for ``mmr doctor``: a git project as the cwd and the real CLI entry in-process.

``mmr(...)`` runs ``mmr.cli.main.main`` and returns the exit code with the captured
stdout and stderr. Fake CLIs come from the ``fake_cli`` fixture (first on ``PATH``).
``BUILTINS_OFF`` switches off the four built-ins that ship enabled, so a test sees only
the channels it configures. The HTTP tests' local server fixtures are re-exported here.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mmr.cli.main import main
from mmr.config.paths import user_config_path
from tests.integration.http.conftest import (  # noqa: F401  (re-exported fixtures)
    _no_proxies,
    closed_port_url,
    http_server,
)

BUILTINS_OFF = """\
channels:
  claude: {enabled: false}
  codex: {enabled: false}
  grok: {enabled: false}
  antigravity: {enabled: false}
"""


@dataclass(frozen=True)
class Run:
    rc: int
    out: str
    err: str

    def rows(self) -> dict[str, dict[str, Any]]:
        """The ``--format json`` array keyed by channel name (order kept)."""
        return {row["name"]: row for row in json.loads(self.out)}


MmrRunner = Callable[..., Run]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh git work tree, made the current directory."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def mmr(project: Path, capsys: pytest.CaptureFixture[str]) -> MmrRunner:
    def run(*args: str) -> Run:
        capsys.readouterr()
        rc = main(["doctor", *args])
        captured = capsys.readouterr()
        return Run(rc, captured.out, captured.err)

    return run


@pytest.fixture
def project_file(project: Path) -> Path:
    return project / ".mmr.yaml"


@pytest.fixture
def user_file() -> Path:
    return user_config_path()


def write(path: Path, text: str) -> Path:
    """Write dedented YAML ``text`` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def commit(project: Path, *paths: str) -> None:
    subprocess.run(["git", "-C", str(project), "add", *paths], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", "config"], check=True)
