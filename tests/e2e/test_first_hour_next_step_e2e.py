"""The first hour, continued, through the installed ``mmr`` in real repositories: doctor
that leaves no reviewer, a channel script named by a relative path, doctor leaving a custom
reviewer alone, compensation only through a compensator that can run."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import yaml

from mmr.config.paths import user_config_path
from tests.builtin_channels import BUILTIN_CHANNELS, ENABLED_BUILTINS
from tests.e2e.test_first_hour_e2e import changed_repo, mmr_command, only_line, run_piped
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo

REPLY = json.dumps({"approved": True, "findings": [], "summary": "ok"})


def bare_path() -> str:
    """A PATH with python and the system tools but no reviewer CLI."""
    return str(Path(sys.executable).parent) + os.pathsep + "/usr/bin:/bin"


def run_piped_env(args: list[str], cwd: Path,
                  env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*mmr_command(), *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def write_user_config(data: dict[str, object]) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data))


def test_doctor_fix_that_would_leave_no_reviewer_says_what_to_install(tmp_path: Path) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    env = {**os.environ, "PATH": bare_path()}
    for args in (["doctor"], ["doctor", "--fix"]):
        done = run_piped_env(args, repo.root, env)
        assert done.returncode == 1, done.stdout
        line = only_line(done.stderr)
        assert line.startswith("mmr: error: no reviewer is ready")
        assert "npm install -g" in line and "docs/recipes" in line
    # --fix switched the missing CLIs off, and still no review could run.
    assert "codex" in yaml.safe_load(user_config_path().read_text())["channels"]


def test_doctor_with_every_channel_off_exits_1(tmp_path: Path) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    write_user_config({"channels_disabled": BUILTIN_CHANNELS})
    done = run_piped(["doctor"], repo.root)
    assert done.returncode == 1
    assert only_line(done.stderr).startswith("mmr: error: no reviewer is ready")


def reviewer_script(path: Path, record: Path) -> None:
    """A reviewer script that notes each run (its arguments) and answers a clean review."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho \"$@\" >> {record}\ncat >/dev/null\necho '{REPLY}'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_a_relative_channel_command_runs_from_a_sub_folder(tmp_path: Path) -> None:
    repo = changed_repo(tmp_path)
    record = tmp_path / "runs.txt"
    reviewer_script(repo.root / "scripts" / "review", record)
    write_user_config({"channels": {"lint": {"command": "scripts/review"},
                                    "lint2": {"command": "scripts/review", "flags": ["-x"]}},
                       "channels_disabled": ENABLED_BUILTINS})
    sub = repo.root / "src" / "deep"
    sub.mkdir(parents=True)
    review = run_piped(["review", "--sync", "--format", "json"], sub)
    assert review.returncode == 0, review.stderr
    channels = json.loads(review.stdout)["per_channel"]
    assert {name: c["status"] for name, c in channels.items()} == {
        "lint": "completed", "lint2": "completed"}
    doctor = run_piped(["doctor", "--format", "json"], sub)
    assert {row["name"]: row["status"] for row in json.loads(doctor.stdout)
            if row["name"].startswith("lint")} == {"lint": "ok", "lint2": "ok"}


def test_doctor_never_runs_a_custom_channel_with_version(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    reviewer = fake_cli("my-reviewer", stdout=REPLY)
    write_user_config({"channels": {"mine": {"command": "my-reviewer --review"}},
                       "channels_disabled": ENABLED_BUILTINS})
    done = run_piped(["doctor", "--format", "json"], repo.root)
    assert done.returncode == 0, done.stderr
    assert next(row for row in json.loads(done.stdout) if row["name"] == "mine")["status"] == "ok"
    assert reviewer.calls(include_version_probes=True) == []


def test_a_compensator_that_cannot_run_is_not_attempted(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    rev1 = fake_cli("rev1", stdout=REPLY)
    fake_cli("rev2", stdout=REPLY)
    fake_cli("broken", stdout="", exit_code=3)
    write_user_config({"channels": {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"},
                                    "broken": {"command": "broken"}},
                       "channels_disabled": ENABLED_BUILTINS})
    # claude, the default compensator, is switched off and not installed.
    env = {**os.environ, "PATH": str(rev1.path.parent) + os.pathsep + bare_path()}
    review = run_piped_env(["review", "--sync", "--format", "json"], repo.root, env)
    verdict = json.loads(review.stdout)
    assert set(verdict["per_channel"]) == {"rev1", "rev2", "broken"}, verdict["per_channel"]
    notices = [line for line in review.stderr.splitlines() if "compensat" in line]
    assert len(notices) == 1 and "claude" in notices[0], review.stderr


def test_config_init_says_the_next_step(tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    env = {**os.environ, "PATH": bare_path()}
    done = run_piped_env(["config", "init"], repo.root, env)
    assert done.returncode == 0, done.stderr
    said = done.stdout
    assert "commit it" in said and "mmr config init --global" in said
    assert "No reviewer CLI is installed here" in said and "docs/recipes/" in said
    # No format is written: the terminal decides (text), a pipe gets JSON.
    assert "format" not in yaml.safe_load((repo.root / ".mmr.yaml").read_text())["defaults"]
    codex = fake_cli("codex", stdout="codex-cli 0.50.0")
    env = {**os.environ, "PATH": str(codex.path.parent) + os.pathsep + bare_path()}
    done = run_piped_env(["config", "init", "--global"], repo.root, env)
    assert done.returncode == 0, done.stderr
    assert f"Created {user_config_path()}" in done.stdout and "commit it" not in done.stdout
    assert "More reviewers:" in done.stdout and "docs/recipes/" in done.stdout
    written = yaml.safe_load(user_config_path().read_text())
    assert written["channels"]["codex"] == {"enabled": True}
    assert written["channels"]["claude"] == {"enabled": False}


def summaries(help_text: str) -> dict[str, str]:
    """The ``Commands:`` rows of a ``--help`` page: name → summary (wrapped lines joined)."""
    rows: dict[str, str] = {}
    section = help_text.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    for line in section.splitlines():
        name, _, text = line.strip().partition(" ")
        if line.startswith("  ") and not line.startswith("   "):
            rows[name] = text.strip()
        else:
            last = next(reversed(rows))
            rows[last] += " " + line.strip()
    return rows


def test_every_command_summary_is_a_whole_sentence(tmp_path: Path) -> None:
    pages: list[list[str]] = [[]]
    seen = 0
    while pages:
        path = pages.pop()
        done = run_piped([*path, "--help"], tmp_path)
        assert done.returncode == 0, done.stderr
        if "\nCommands:\n" not in done.stdout:
            continue
        for name, summary in summaries(done.stdout).items():
            seen += 1
            assert summary.endswith(".") and "..." not in summary, (path, name, summary)
            pages.append([*path, name])
    assert seen > 30  # the root's commands and every group's


def test_critique_says_why_review_shaped_replies_give_no_items(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"design.md": "# Design\n\nUse one queue.\n"})
    fake_cli("rev1", stdout=REPLY)
    fake_cli("rev2", stdout=REPLY)
    write_user_config({"channels": {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}},
                       "channels_disabled": ENABLED_BUILTINS})
    done = run_piped(["critique", "design.md", "--format", "text"], repo.root)
    assert done.returncode == 0, done.stderr
    assert "No critique items were returned." in done.stdout
    for name in ("rev1", "rev2"):
        line = next(line for line in done.stdout.splitlines() if line.startswith(f"  {name}:"))
        assert 'a code review ("findings"), not a critique ("items")' in line, line
