"""Issue 19, "spawn first": the early start of ``review --sync`` and its adoption.

Every run here is the real console entry point in a child process (``python -m mmr``), so
the early start runs where it does for a user: before the heavy imports, with the
process's own signal handling and exit. The second of two identical runs finds the
first run's recipe, starts the channel early, and the pipeline adopts it; anything that
changes what would be dispatched, a tampered recipe or a review that stops early leaves
no adopted child and no process behind.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mmr.config.paths import mmr_home
from tests.fakes.plugin import FakeCliFactory, wait_until_gone
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, write_user_config

ONE = {"min_completed_channels": 1}
_ADOPTED = re.compile(r"event='process\.adopted' pid=(\d+)")
_SPAWNED = re.compile(r"event='process\.spawned' pid=(\d+) request='\[(\S+)\]")


REVIEW = [sys.executable, "-m", "mmr", "review", "--sync", "--quiet", "--no-cache"]


def review_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every run of a test (it is part of the early start's key)."""
    return {**os.environ, "MMR_DEBUG": "1", **(extra or {})}


def review(repo: GitRepo, *args: str, env: dict[str, str] | None = None,
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*REVIEW, *args], cwd=repo.root, env=review_env(env),
                          capture_output=True, text=True, timeout=120, check=False)


def recipes() -> list[Path]:
    root = mmr_home() / "cache" / "early"
    return sorted(root.glob("*.json")) if root.is_dir() else []


def adopted(run: subprocess.CompletedProcess[str]) -> list[int]:
    return [int(pid) for pid in _ADOPTED.findall(run.stderr)]


def spawned_channels(run: subprocess.CompletedProcess[str]) -> list[str]:
    return [label for _, label in _SPAWNED.findall(run.stderr) if label != "version"]


def running_commands(needle: str) -> list[int]:
    """Live (non-zombie) processes whose command line mentions ``needle``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if needle in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def comparable(document: str) -> str:
    """A verdict document without what differs between any two runs: ids and times."""
    document = re.sub(r"mmr-[0-9a-f]{12}", "<job>", document)
    document = re.sub(r'"elapsed": "[^"]*"', '"elapsed": "<t>"', document)
    return re.sub(r"\b\d+(\.\d+)?s\b", "<t>", document)


@pytest.fixture
def rev1(fake_cli: FakeCliFactory) -> Any:
    fake = fake_cli("rev1", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}}, ONE)
    return fake


def test_a_second_identical_review_adopts_the_child_started_early(repo: GitRepo,
                                                                 rev1: Any) -> None:
    first = review(repo)
    assert first.returncode == 0, first.stderr
    assert adopted(first) == [] and spawned_channels(first) == ["rev1"]
    [recipe] = recipes()
    assert recipe.stat().st_mode & 0o777 == 0o600
    assert json.loads(recipe.read_text())["channels"][0]["argv"] == ["rev1"]

    second = review(repo)

    assert second.returncode == 0, second.stderr
    [pid] = adopted(second)
    assert spawned_channels(second) == []  # the pipeline started no child of its own
    calls = rev1.calls()
    assert len(calls) == 2  # one child per run: nothing was started twice
    assert calls[-1]["pid"] == pid and calls[-1]["stdin"] == calls[0]["stdin"]
    assert json.loads(second.stdout)["per_channel"]["rev1"]["status"] == "completed"
    assert running_commands(str(rev1.path)) == []


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_the_output_is_the_same_with_and_without_the_early_start(
        repo: GitRepo, fake_cli: FakeCliFactory, fmt: str) -> None:
    finding = {"severity": "P1", "location": "src/app.py:2",
               "description": "Off-by-one in the loop bound", "suggestion": "Use <"}
    fake_cli("rev1", stdout={"approved": False, "findings": [finding], "summary": "one"})
    fake_cli("rev2", stdout=CLEAN)
    write_user_config({"rev1": {"command": "rev1"}, "rev2": {"command": "rev2"}})
    on = {"MMR_EARLY_START": "1"}
    review(repo, "--format", fmt, env=on)
    early = review(repo, "--format", fmt, env=on)
    plain = review(repo, "--format", fmt, env={"MMR_EARLY_START": "0"})

    assert len(adopted(early)) == 2 and adopted(plain) == []
    assert early.returncode == plain.returncode == 2
    assert comparable(early.stdout) == comparable(plain.stdout)
    assert early.stdout.count("\n") == plain.stdout.count("\n")


def test_a_changed_user_config_starts_nothing_early(repo: GitRepo, rev1: Any) -> None:
    review(repo)
    write_user_config({"rev1": {"command": "rev1", "timeout": 77}}, ONE)

    second = review(repo)

    assert second.returncode == 0, second.stderr
    assert adopted(second) == [] and spawned_channels(second) == ["rev1"]
    assert len(rev1.calls()) == 2  # no early child: the key changed
    assert running_commands(str(rev1.path)) == []


def test_a_diff_that_touches_the_project_config_starts_nothing_early(
        tmp_path: Path, rev1: Any) -> None:
    repo = GitRepo.create(tmp_path / "cfg", {"src/app.py": "x = 1\n", ".mmr.yaml": "version: 1\n"})
    repo.write({"src/app.py": "x = 2\n"})
    assert review(repo).returncode == 0
    assert len(recipes()) == 1
    repo.write({".mmr.yaml": "version: 1\n# proposed\n"})

    gated = review(repo)

    assert json.loads(gated.stdout)["proposed_config_change"] is True  # the gate holds it
    assert len(rev1.calls()) == 1  # nothing started, early or late
    assert running_commands(str(rev1.path)) == []


def _rewrite(recipe: Path, change: Any, *, redigest: bool) -> None:
    import hashlib

    data = json.loads(recipe.read_text())
    change(data)
    if redigest:
        body = {k: v for k, v in data.items() if k != "digest"}
        encoded = json.dumps(body, ensure_ascii=True, sort_keys=True).encode()
        data["digest"] = hashlib.sha256(encoded).hexdigest()
    recipe.write_text(json.dumps(data))


@pytest.mark.parametrize("tamper", ["argv", "extra-field", "group-writable"])
def test_a_tampered_recipe_is_ignored(repo: GitRepo, rev1: Any, tamper: str) -> None:
    review(repo)
    [recipe] = recipes()
    if tamper == "argv":  # an edit that did not come from mmr: the digest no longer fits
        _rewrite(recipe, lambda d: d["channels"][0]["argv"].append("--tampered"),
                 redigest=False)
    elif tamper == "extra-field":  # not the recipe's shape, even with a fitting digest
        _rewrite(recipe, lambda d: d["channels"][0].update(via_shell=1), redigest=True)
    else:
        recipe.chmod(0o620)

    second = review(repo)

    assert second.returncode == 0, second.stderr
    assert adopted(second) == []
    assert [call["argv"] for call in rev1.calls()] == [[], []]  # nothing ran early


def test_a_speculative_child_that_does_not_match_is_killed_not_adopted(
        repo: GitRepo, rev1: Any) -> None:
    review(repo)
    [recipe] = recipes()
    _rewrite(recipe, lambda d: d["channels"][0]["argv"].append("--speculated"),
             redigest=True)

    second = review(repo)

    assert second.returncode == 0, second.stderr
    assert adopted(second) == [] and spawned_channels(second) == ["rev1"]
    assert json.loads(second.stdout)["per_channel"]["rev1"]["status"] == "completed"
    assert running_commands(str(rev1.path)) == []


CHANNEL = """#!{python}
import json, os, sys, time
if sys.argv[1:] == ["--version"]:
    sys.exit(print("gated 1.0"))
sys.stdin.buffer.read()
with open({pids!r}, "a") as out:
    out.write(f"{{os.getpid()}}\\n")
if os.path.exists({block!r}):
    time.sleep(60)
print(json.dumps({{"approved": True, "findings": [], "summary": "ok"}}))
"""
AUTH = """#!{python}
import os, sys, time
if os.path.exists({fail!r}):
    sys.exit(1)
if os.path.exists({block!r}):
    with open({started!r}, "w") as out:
        out.write(str(os.getpid()))
    time.sleep(60)
"""


class Gated:
    """A channel whose auth check can be made to hang or to fail, by files the test
    creates; the channel records each pid it ran as, and hangs while ``block`` exists."""

    def __init__(self, root: Path) -> None:
        bin_dir = root / "gated-bin"
        bin_dir.mkdir()
        self.pids, self.block = root / "pids", root / "block"
        self.fail, self.started = root / "fail", root / "auth-started"
        self.channel, self.auth = bin_dir / "gated", bin_dir / "gated-auth"
        self.channel.write_text(CHANNEL.format(python=sys.executable, pids=str(self.pids),
                                               block=str(self.block)))
        self.auth.write_text(AUTH.format(python=sys.executable, fail=str(self.fail),
                                         block=str(self.block), started=str(self.started)))
        for path in (self.channel, self.auth):
            path.chmod(0o755)
        write_user_config({"gated": {"command": str(self.channel), "auth": {
            "check": str(self.auth), "failure_exit_codes": [1], "recovery": "log in"}}}, ONE)

    def ran(self) -> list[int]:
        return [int(p) for p in self.pids.read_text().split()] if self.pids.exists() else []

    def cleanup(self) -> None:
        for pid in [*self.ran(), *([int(self.started.read_text())]
                                   if self.started.exists() else [])]:
            with __import__("contextlib").suppress(ProcessLookupError, ValueError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def gated(tmp_path: Path) -> Any:
    channel = Gated(tmp_path)
    yield channel
    channel.cleanup()


def _wait_for(predicate: Any, what: str) -> None:
    import time

    deadline = time.monotonic() + 60
    while not predicate():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_before_the_dispatch_leaves_no_early_child(
        repo: GitRepo, gated: Gated, sig: signal.Signals) -> None:
    assert review(repo).returncode == 0
    gated.block.touch()  # the auth check now hangs: the early child waits to be adopted
    mmr = subprocess.Popen(REVIEW, cwd=repo.root, env=review_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: gated.started.exists() and len(gated.ran()) == 2,
                  "the auth check and the early child both running")
        early_child = gated.ran()[-1]
        mmr.send_signal(sig)
        mmr.communicate(timeout=60)
    finally:
        if mmr.poll() is None:
            mmr.kill()
    assert mmr.returncode == 128 + sig
    assert wait_until_gone(early_child, timeout=10)
    assert running_commands(str(gated.channel)) == []


def test_a_review_that_stops_before_the_dispatch_leaves_no_early_child(
        repo: GitRepo, gated: Gated) -> None:
    assert review(repo).returncode == 0
    gated.fail.touch()  # the auth check now fails: no channel is dispatched

    stopped = review(repo)

    assert stopped.returncode != 0
    assert "No channels passed auth check" in stopped.stderr
    assert len(gated.ran()) == 2  # the early child did start...
    assert wait_until_gone(gated.ran()[-1], timeout=10)  # ...and was killed, not left
    assert running_commands(str(gated.channel)) == []


@pytest.mark.parametrize("setting", [
    {"prompt_delivery": "prompt-file", "flags": ["{{prompt_file}}"]},
    {"env": {"HOME": "{{neutral_home}}"}},
    {"assert_clean_tree": True},
    {"env": {"REVIEW_API_KEY": "sk-live-" + "4f3e2d1c0b9a" * 2}},
], ids=["prompt-file", "neutral-posture", "assert-clean-tree", "secret-env"])
def test_a_channel_that_cannot_be_replayed_is_never_recorded(
        repo: GitRepo, rev1: Any, setting: dict[str, Any]) -> None:
    write_user_config({"rev1": {"command": "rev1", **setting}}, ONE)
    first = review(repo)
    assert first.returncode == 0, first.stderr
    second = review(repo)
    assert recipes() == [] and adopted(second) == []
    assert spawned_channels(second) == ["rev1"] and len(rev1.calls()) == 2


def test_mmr_early_start_0_starts_nothing_early(repo: GitRepo, rev1: Any) -> None:
    off = {"MMR_EARLY_START": "0"}
    review(repo, env=off)
    second = review(repo, env=off)
    assert adopted(second) == [] and spawned_channels(second) == ["rev1"]
    assert recipes() == []


def test_a_diff_read_from_a_stream_is_read_once_by_the_pipeline(repo: GitRepo,
                                                                rev1: Any) -> None:
    """``--diff /dev/stdin`` (or a FIFO, ``<(git diff)``): the early start must not take
    what the pipeline then cannot read again; the second run used to say "No diff
    content found" (a named FIFO hung it)."""
    patch = ("diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
             "@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    runs = [subprocess.run([*REVIEW, "--diff", "/dev/stdin"], cwd=repo.root, env=review_env(),
                           input=patch, capture_output=True, text=True, timeout=120,
                           check=False) for _ in range(2)]

    assert [run.returncode for run in runs] == [0, 0], runs[1].stderr
    assert adopted(runs[1]) == [] and spawned_channels(runs[1]) == ["rev1"]
    assert [call["stdin"].count("+x = 2") for call in rev1.calls()] == [1, 1]
