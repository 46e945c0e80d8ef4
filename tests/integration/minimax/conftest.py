"""Harness for the MiniMax channels, ``mmr explore`` and the two wrapper commands.

Each test gets a real git repository (``branch_repo``: ``main`` plus a checked-out
``feature/login`` branch), a fake ``ask-minimax-run`` on PATH through ``fake_cli`` (it
prints a chosen envelope, exits with a chosen code, sleeps, and records argv and stdin),
and ``run_cli`` (``tests/cli_runner.py``), which calls a console entry point in-process in
a chosen directory and captures its exit code, stdout and stderr.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import RunCli
from tests.fakes.plugin import FakeCli, FakeCliFactory
from tests.integration.git_repo_builder import GitRepo

__all__ = ["BASE_APP", "FEATURE_APP", "SHELL_FINDING", "RunCli", "branch_repo",
           "dirtying_minimax", "envelope", "minimax", "quick_retries", "sessions", "write_json"]

BASE_APP = "def login(user, password):\n    return check(user, password)\n"
FEATURE_APP = (
    "import os\n\n"
    "def login(user, password):\n"
    "    os.system('audit ' + user)\n"
    "    return check(user, password)\n"
)
SHELL_FINDING = (
    "### [BLOCKER] Shell injection through the user name\n"
    "`src/app.py:4`\n"
    "```\n    os.system('audit ' + user)\n```\n"
    "Category: injection\n"
    "Confidence: confirmed\n"
    "The user name reaches a shell unquoted.\n"
    "Suggestion: call subprocess.run with an argument list.\n"
)


def envelope(result: str | None = "NO FINDINGS", *, is_error: bool = False,
             context_window: int = 1_000_000, input_tokens: int = 12_345,
             output_tokens: int = 678, cost: float | None = 0.0123, turns: int = 7,
             model: str = "MiniMax-M3.1-Flash") -> dict[str, Any]:
    """An ``ask-minimax-run --output-format json`` envelope (the Claude Code result shape)."""
    data: dict[str, Any] = {
        "type": "result", "subtype": "error_during_execution" if is_error else "success",
        "is_error": is_error, "duration_ms": 4321, "num_turns": turns,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        "modelUsage": {model: {"contextWindow": context_window, "costUSD": cost}},
        "permission_denials": [],
    }
    if result is not None:
        data["result"] = result
    if cost is not None:
        data["total_cost_usd"] = cost
    return data


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No retry delay, and the default findings location inside the test's tmp dir."""
    monkeypatch.setenv("MMR_INCOMPLETE_RETRY_DELAY_MS", "0")
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    return runtime


@pytest.fixture
def branch_repo(tmp_path: Path) -> GitRepo:
    """``main`` with ``src/app.py``; ``feature/login`` (checked out) adds a shell call."""
    repo = GitRepo.create(tmp_path / "shop", {"src/app.py": BASE_APP, "README.md": "shop\n"})
    repo.branch("feature/login")
    repo.commit({"src/app.py": FEATURE_APP}, message="log every login")
    return repo


def minimax(fake: FakeCliFactory, reply: Any = None, **kwargs: Any) -> FakeCli:
    """The fake ``ask-minimax-run``; ``reply`` defaults to a clean ``NO FINDINGS`` envelope."""
    if "stdout_sequence" not in kwargs:
        kwargs["stdout"] = envelope() if reply is None else reply
    return fake("ask-minimax-run", **kwargs)


def dirtying_minimax(fake: FakeCliFactory, target: Path, reply: Any) -> FakeCli:
    """A fake ``ask-minimax-run`` that writes ``target`` (in the work tree) before replying."""
    inner = fake("ask-minimax-run-inner", stdout=reply)
    script = inner.path.parent / "ask-minimax-run"
    script.write_text(f"#!/bin/sh\necho dirt > {shlex.quote(str(target))}\n"
                      f'exec {shlex.quote(str(inner.path))} "$@"\n')
    script.chmod(0o755)
    return inner


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def sessions(fake: FakeCli) -> list[dict[str, Any]]:
    """The fake's real sub-session runs (the ``--version`` install check left out)."""
    return [call for call in fake.calls() if call["argv"] != ["--version"]]
