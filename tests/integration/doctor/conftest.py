"""Fixtures for ``mmr doctor``: a git project as the cwd and the real CLI entry in-process.

``mmr(...)`` runs ``mmr.cli.main.main`` (``tests/cli_runner.py``) and returns the exit code
with the captured stdout and stderr. Fake CLIs come from the ``fake_cli`` fixture (first on
``PATH``). The project fixtures, ``write`` and ``BUILTINS_OFF`` (the four built-ins that
ship enabled, switched off) are the ``mmr config`` suite's; the HTTP tests' local server
fixtures are re-exported here too.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mmr.cli.main import main
from tests.cli_runner import CliResult, RunCli
from tests.integration.config_cmd.conftest import (
    BUILTINS_OFF,
    project,
    project_file,
    user_file,
    write,
)
from tests.integration.http.conftest import (  # noqa: F401  (re-exported fixtures)
    _no_proxies,
    closed_port_url,
    http_server,
)

__all__ = ["BUILTINS_OFF", "MmrRunner", "Run", "commit", "mmr", "project", "project_file",
           "user_file", "write"]


class Run(CliResult):
    """A ``mmr doctor`` run; ``rows()`` reads its ``--format json`` report."""

    def rows(self) -> dict[str, dict[str, Any]]:
        """The ``--format json`` array keyed by channel name (order kept)."""
        return {row["name"]: row for row in json.loads(self.out)}


MmrRunner = Callable[..., Run]


@pytest.fixture
def mmr(project: Path, run_cli: RunCli) -> MmrRunner:
    """``mmr(*args)``: ``mmr doctor <args>`` in ``project``."""

    def run(*args: str) -> Run:
        result = run_cli(main, "doctor", *args)
        return Run(result.code, result.out, result.err)

    return run


def commit(project: Path, *paths: str) -> None:
    subprocess.run(["git", "-C", str(project), "add", *paths], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", "config"], check=True)
