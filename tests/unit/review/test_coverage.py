"""The ``coverage`` object of a job (issue 13)."""

from __future__ import annotations

from mmr.reconcile.anchoring import DiffScope
from mmr.review.coverage import job_coverage
from mmr.store.records import ChannelJobEntry, JobRecord

DIFF = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n"


def test_coverage_names_what_each_channel_did_not_see() -> None:
    job = JobRecord(job_id="mmr-000000000001", excluded_files=["package-lock.json"], channels={
        "rev1": ChannelJobEntry(status="completed"),
        "rev2": ChannelJobEntry.model_validate({"status": "completed",
                                                "excluded_files": ["docs/a.md"]}),
        "big": ChannelJobEntry(status="skipped", reason="diff_too_large"),
        "gone": ChannelJobEntry(status="skipped", reason="not_found"),
    })
    diff = DIFF + "+token = <redacted:github-token>\n"
    coverage = job_coverage(job, DiffScope.from_diff(DIFF, None), diff)
    assert coverage.to_json_dict() == {
        "files": 1, "lines_added": 1, "lines_removed": 1, "diff_lines": 7,
        "redacted_credentials": 1,
        "excluded_files": ["package-lock.json"],
        "channels": [{"channel": "rev2", "excluded_files": ["docs/a.md"]},
                     {"channel": "big", "excluded_files": [], "skipped": "diff_too_large"}],
        "partial": True,
    }


def test_a_full_review_is_not_partial() -> None:
    job = JobRecord(job_id="mmr-000000000002",
                    channels={"rev": ChannelJobEntry(status="completed")})
    coverage = job_coverage(job, DiffScope.from_diff(DIFF, None), DIFF)
    assert (coverage.partial, coverage.channels, coverage.excluded_files) == (False, [], [])
