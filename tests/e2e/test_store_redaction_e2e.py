"""Nothing a reviewer prints reaches the job store unredacted, however its run ends.

Through the installed ``mmr``: a real repository, fake reviewers that print a credential
on stdout, the console script in a subprocess. After the run, and while it still runs,
no file under ``MMR_HOME`` holds the credential: a reply too large to parse, a channel
that times out, and a worker killed with SIGKILL mid-run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from mmr.config.paths import user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.e2e.test_review_e2e import mmr_command
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
CLEAN = {"approved": True, "findings": [], "summary": "ok"}
#: Prints the credential, says so through a marker file, then sleeps until killed.
PRINT_THEN_HANG = """#!{python}
import sys, time
sys.stdin.read()
print("debug: using token = {token} for the API")
print("progress line\\n" * 10000, flush=True)  # more than any write buffer holds
open({marker!r}, "w").write("printed")
time.sleep(60)
"""


def setup(tmp_path: Path, fake_cli: FakeCliFactory, **leaker: object) -> GitRepo:
    repo = GitRepo.create(tmp_path / "repo", {"app.py": "x = 1\n"})
    repo.write({"app.py": "x = 2\n"})
    fake_cli("clean", stdout=CLEAN)
    channels = {"clean": {"command": "clean"}, "leaker": {"command": "leaker", **leaker}}
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"channels": channels, "channels_disabled": ENABLED_BUILTINS,
                                    "defaults": {"min_completed_channels": 1}}))
    return repo


def hanging_leaker(fake_cli: FakeCliFactory, tmp_path: Path) -> Path:
    """A ``leaker`` executable on the fakes' PATH; returns its marker file."""
    marker = tmp_path / "printed"
    path = fake_cli("clean", stdout=CLEAN).path.parent / "leaker"
    path.write_text(PRINT_THEN_HANG.format(python=sys.executable, token=TOKEN,
                                           marker=str(marker)))
    path.chmod(0o755)
    return marker


def mmr(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*mmr_command(), *args], cwd=repo.root, capture_output=True,
                          text=True, env=dict(os.environ), timeout=120, check=False)


def files_holding_the_token() -> list[Path]:
    home = Path(os.environ["MMR_HOME"])
    return [path for path in home.rglob("*")
            if path.is_file() and TOKEN.encode() in path.read_bytes()]


def wait_for(marker: Path) -> None:
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert time.monotonic() < deadline, "the fake reviewer never printed"
        time.sleep(0.05)
    time.sleep(0.5)  # the line is in mmr's pipe: give a tee every chance to write it


def test_the_head_of_a_reply_too_large_to_parse_is_kept_redacted(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = setup(tmp_path, fake_cli)
    fake_cli("leaker", stdout=f"debug: token = {TOKEN} in use\n", print_bytes=17 << 20)
    done = mmr(repo, "review", "--sync", "--format", "json")
    doc = json.loads(done.stdout)
    assert doc["per_channel"]["leaker"]["status"] == "failed"
    assert "so it was not parsed" in doc["per_channel"]["leaker"]["error"]
    assert files_holding_the_token() == []
    [head] = Path(os.environ["MMR_HOME"]).rglob("leaker.stdout")
    assert head.read_text() == "debug: token = <redacted:github-token> in use\n"


def test_a_channel_that_times_out_writes_nothing_raw_while_it_runs(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    marker = hanging_leaker(fake_cli, tmp_path)
    repo = setup(tmp_path, fake_cli, timeout=4)
    started = mmr(repo, "review", "--format", "json")
    job_id = json.loads(started.stdout)["job_id"]
    wait_for(marker)
    assert files_holding_the_token() == []  # while the channel still runs
    doc = json.loads(mmr(repo, "results", job_id, "--format", "json").stdout)
    assert doc["per_channel"]["leaker"]["status"] == "timeout"
    assert files_holding_the_token() == []


def test_a_worker_killed_mid_run_leaves_nothing_raw(tmp_path: Path,
                                                    fake_cli: FakeCliFactory) -> None:
    marker = hanging_leaker(fake_cli, tmp_path)
    repo = setup(tmp_path, fake_cli, timeout=60)
    started = json.loads(mmr(repo, "review", "--format", "json").stdout)
    wait_for(marker)
    os.kill(started["worker_pid"], signal.SIGKILL)
    time.sleep(1)  # the watchdog kills the channel
    assert files_holding_the_token() == []
