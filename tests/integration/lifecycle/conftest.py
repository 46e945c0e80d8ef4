"""Harness for the job lifecycle: fire-and-forget reviews, ``mmr results``, ``mmr reconcile``.

``run_mmr`` goes through the console entry point in-process (``mmr.cli.main.main``), so
parsing, the error boundary, exit codes and output writing are the real ones. A
fire-and-forget review started that way spawns its real detached worker, which inherits
the test's environment (``MMR_HOME``, the fakes first on ``PATH``). Workers still alive
when a test ends are killed, so a failing test leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from mmr.config.paths import jobs_dir, user_config_path
from mmr.store.jobs import JobStore
from tests.fakes.plugin import process_gone
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
def run_mmr(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            workers: list[int]) -> RunMmr:
    """Run ``mmr <args>`` in ``cwd``; ``stdin`` feeds ``--input -``."""
    from mmr.cli.main import main

    def run(*args: str, cwd: Path, stdin: str | None = None) -> Result:
        capsys.readouterr()  # drop anything printed before this run
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            if stdin is not None:
                patch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
            code = main(list(args))
        captured = capsys.readouterr()
        result = Result(code, captured.out, captured.err)
        if args[:1] == ("review",) and code == 0 and '"worker_pid"' in result.out:
            workers.append(result.json()["worker_pid"])
        return result

    return run


@pytest.fixture
def workers() -> Iterator[list[int]]:
    """Pids of the detached workers a test started; SIGKILLed at teardown if still alive."""
    started: list[int] = []
    yield started
    for pid in started:
        if not process_gone(pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def write_user_config(channels: Mapping[str, Mapping[str, Any]],
                      defaults: Mapping[str, Any] | None = None) -> Path:
    """Write ``$MMR_HOME/config.yaml`` with these channels; the built-ins stay off."""
    document: dict[str, Any] = {"version": 1, "channels": {k: dict(v) for k, v in channels.items()},
                                "channels_disabled": BUILTIN_ENABLED}
    if defaults:
        document["defaults"] = dict(defaults)
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """A repository whose work tree changes ``src/app.py`` (unstaged)."""
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "def f(n):\n    return n\n"})
    repo.write({"src/app.py": "def f(n):\n    for i in range(n + 1):\n        print(i)\n"})
    return repo


@pytest.fixture
def store() -> JobStore:
    return JobStore(jobs_dir())


def wait_for(predicate: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    """Poll ``predicate`` every 50 ms until it holds; fail the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")


def wait_until_finished(run_mmr: RunMmr, job_id: str, cwd: Path, timeout: float = 60) -> Result:
    """Poll ``mmr status`` until it stops exiting 1 (every channel terminal); its last result."""
    last: list[Result] = []

    def finished() -> bool:
        last[:] = [run_mmr("status", job_id, cwd=cwd)]
        return last[0].code != 1

    wait_for(finished, timeout, f"job {job_id} to finish")
    return last[0]


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A verdict document without what differs between two runs of the same review:
    the job id and the elapsed times."""
    doc = json.loads(json.dumps(document))
    doc.pop("job_id", None)
    doc.get("metadata", {}).pop("total_elapsed", None)
    for channel in doc.get("per_channel", {}).values():
        channel.pop("elapsed", None)
    return doc
