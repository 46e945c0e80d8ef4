"""A new user's first hour, through the installed ``mmr`` in a real repository: text for a
person at a terminal (a real pty), JSON for scripts, and errors that name the next step."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from mmr.config.paths import user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo

FINDING = {"severity": "P1", "location": "a.py:1", "description": "The value is wrong here",
           "suggestion": "Use the right value"}


def mmr_command() -> list[str]:
    found = shutil.which("mmr")
    return [found] if found else [sys.executable, "-m", "mmr"]


def run_in_terminal(args: list[str], cwd: Path, timeout: float = 120) -> tuple[int, str]:
    """Run ``mmr args`` with stdout on a pseudo-terminal; its exit code and what it printed."""
    master, slave = pty.openpty()
    process = subprocess.Popen([*mmr_command(), *args], cwd=cwd, stdout=slave,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                               env=dict(os.environ))
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed its end of the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif process.poll() is not None:
                break
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def run_piped(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*mmr_command(), *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ), timeout=120, check=False)


def two_reviewers(fake_cli: FakeCliFactory, extra: dict[str, object] | None = None) -> None:
    fake_cli("rev1", stdout={"approved": False, "findings": [FINDING], "summary": "one"})
    fake_cli("rev2", stdout={"approved": True, "findings": [], "summary": "ok"})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({
        "channels": {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}},
        "channels_disabled": ENABLED_BUILTINS, **(extra or {}),
    }))


def changed_repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    repo.write({"a.py": "x = 2\n"})
    return repo


def test_a_terminal_gets_the_text_report_and_a_pipe_gets_json(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    two_reviewers(fake_cli)
    code, shown = run_in_terminal(["review", "--sync"], repo.root)
    assert code == 2
    assert "blocked" in shown.lower() and "The value is wrong here" in shown
    assert not shown.lstrip().startswith("{") and "description_shingle" not in shown
    job_id = next(word for word in shown.split() if word.startswith("mmr-"))
    # The job did not record the terminal's choice: a script reading it still gets JSON,
    # and a person reading it at a terminal gets text.
    piped = run_piped(["results", job_id], repo.root)
    assert json.loads(piped.stdout)["verdict"] == "blocked"
    code, shown = run_in_terminal(["results", job_id], repo.root)
    assert code == 2 and not shown.lstrip().startswith("{") and "blocked" in shown.lower()


def test_a_chosen_format_wins_over_the_terminal(tmp_path: Path,
                                                fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    two_reviewers(fake_cli, {"defaults": {"format": "json"}})
    code, shown = run_in_terminal(["review", "--sync"], repo.root)
    assert code == 2 and json.loads(shown)["verdict"] == "blocked"
    code, shown = run_in_terminal(["review", "--sync", "--format", "markdown"], repo.root)
    assert code == 2 and not shown.lstrip().startswith("{")
    job_id = json.loads(run_piped(["review", "--sync"], repo.root).stdout)["job_id"]
    code, shown = run_in_terminal(["results", job_id], repo.root)
    assert json.loads(shown)["job_id"] == job_id  # the review's chosen format, kept


def only_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_a_committed_branch_is_told_to_review_with_its_default_branch(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    upstream = GitRepo.create(tmp_path / "upstream", {"a.py": "x = 1\n"})
    upstream.git("branch", "-m", "main", "trunk")
    subprocess.run(["git", "clone", "-q", str(upstream.root), str(tmp_path / "clone")],
                   check=True, capture_output=True)
    repo = GitRepo(tmp_path / "clone")
    repo.git("config", "commit.gpgsign", "false")
    repo.branch("feature")
    repo.commit({"a.py": "x = 2\n"})
    two_reviewers(fake_cli)
    for args in (["review"], ["review", "--dry-run"], ["review", "--sync"]):
        done = run_piped(args, repo.root)
        assert done.returncode == 1, done.stderr
        assert only_line(done.stderr) == ("mmr: error: nothing uncommitted; review the branch "
                                          "with `mmr review --base origin/trunk`")
        assert done.stdout == ""


def test_input_that_is_not_a_diff_is_refused_before_any_reviewer_runs(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    two_reviewers(fake_cli)
    reviewer = fake_cli("rev1", stdout={"approved": True, "findings": [], "summary": "ok"})
    for given, word in ((b"please review my change to a.py\nx = 2\n", "not a unified diff"),
                        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00", "binary")):
        done = subprocess.run([*mmr_command(), "review", "--diff", "-", "--sync"],
                              cwd=repo.root, input=given, capture_output=True,
                              env=dict(os.environ), timeout=120, check=False)
        assert done.returncode == 1, done.stderr
        line = only_line(done.stderr.decode())
        assert word in line and "git diff" in line
        assert done.stdout == b""
    assert reviewer.calls() == []


def test_status_exits_2_for_a_channel_that_was_not_installed(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    fake_cli("rev1", stdout={"approved": True, "findings": [], "summary": "ok"})
    fake_cli("rev2", stdout={"approved": True, "findings": [], "summary": "ok"})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({
        "channels": {"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"},
                     "absent": {"command": "no-such-reviewer-cli"}},
        "channels_disabled": ENABLED_BUILTINS,
    }))
    review = run_piped(["review", "--sync"], repo.root)
    assert review.returncode == 0, review.stderr  # two reviewers reported: a pass
    job_id = json.loads(review.stdout)["job_id"]
    status = run_piped(["status", job_id], repo.root)
    assert json.loads(status.stdout)["channels"]["absent"]["status"] == "not_installed"
    assert status.returncode == 2  # a channel could not run, as MMR 4.0.1 says


def test_dash_h_is_help(tmp_path: Path) -> None:
    for args in (["-h"], ["review", "-h"], ["jobs", "prune", "-h"]):
        done = run_piped(args, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("Usage: mmr") and done.stderr == ""
        assert done.stdout == run_piped([*args[:-1], "--help"], tmp_path).stdout


def test_a_missing_antigravity_says_how_to_install_it(tmp_path: Path) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    done = subprocess.run([*mmr_command(), "doctor"], cwd=repo.root, capture_output=True,
                          text=True, env={**os.environ, "PATH": str(Path(sys.executable).parent)
                                          + os.pathsep + "/usr/bin:/bin"},
                          timeout=120, check=False)
    hint = next(line for line in done.stdout.splitlines()
                if "install agy" in line or ("antigravity" in line and "→" in line))
    assert "Google Antigravity" in hint, done.stdout


def test_a_missing_base_is_said_once(tmp_path: Path) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    done = run_piped(["review", "--base", "nosuchref", "--sync"], repo.root)
    assert done.returncode == 1
    assert only_line(done.stderr) == ("mmr: error: unknown git ref 'nosuchref' for --base; "
                                      "check the name, or fetch it first")


def test_jobs_prune_and_ack_prune_print_one_compact_line_each(tmp_path: Path) -> None:
    repo = GitRepo.create(tmp_path / "repo", {"a.py": "x = 1\n"})
    for args, key in ((["jobs", "prune"], "pruned"), (["ack", "prune"], "pruned")):
        done = run_piped(args, repo.root)
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("\n") == 1 and ": " not in done.stdout
        assert key in json.loads(done.stdout)


def path_without_gh() -> str:
    kept = [entry for entry in os.environ.get("PATH", "").split(os.pathsep)
            if entry and not (Path(entry) / "gh").exists()]
    return os.pathsep.join(kept)


def test_no_gh_is_said_once_and_names_only_what_the_command_has(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = changed_repo(tmp_path)
    two_reviewers(fake_cli)
    saved = tmp_path / "verdict.json"
    saved.write_text(run_piped(["review", "--sync"], repo.root).stdout)
    env = {**os.environ, "PATH": path_without_gh()}
    review = subprocess.run([*mmr_command(), "review", "--pr", "3", "--sync"], cwd=repo.root,
                            capture_output=True, text=True, env=env, timeout=120, check=False)
    assert review.returncode == 1
    assert "'gh' not found on PATH" in only_line(review.stderr)
    comment = subprocess.run([*mmr_command(), "comment", "--pr", "3", "--results", str(saved)],
                             cwd=repo.root, capture_output=True, text=True, env=env,
                             timeout=120, check=False)
    assert comment.returncode == 1
    line = only_line(comment.stderr)
    assert "'gh' not found on PATH" in line and "--diff" not in line, line
