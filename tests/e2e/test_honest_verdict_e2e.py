"""Issue 13 through the installed ``mmr``: no reported finding vanishes, no unusable reply
reads as a clean pass, and every report says why a channel failed.

Each test is a case from the issue's "Why", reviewed end to end (a real repository, fake
reviewer executables, the console script in a subprocess).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import yaml

from mmr.config.paths import user_config_path
from tests.builtin_channels import ENABLED_BUILTINS
from tests.e2e.test_review_e2e import mmr_command
from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo

CLEAN = {"approved": True, "findings": [], "summary": "ok"}
CALC = "".join(f"line{i} = {i}\n" for i in range(1, 23))  # 22 lines


def finding(location: str, severity: str = "P0", description: str = "") -> dict[str, str]:
    return {"severity": severity, "location": location,
            "description": description or f"Problem reported at {location}",
            "suggestion": "Fix it"}


def setup(tmp_path: Path, fake_cli: FakeCliFactory, replies: dict[str, Any],
          defaults: dict[str, Any] | None = None,
          extra_channels: dict[str, Any] | None = None) -> GitRepo:
    """A repo whose change touches calc.py (ledger.py and README.md untouched), one fake
    channel per reply, the built-in channels off."""
    repo = GitRepo.create(tmp_path / "repo", {"calc.py": CALC, "ledger.py": "x = 1\ny = 2\n",
                                              "README.md": "# Install\n"})
    repo.write({"calc.py": CALC.replace("line2 = 2", "line2 = 2 / count")})
    channels: dict[str, Any] = {}
    for name, reply in replies.items():
        if isinstance(reply, dict) and "fake" in reply:
            fake_cli(name, **reply["fake"])
        else:
            fake_cli(name, stdout=reply)
        channels[name] = {"command": name}
    channels.update(extra_channels or {})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"channels": channels, "channels_disabled": ENABLED_BUILTINS,
                                    "defaults": defaults or {}}))
    return repo


def mmr(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*mmr_command(), *args], cwd=repo.root, capture_output=True,
                          text=True, env=dict(os.environ), timeout=120, check=False)


def review(repo: GitRepo) -> tuple[int, dict[str, Any]]:
    done = mmr(repo, "review", "--sync", "--format", "json")
    assert done.stdout, done.stderr
    doc = json.loads(done.stdout)
    return done.returncode, doc


def render(repo: GitRepo, job_id: str, fmt: str) -> str:
    done = mmr(repo, "results", job_id, "--format", fmt)
    assert done.stdout, done.stderr
    return done.stdout


def test_findings_outside_the_diff_are_kept_shown_and_not_gated_by_default(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    off = [finding("unknown", "P1"), finding("README.md § Install", "P1"),
           finding("ledger.py:2", "P1", "Callers in ledger.py now divide by zero"),
           finding("src/calc.py:2", "P1"), finding("calc.py:5638791", "P2")]
    repo = setup(tmp_path, fake_cli, {"rev1": {"approved": False, "findings": off},
                                      "rev2": CLEAN})
    code, doc = review(repo)
    # Reference-compatible fields: the in-diff view is unchanged (nothing in the diff).
    assert (code, doc["verdict"], doc["reconciled_findings"]) == (0, "pass", [])
    assert doc["per_channel"]["rev1"]["findings"] == []
    # Nothing vanished: every finding is in exactly one new place, per channel and reconciled.
    channel = doc["per_channel"]["rev1"]
    assert [f["location"] for f in channel["outside_diff_findings"]] == ["ledger.py:2"]
    assert [f["location"] for f in channel["unanchored_findings"]] == [
        "unknown", "README.md § Install", "src/calc.py:2", "calc.py:5638791"]
    assert [f["location"] for f in doc["outside_diff_findings"]] == ["ledger.py:2"]
    assert len(doc["unanchored_findings"]) == 4
    assert doc["metadata"]["outside_diff_count"] == 1
    assert doc["metadata"]["unanchored_count"] == 4
    assert doc["metadata"]["ungated_count"] == 5
    assert doc["outside_diff_gate"] == "advisory"
    assert "not gated: 1 finding outside the diff (worst P1), 4 unanchored findings (worst P1)" \
        in doc["summary"]
    assert doc["coverage"]["files"] == 1 and doc["coverage"]["partial"] is False

    text = render(repo, doc["job_id"], "text")
    assert "No findings.\n" not in text
    assert "Outside the diff (1)" in text and "Unanchored (4)" in text
    assert "[P1] ledger.py:2" in text and "[P2] calc.py:5638791" in text
    assert "Verdict: Review passed — not gated" in text
    assert "Coverage: 1 file(s), +1/-1 line(s); complete" in text
    markdown = render(repo, doc["job_id"], "markdown")
    assert "No findings.\n" not in markdown
    assert "### Outside the diff (1)" in markdown and "### Unanchored (4)" in markdown
    assert "| P1 | ledger.py:2 |" in markdown
    sarif = json.loads(render(repo, doc["job_id"], "sarif"))
    places = [(r["properties"]["place"], r["properties"]["location"], r["level"])
              for r in sarif["runs"][0]["results"]]
    assert ("outside_diff", "ledger.py:2", "warning") in places
    assert ("unanchored", "calc.py:5638791", "warning") in places
    assert len(places) == 5
    unanchored = [r for r in sarif["runs"][0]["results"]
                  if r["properties"]["place"] == "unanchored"]
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "."
               for r in unanchored)
    github = render(repo, doc["job_id"], "github")
    assert "::warning file=ledger.py,line=2," in github
    rdjsonl = render(repo, doc["job_id"], "rdjsonl").splitlines()
    assert len(rdjsonl) == 5 and all("not gated" in line for line in rdjsonl)


def test_a_p0_that_cannot_be_placed_does_not_pass(tmp_path: Path,
                                                  fake_cli: FakeCliFactory) -> None:
    # What a real small model wrote for two P0s: neither names a line of the diff.
    unplaced = [finding("in the diff header", "P0", "The migration drops the users table"),
                finding("app.db", "P0", "The database file is committed")]
    repo = setup(tmp_path, fake_cli, {"rev1": {"approved": False, "findings": unplaced},
                                      "rev2": CLEAN})
    code, doc = review(repo)
    assert (code, doc["verdict"]) == (3, "needs-user-decision")
    assert doc["summary"].startswith("A person must decide — 2 P0 finding(s) could not be "
                                     "placed in the diff")
    assert [f["location"] for f in doc["unanchored_findings"]] == ["in the diff header",
                                                                   "app.db"]
    text = render(repo, doc["job_id"], "text")
    assert "[P0] in the diff header" in text and "[P0] app.db" in text


def test_a_p0_outside_the_diff_does_not_pass_and_block_still_blocks(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    outside = {"approved": False, "findings": [finding("ledger.py:2")]}
    repo = setup(tmp_path, fake_cli, {"rev1": outside, "rev2": CLEAN})
    code, doc = review(repo)
    assert (code, doc["verdict"]) == (3, "needs-user-decision")
    repo = setup(tmp_path / "block", fake_cli, {"rev1": outside, "rev2": CLEAN},
                 defaults={"outside_diff_findings": "block"})
    code, doc = review(repo)
    assert (code, doc["verdict"]) == (2, "blocked")


def test_block_gates_findings_outside_the_diff(tmp_path: Path,
                                               fake_cli: FakeCliFactory) -> None:
    repo = setup(tmp_path, fake_cli,
                 {"rev1": {"approved": False, "findings": [finding("ledger.py:2")]},
                  "rev2": CLEAN}, defaults={"outside_diff_findings": "block"})
    code, doc = review(repo)
    assert (code, doc["verdict"]) == (2, "blocked")
    assert doc["reconciled_findings"] == []  # still reported apart, but gated
    assert doc["outside_diff_gate"] == "block"
    assert "ungated_count" not in doc["metadata"]


def test_locations_that_normalise_into_the_diff_gate(tmp_path: Path,
                                                     fake_cli: FakeCliFactory) -> None:
    repo = setup(tmp_path, fake_cli, {"rev1": {}, "rev2": CLEAN})
    absolute = f"{repo.root.resolve()}/calc.py:2"
    findings = [finding(absolute), finding("calc.py#L2", "P1", "Another problem"),
                finding("b/calc.py (line 2)", "P2", "Third problem")]
    fake_cli("rev1", stdout={"approved": False, "findings": findings})
    code, doc = review(repo)
    assert (code, doc["verdict"]) == (2, "blocked")
    assert sorted(f["location"] for f in doc["per_channel"]["rev1"]["findings"]) == [
        "b/calc.py (line 2)", "calc.py:2", "calc.py:2"]
    assert "unanchored_findings" not in doc and "outside_diff_findings" not in doc


def test_unusable_replies_are_failures_not_clean_passes(tmp_path: Path,
                                                        fake_cli: FakeCliFactory) -> None:
    repo = setup(tmp_path, fake_cli, {
        "prose": {"approved": True, "findings": "some prose"},
        "silent": {"approved": False, "findings": []},
        "rev": CLEAN,
    }, defaults={"min_completed_channels": 1})
    code, doc = review(repo)
    assert doc["verdict"] == "degraded-pass" and code == 0
    assert (doc["per_channel"]["prose"]["status"], doc["per_channel"]["prose"]["reason"]) == (
        "failed", "parse_error")
    assert '"findings" is a string' in doc["per_channel"]["prose"]["error"]
    assert '"approved": false with no findings' in doc["per_channel"]["silent"]["error"]
    text = render(repo, doc["job_id"], "text")
    # The default compensator (claude) cannot run here: no pass is attempted, no row says so.
    assert "Reviewers: 1 of 3 reported" in text and "compensating" not in text
    assert 'Reason: Failed to parse channel output: unusable reply: "findings" is a string' \
        in text


def test_a_clean_object_before_the_real_review_does_not_pass(tmp_path: Path,
                                                             fake_cli: FakeCliFactory) -> None:
    two = (json.dumps(CLEAN) + "\nOn reflection:\n"
           + json.dumps({"approved": False, "findings": [finding("calc.py:2")]}))
    bare = json.dumps(finding("calc.py:3", "P1", "A bare finding object"))
    repo = setup(tmp_path, fake_cli, {"rev1": two, "rev2": bare})
    code, doc = review(repo)
    assert (code, doc["verdict"]) == (2, "blocked")
    assert [f["location"] for f in doc["per_channel"]["rev1"]["findings"]] == ["calc.py:2"]
    assert [f["location"] for f in doc["per_channel"]["rev2"]["findings"]] == ["calc.py:3"]


def test_the_prompt_has_placeholders_one_object_and_the_gate_scale(
        tmp_path: Path, fake_cli: FakeCliFactory) -> None:
    repo = setup(tmp_path, fake_cli, {"rev1": CLEAN, "rev2": CLEAN})
    code, doc = review(repo)
    assert code == 0
    record = tmp_path / "fake-records" / "rev1.jsonl"  # what the fake reviewer was sent
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    # the review call is the one fed a prompt; version probes may finish after it
    [stdin] = [c["stdin"] for c in calls if c["stdin"]]
    assert "src/orders" not in stdin
    assert '"location": "<path as in the diff header>:<line>"' in stdin
    assert "exactly one JSON object and nothing" in stdin
    assert "naming, style" in stdin
    text = render(repo, doc["job_id"], "text")
    assert "Gate: P2 — P0-P2 block: improvements such as naming and style block too" in text
    explained = mmr(repo, "explain", "severity").stdout
    assert "fix_threshold: P1" in explained and "naming, style" in explained


def test_failure_reasons_hints_counts_and_elapsed(tmp_path: Path,
                                                  fake_cli: FakeCliFactory) -> None:
    flaky = {"fake": {"stdout": "", "stderr": "rate limited, try later", "exit_code": 1,
                      "sleep": 0.3}}
    repo = setup(tmp_path, fake_cli, {"flaky": flaky, "rev": CLEAN},
                 defaults={"min_completed_channels": 1})
    code, doc = review(repo)
    assert (code, doc["per_channel"]["flaky"]["status"]) == (0, "failed")
    text = render(repo, doc["job_id"], "text")
    assert "rate limited" in text.split("flaky: failed", 1)[1].split("\n")[1]
    assert "mmr config disable compensating-" not in text
    assert doc["metadata"]["total_elapsed"] != "0s"
    # The default compensator (claude) cannot run here: no pass is attempted.
    assert "compensating-flaky" not in doc["per_channel"]
    assert "Reviewers: 1 of 2 reported" in text
    markdown = render(repo, doc["job_id"], "markdown")
    assert "reason: Channel failed:" in markdown and "rate limited" in markdown


def test_a_refused_http_connection_is_not_an_auth_failure(tmp_path: Path,
                                                          fake_cli: FakeCliFactory) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    local = {"kind": "http", "endpoint": f"http://127.0.0.1:{port}/v1/chat/completions",
             "model": "m", "endpoint_convention": "openai-chat", "api_key_env": "TEST_KEY",
             "auth": {"timeout": 2}}
    repo = setup(tmp_path, fake_cli, {"rev": CLEAN}, defaults={"min_completed_channels": 1},
                 extra_channels={"local": local})
    os.environ["TEST_KEY"] = "k-123"
    try:
        _, doc = review(repo)
    finally:
        del os.environ["TEST_KEY"]
    entry = doc["per_channel"]["local"]
    assert entry["status"] == "failed", entry
    assert "connection refused" in entry["error"]
    assert "connection refused" in render(repo, doc["job_id"], "text")
