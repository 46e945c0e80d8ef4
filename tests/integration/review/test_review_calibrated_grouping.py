"""One defect told by three reviewers in their own words at nearby lines is one finding,
end to end through the installed ``mmr`` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.plugin import FakeCliFactory
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import reply, write_user_config

MMR = Path(sys.executable).with_name("mmr")  # the console script the package installs
WORDINGS = {
    "rev1": ("src/app.py:2", "Off-by-one: range(n + 1) iterates one time too many and "
                             "prints n as well"),
    "rev2": ("src/app.py:3", "The loop prints n + 1 values because range(n + 1) includes n"),
    "rev3": ("src/app.py:2", "Loop bound is off by one; range should stop before n + 1"),
}


def _review(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(MMR), "review", "--sync", *args], cwd=repo.root,
                          env=dict(os.environ), capture_output=True, text=True, timeout=120,
                          check=False)


def _three_reviewers(fake_cli: FakeCliFactory, **defaults: object) -> None:
    for name, (location, description) in WORDINGS.items():
        fake_cli(name, stdout=reply({"severity": "P1", "location": location,
                                     "description": description, "suggestion": "Use range(n)"}))
    write_user_config({name: {"command": name} for name in WORDINGS}, defaults or None)


def test_three_wordings_of_one_defect_are_one_consensus_finding(
        repo: GitRepo, fake_cli: FakeCliFactory) -> None:
    _three_reviewers(fake_cli)
    done = _review(repo)
    assert done.returncode == 2, done.stderr
    doc = json.loads(done.stdout)
    [merged] = doc["reconciled_findings"]
    assert (merged["agreement"], merged["confidence"]) == ("consensus", "high")
    assert sorted(merged["sources"]) == ["rev1", "rev2", "rev3"]
    assert sorted((m["channel"], m["location"], m["description"])
                  for m in merged["members"]) == sorted(
        (name, *told) for name, told in WORDINGS.items())
    text = _review(repo, "--format", "text").stdout
    assert "agree; other wordings:" in text
    assert text.count("      - rev") == 2


def test_reference_rule_keeps_three_unique_findings(repo: GitRepo,
                                                     fake_cli: FakeCliFactory) -> None:
    _three_reviewers(fake_cli, reconcile="reference")
    doc = json.loads(_review(repo).stdout)
    assert [f["agreement"] for f in doc["reconciled_findings"]] == ["unique"] * 3
    assert all("members" not in f for f in doc["reconciled_findings"])
