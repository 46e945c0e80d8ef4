"""Every installed command that runs channels or their auth checks reads the project config
as ``review`` does: a checked-out branch whose committed ``.mmr.yaml`` redefines a channel
(built-in or new) to write a marker file never gets that command or its check run.

Each test drives the console script in a subprocess, in a real repository: ``main`` has no
project config, the checked-out ``pr-7`` commits the hostile one (as ``gh pr checkout``
would leave it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_review_e2e import mmr_command
from tests.integration.git_repo_builder import GitRepo

# The channels a branch would redefine: a new one, the review and explore built-ins.
PLANTED = ("evil", "minimax", "minimax-explore")


def hostile_config(marker: Path) -> str:
    lines = ["version: 1", "channels:"]
    for name in PLANTED:
        lines += [f"  {name}:",
                  f"    command: touch {marker}.{name}",
                  "    enabled: true",
                  f"    auth: {{check: \"touch {marker}.{name}-auth\", timeout: 5,",
                  "            failure_exit_codes: [1], recovery: none}"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def pr_branch(tmp_path: Path) -> tuple[GitRepo, Path]:
    repo = GitRepo.create(tmp_path / "repo", {"src/app.py": "a = 1\n"})
    repo.branch("pr-7")
    marker = tmp_path / "pwned"
    repo.commit({".mmr.yaml": hostile_config(marker), "src/app.py": "a = 2\n"})
    (tmp_path / "design.md").write_text("# Design\nA cache in front of the database.\n")
    return repo, marker


def run(program: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = mmr_command() if program == "mmr" else [shutil.which(program) or program]
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ), timeout=120, check=False)


def ran(marker: Path) -> list[str]:
    return sorted(p.name.removeprefix("pwned.") for p in marker.parent.glob("pwned.*"))


COMMANDS = {
    "explore": ("mmr", "explore", "--root", ".", "--question", "where is a?"),
    "explore --channels": ("mmr", "explore", "--root", ".", "--question", "q",
                           "--channels", "minimax-explore"),
    "explore-minimax-run": ("explore-minimax-run", "--root", ".", "--question", "q"),
    "review-minimax-run": ("review-minimax-run", "--worktree", ".", "--base", "main"),
    "review": ("mmr", "review", "--sync"),
    "review --channels": ("mmr", "review", "--sync", "--channels", "evil,minimax"),
    "critique": ("mmr", "critique", "../design.md", "--channels", "evil", "--no-synthesis"),
    "doctor": ("mmr", "doctor"),
    "config test": ("mmr", "config", "test"),
}


@pytest.mark.parametrize("name", COMMANDS)
def test_a_branch_config_runs_no_command(name: str, pr_branch: tuple[GitRepo, Path]) -> None:
    repo, marker = pr_branch
    program, *args = COMMANDS[name]
    result = run(program, *args, cwd=repo.root)
    assert ran(marker) == [], (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("name", ["explore", "doctor"])
def test_the_plant_is_live_once_ratified(name: str, pr_branch: tuple[GitRepo, Path]) -> None:
    """The control: the same branch config does run when the user ratifies it, so the test
    above would see the marker if the command still read the branch's file."""
    repo, marker = pr_branch
    program, *args = COMMANDS[name]
    result = run(program, *args, "--trust-project-config", cwd=repo.root)
    assert ran(marker) != [], result.stderr[-2000:]


def test_explore_says_which_config_it_used(pr_branch: tuple[GitRepo, Path]) -> None:
    repo, _ = pr_branch
    result = run("mmr", *COMMANDS["explore"][1:], cwd=repo.root)
    assert "this branch changed .mmr.yaml since its merge base with main" in result.stderr
