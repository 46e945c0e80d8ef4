"""``mmr demo`` and replay channels through the installed ``mmr``.

The demo must print a verdict on a fresh machine: a fresh HOME, no reviewer CLI on PATH,
no git repository, and nothing written where it runs. A replay channel serves a recorded
reply (a file, or an earlier job's stored reply) through the ordinary dispatch; a reply
that is not there stops the review before any job, with the step that fixes it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import yaml

from mmr.config.paths import jobs_dir, user_config_path
from mmr.resources import channels_dir
from tests.e2e.test_review_e2e import mmr_command

DIFF = ("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
        " def mean(values):\n"
        "-    return sum(values) / max(len(values), 1)\n"
        "+    return sum(values) / len(values)\n")
ZERO = {"severity": "P1", "location": "calc.py:2", "category": "correctness",
        "description": "mean divides by len(values), which is zero for an empty list.",
        "suggestion": "Keep the max(len(values), 1) guard."}


def run(cwd: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([*mmr_command(), *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def configure(channels: dict[str, Any]) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"channels": channels}), encoding="utf-8")


def reply(*findings: dict[str, str]) -> str:
    return json.dumps({"approved": not findings, "findings": list(findings), "summary": "ok"})


def test_demo_prints_a_verdict_with_nothing_installed(tmp_path: Path) -> None:
    system_path = os.pathsep.join(p for p in ("/usr/bin", "/bin") if Path(p).is_dir())
    reviewers = [str(preset["command"]).split()[0]
                 for file in channels_dir().glob("*.yaml")
                 for preset in yaml.safe_load(file.read_text(encoding="utf-8")).values()
                 if preset.get("command")]
    assert reviewers and not [name for name in reviewers
                              if shutil.which(name, path=system_path)], "a reviewer CLI is on PATH"
    cwd = tmp_path / "empty"
    cwd.mkdir()
    started = time.monotonic()
    done = run(cwd, "demo", path=system_path)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("mmr demo: a real review of a bundled example change")
    assert "MMR BLOCKED" in out and "Reviewers: 3 of 3 reported" in out
    # three reviewers, three formats: agreement on the blocking findings, one unique
    assert "Sources: demo-codex, demo-opencode, demo-claude (consensus)" in out
    assert "Sources: demo-opencode (unique)" in out
    assert "tokens in 1,450" in out  # the claude-format envelope's usage was read
    assert "`mmr doctor`" in out and "`mmr review --base <default branch> --sync`" in out
    assert list(cwd.iterdir()) == [], "the demo wrote where it ran"
    assert not user_config_path().parent.exists(), "the demo wrote into mmr's home"
    assert elapsed < 30, f"the demo took {elapsed:.1f} s"


def test_replay_from_files_goes_through_parsing_and_the_gate(tmp_path: Path) -> None:
    (tmp_path / "change.diff").write_text(DIFF, encoding="utf-8")
    (tmp_path / "a.txt").write_text("Review:\n" + reply(ZERO), encoding="utf-8")
    (tmp_path / "b.txt").write_text("```json\n" + reply(ZERO) + "\n```\n", encoding="utf-8")
    configure({"a": {"kind": "replay", "replay": {"file": "a.txt"}},
               "b": {"kind": "replay", "replay": {"file": str(tmp_path / "b.txt")}}})
    done = run(tmp_path, "review", "--diff", "change.diff", "--sync", "--channels", "a,b")
    assert done.returncode == 2, done.stderr
    document = json.loads(done.stdout)
    assert document["verdict"] == "blocked"
    [finding] = document["reconciled_findings"]
    assert finding["location"] == "calc.py:2" and sorted(finding["sources"]) == ["a", "b"]


def test_replay_from_an_earlier_job_rescores_it(tmp_path: Path) -> None:
    (tmp_path / "change.diff").write_text(DIFF, encoding="utf-8")
    (tmp_path / "a.txt").write_text(reply(ZERO), encoding="utf-8")
    (tmp_path / "b.txt").write_text(reply(), encoding="utf-8")
    configure({"a": {"kind": "replay", "replay": {"file": "a.txt"}},
               "b": {"kind": "replay", "replay": {"file": "b.txt"}}})
    first = run(tmp_path, "review", "--diff", "change.diff", "--sync", "--channels", "a,b")
    assert first.returncode == 2, first.stderr
    job = json.loads(first.stdout)["job_id"]
    (tmp_path / "a.txt").unlink()  # the job's stored replies are what is served now
    (tmp_path / "b.txt").unlink()
    configure({"a": {"kind": "replay", "replay": {"job": job}},
               "old-b": {"kind": "replay", "replay": {"job": job, "channel": "b"}}})
    again = run(tmp_path, "review", "--diff", "change.diff", "--sync", "--no-cache",
                "--channels", "a,old-b", "--fix-threshold", "P0")
    assert again.returncode == 0, again.stderr
    document = json.loads(again.stdout)
    assert document["job_id"] != job and document["verdict"] == "pass"
    assert [f["severity"] for f in document["reconciled_findings"]] == ["P1"]  # below P0


def test_a_missing_reply_stops_the_review_with_the_next_step(tmp_path: Path) -> None:
    (tmp_path / "change.diff").write_text(DIFF, encoding="utf-8")
    configure({"gone": {"kind": "replay", "replay": {"file": "nope.txt"}},
               "lost": {"kind": "replay", "replay": {"job": "mmr-000000000000"}}})
    done = run(tmp_path, "review", "--diff", "change.diff", "--sync", "--channels", "gone,lost")
    assert done.returncode == 1, done.stderr
    assert ('gone: not_installed — replay file "nope.txt" not found; point '
            "channels.gone.replay.file at a recorded reply") in done.stderr
    assert ('lost: not_installed — job "mmr-000000000000" not found in '
            f"{jobs_dir()}; `mmr jobs list` shows the jobs kept") in done.stderr
    assert not list(jobs_dir().glob("mmr-*")), "a job was created"


def test_a_job_without_that_channel_names_its_channels(tmp_path: Path) -> None:
    (tmp_path / "change.diff").write_text(DIFF, encoding="utf-8")
    (tmp_path / "a.txt").write_text(reply(), encoding="utf-8")
    configure({"a": {"kind": "replay", "replay": {"file": "a.txt"}}})
    first = run(tmp_path, "review", "--diff", "change.diff", "--sync", "--channels", "a")
    job = json.loads(first.stdout)["job_id"]
    configure({"z": {"kind": "replay", "replay": {"job": job}}})
    done = run(tmp_path, "review", "--diff", "change.diff", "--sync", "--channels", "z")
    assert done.returncode == 1
    assert (f'z: not_installed — job "{job}" has no stored reply of channel "z"; '
            f"`mmr status {job}` lists its channels") in done.stderr
