"""Harness for ``mmr review`` end to end: real git repos, fake channel CLIs, the real CLI.

``run_mmr`` goes through the console entry point in-process (``mmr.cli.main.main``), so
parsing, the error boundary, exit codes and output writing are the real ones; the fakes
are real executables on ``PATH`` that record their argv, stdin and environment.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from mmr.config.paths import jobs_dir, user_config_path
from tests.integration.git_repo_builder import GitRepo

#: Built-in presets that are enabled by default; the tests dispatch only their fakes.
BUILTIN_ENABLED = ["claude", "codex", "grok", "antigravity", "opencode", "doc-conformance"]
CLEAN = {"approved": True, "findings": [], "summary": "no issues"}


def finding(location: str = "src/app.py:2", severity: str = "P1",
            description: str = "Off-by-one in the loop bound") -> dict[str, Any]:
    return {"severity": severity, "location": location, "description": description,
            "suggestion": "Use < instead of <="}


def reply(*findings: dict[str, Any]) -> dict[str, Any]:
    return {"approved": not findings, "findings": list(findings), "summary": "reviewed"}


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


RunMmr = Callable[..., Result]


@pytest.fixture
def run_mmr(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> RunMmr:
    """Run ``mmr <args>`` in ``cwd``; ``stdin`` feeds ``--diff -``."""
    from mmr.cli.main import main

    def run(*args: str, cwd: Path, stdin: str | bytes | None = None,
            env: Mapping[str, str] | None = None) -> Result:
        capsys.readouterr()  # drop anything printed before this run
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            for key, value in (env or {}).items():
                patch.setenv(key, value)
            if stdin is not None:
                data = stdin.encode() if isinstance(stdin, str) else stdin
                patch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
            code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def write_user_config(channels: Mapping[str, Mapping[str, Any]],
                      defaults: Mapping[str, Any] | None = None, **top: Any) -> Path:
    """Write ``$MMR_HOME/config.yaml`` with these channels; the built-ins stay off."""
    document: dict[str, Any] = {"version": 1, "channels": {k: dict(v) for k, v in channels.items()},
                                "channels_disabled": BUILTIN_ENABLED}
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

