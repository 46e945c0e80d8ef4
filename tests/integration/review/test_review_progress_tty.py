"""What a person sees while ``mmr review --sync`` waits (issue 18): on a terminal each
channel once (the gate's ``not_installed`` is not printed and then repeated by the live
table) and a ticking ``still waiting on: …``; in a log a heartbeat line.

The terminal test runs the installed ``mmr`` on a real pty and reads it through pyte, a
terminal emulator, so it checks the screen a person would see, not the bytes rich wrote.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sysconfig
import time
from pathlib import Path

import pyte
import pytest

from tests.cli_runner import RunMmr
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import CLEAN, write_user_config

WAITING = re.compile(r"still waiting on: rev1 \((\d+)s\)")


def gated_reviewer(tmp_path: Path) -> tuple[Path, Path]:
    """A reviewer that answers once ``release`` exists (the test decides when), or after a
    minute, so a broken display fails the test instead of hanging it."""
    release = tmp_path / "release"
    script = tmp_path / "bin" / "gated-rev"
    script.parent.mkdir(exist_ok=True)
    script.write_text("#!/bin/sh\ncat >/dev/null\n"
                      f"n=0; while [ ! -e {release} ] && [ $n -lt 1200 ]; do "
                      "sleep 0.05; n=$((n + 1)); done\n"
                      f"echo '{json.dumps(CLEAN)}'\n")
    script.chmod(0o755)
    return script, release


def test_a_terminal_shows_each_channel_once_and_a_ticking_wait(
        repo: GitRepo, tmp_path: Path) -> None:
    script, release = gated_reviewer(tmp_path)
    write_user_config({"rev1": {"command": str(script)}, "gone": {"command": "gone-tool"}},
                      defaults={"min_completed_channels": 1})
    mmr = Path(sysconfig.get_path("scripts")) / "mmr"
    screen = pyte.Screen(120, 40)
    stream = pyte.ByteStream(screen)
    leader, follower = os.openpty()
    out = (tmp_path / "stdout").open("wb")
    env = {**os.environ, "TERM": "xterm-256color", "NO_COLOR": "1", "COLUMNS": "120",
           "LINES": "40"}
    process = subprocess.Popen([str(mmr), "review", "--sync"], cwd=repo.root, env=env,
                               stdin=subprocess.DEVNULL, stdout=out, stderr=follower)
    os.close(follower)
    seen: set[int] = set()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # EIO: the last writer closed the pty
                    break
                if not chunk:
                    break
                stream.feed(chunk)
            seen.update(int(m.group(1)) for line in screen.display
                        if (m := WAITING.search(line)))
            if len(seen) >= 2:
                release.touch()  # the wait ticked on screen: let the reviewer answer
    finally:
        release.touch()
        os.close(leader)
        process.wait(timeout=60)
        out.close()
    assert process.returncode == 0, (tmp_path / "stdout").read_text()
    assert len(seen) >= 2, "\n".join(screen.display)
    text = [line.rstrip() for line in screen.display if line.strip()]
    # Once: the table's row. (Before issue 18 a `[mmr] gone: not_installed` line came first.)
    assert [line for line in text if "not_installed" in line] == ["gone  not_installed"], \
        "\n".join(text)
    assert not any("still waiting on" in line for line in text), "\n".join(text)  # settled


def test_a_log_gets_a_heartbeat_while_the_review_waits(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    script, release = gated_reviewer(tmp_path)
    write_user_config({"rev1": {"command": str(script)}, "gone": {"command": "gone-tool"}},
                      defaults={"min_completed_channels": 1})
    monkeypatch.setattr("mmr.review.progress.HEARTBEAT_S", 0.05)
    beats: list[str] = []
    real_write = __import__("mmr.review.progress", fromlist=["ProgressDisplay"]) \
        .ProgressDisplay._write

    def write(self: object, line: str) -> None:
        real_write(self, line)  # type: ignore[arg-type]
        if line.startswith("[mmr] still waiting on: rev1 ("):
            beats.append(line)
            release.touch()  # one heartbeat seen: the reviewer may answer

    monkeypatch.setattr("mmr.review.progress.ProgressDisplay._write", write)
    result = run_mmr("review", "--sync", cwd=repo.root)
    assert result.code == 0, result.err
    assert beats, result.err
    assert any(line.startswith("[mmr] still waiting on: rev1 (")
               for line in result.err.splitlines())
