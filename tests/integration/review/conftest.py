"""Harness for ``mmr review`` end to end: real git repos, fake channel CLIs, the real CLI.

``run_mmr`` (``tests/cli_runner.py``) goes through the console entry point in-process
(``mmr.cli.main.main``), so parsing, the error boundary, exit codes and output writing are
the real ones; ``stdin`` feeds ``--diff -``. The fakes are real executables on ``PATH``
that record their argv, stdin and environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from mmr.config.paths import jobs_dir, user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.cli_runner import CliResult as Result
from tests.cli_runner import RunMmr
from tests.integration.git_repo_builder import GitRepo

__all__ = ["BUILTIN_ENABLED", "CLEAN", "Result", "RunMmr", "finding", "job_ids",
           "reply", "repo", "write_user_config"]

#: Built-in presets that are enabled by default; the tests dispatch only their fakes.
BUILTIN_ENABLED = ENABLED_BUILTINS
CLEAN = {"approved": True, "findings": [], "summary": "no issues"}


def finding(location: str = "src/app.py:2", severity: str = "P1",
            description: str = "Off-by-one in the loop bound") -> dict[str, Any]:
    return {"severity": severity, "location": location, "description": description,
            "suggestion": "Use < instead of <="}


def reply(*findings: dict[str, Any]) -> dict[str, Any]:
    return {"approved": not findings, "findings": list(findings), "summary": "reviewed"}


def write_user_config(channels: Mapping[str, Mapping[str, Any]],
                      defaults: Mapping[str, Any] | None = None, *,
                      disabled: list[str] | None = None, **top: Any) -> Path:
    """Write ``$MMR_HOME/config.yaml`` with these channels; the built-ins stay off
    (``channels_disabled`` is ``disabled`` when given)."""
    document: dict[str, Any] = {
        "version": 1, "channels": {k: dict(v) for k, v in channels.items()},
        "channels_disabled": BUILTIN_ENABLED if disabled is None else disabled,
    }
    if defaults:
        document["defaults"] = dict(defaults)
    document.update(top)
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def job_ids() -> list[str]:
    root = jobs_dir()
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """A repository whose work tree changes ``src/app.py`` (unstaged)."""
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "def f(n):\n    return n\n"})
    repo.write({"src/app.py": "def f(n):\n    for i in range(n + 1):\n        print(i)\n"})
    return repo
