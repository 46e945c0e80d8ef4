"""A reply over mmr's limits says so in the result a user reads (issue 16).

One channel sends 507 findings, the first with a 8.5 MB description; the limits keep 500
and cut the description to 8 KiB. The cut must be visible in ``per_channel.<ch>.note`` of
the JSON, and as a ``Note:`` in the text report, not only inside the parsed summary that no
format prints.
"""

from __future__ import annotations

import json

from mmr.parsers.limits import MAX_FIELD_CHARS, MAX_FINDINGS
from tests.fakes.plugin import FakeCliFactory
from tests.integration.faults.conftest import (
    CLEAN,
    NO_COMPENSATOR,
    NO_COMPENSATOR_DEFAULTS,
    RunMmr,
    job_ids,
    write_user_config,
)
from tests.integration.git_repo_builder import GitRepo
from tests.integration.review.conftest import finding

NOTE = (f"[mmr: 7 findings over the limit of {MAX_FINDINGS} per channel were dropped; "
        f"1 findings had a description or suggestion cut to {MAX_FIELD_CHARS} characters]")


def test_the_reply_limits_are_noted_in_json_and_text(
        repo: GitRepo, fake_cli: FakeCliFactory, run_mmr: RunMmr) -> None:
    findings = [finding(location=f"src/app.py:{1 + i % 3}", severity="P3",
                        description=f"Nit number {i} about naming") for i in range(507)]
    findings[0] = finding(severity="P3", description="word " * (1_700_000))
    fake_cli("flood", stdout={"approved": True, "findings": findings, "summary": "many"})
    fake_cli("clean", stdout=CLEAN)
    write_user_config({"flood": {"command": "flood"}, "clean": {"command": "clean"},
                       **NO_COMPENSATOR}, defaults=NO_COMPENSATOR_DEFAULTS)

    review = run_mmr("review", "--sync", cwd=repo.root)
    assert review.code == 0, review.err
    doc = json.loads(review.out)
    flood = doc["per_channel"]["flood"]
    assert flood["note"] == NOTE
    assert len(flood["findings"]) == MAX_FINDINGS
    assert len(flood["findings"][0]["description"]) == MAX_FIELD_CHARS + len(" […]")
    assert "note" not in doc["per_channel"]["clean"]
    assert len(review.out) < 2_000_000  # no 8 MB field (or its shingle) on stdout

    [job_id] = job_ids()
    text = run_mmr("results", job_id, "--format", "text", cwd=repo.root)
    assert f"    Note: {NOTE}" in text.out.splitlines()
