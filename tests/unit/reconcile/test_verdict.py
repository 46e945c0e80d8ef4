"""Gate, verdict branches, summaries and the results document."""

from __future__ import annotations

from typing import Any

import pytest

from mmr.models import ChannelResult, Finding, ReconciledFinding
from mmr.reconcile.reconciler import reconcile
from mmr.reconcile.verdict import (
    ChannelCounts,
    JobFacts,
    build_results,
    count_channels,
    decide,
    effective_floor,
    exit_code,
    is_approved,
    is_blocking,
    unreachable_floor_warning,
)


def _finding(severity: str = "P1", acknowledged: bool | None = None) -> ReconciledFinding:
    return ReconciledFinding.model_validate({
        "severity": severity, "location": "a.ts:1", "description": "d", "suggestion": "",
        "confidence": "medium", "sources": ["claude"], "agreement": "unique",
        "finding_key": "0" * 40, "description_shingle": [], "acknowledged": acknowledged,
    })


def _channel(status: str, findings: list[Finding] | None = None) -> ChannelResult:
    return ChannelResult.model_validate(
        {"status": status, "elapsed": "1.0s", "findings": findings or []})


def _counts(channels: int, completed: int, independent: int | None = None) -> ChannelCounts:
    return ChannelCounts(channels, completed, completed if independent is None else independent)


# --- gate ------------------------------------------------------------------------------

@pytest.mark.parametrize(("severity", "threshold", "blocks"), [
    ("P0", "P2", True), ("P2", "P2", True), ("P3", "P2", False),
    ("P1", "P0", False), ("P0", "P0", True), ("P3", "P3", True),
])
def test_a_finding_blocks_at_or_above_the_threshold(severity: str, threshold: str,
                                                    blocks: bool) -> None:
    assert is_blocking(_finding(severity), threshold) is blocks  # type: ignore[arg-type]


def test_acknowledged_findings_never_block_and_count_as_advisory() -> None:
    findings = [_finding("P0", acknowledged=True), _finding("P3"), _finding("P3", True),
                _finding("P1")]
    assert [is_blocking(f, "P2") for f in findings] == [False, False, False, True]
    results = build_results({"claude": _channel("completed")}, findings, JobFacts("j"))
    assert results.advisory_count == 3


# --- verdict branches and summaries -----------------------------------------------------

def _decide(findings: list[ReconciledFinding], counts: ChannelCounts,
            floor: int = 2, threshold: str = "P2") -> tuple[str, str]:
    d = decide(findings, counts, fix_threshold=threshold, floor=floor)  # type: ignore[arg-type]
    return d.verdict, d.summary


def test_nothing_completed_needs_a_decision() -> None:
    assert _decide([], _counts(3, 0)) == (
        "needs-user-decision", "No channels completed — manual review needed")


def test_a_blocking_finding_outranks_the_floor() -> None:
    assert _decide([_finding("P0"), _finding("P1"), _finding("P3")], _counts(2, 1)) == (
        "blocked", "Review blocked — 2 finding(s) at or above P2")


def test_acknowledging_the_only_blocker_lifts_the_block() -> None:
    assert _decide([_finding("P0", acknowledged=True)], _counts(2, 2))[0] == "pass"
    mixed = [_finding("P0", acknowledged=True), _finding("P1")]
    assert _decide(mixed, _counts(2, 2)) == (
        "blocked", "Review blocked — 1 finding(s) at or above P2")


def test_a_solo_pass_below_the_floor_needs_a_decision() -> None:
    assert _decide([], _counts(1, 1)) == (
        "needs-user-decision",
        "Too few channels reported to corroborate a pass — 1 of 1 completed, floor is 2. "
        "Re-run, or set defaults.min_completed_channels to accept thinner evidence",
    )


def test_shared_identities_below_the_floor_use_the_independent_summary() -> None:
    assert _decide([], _counts(3, 2, independent=1)) == (
        "needs-user-decision",
        "Too few independent reviewers to corroborate a pass — 2 of 3 completed, "
        "1 independent, floor is 2. "
        "Re-run, or set defaults.min_completed_channels to accept thinner evidence",
    )


def test_too_few_channels_wins_over_too_few_independent_reviewers() -> None:
    verdict, summary = _decide([], _counts(3, 1, independent=1), floor=2)
    assert verdict == "needs-user-decision"
    assert summary.startswith("Too few channels reported")


def test_degraded_pass_and_pass() -> None:
    assert _decide([_finding("P3")], _counts(3, 2)) == (
        "degraded-pass", "Review passed (degraded — 2 of 3 channels reported)")
    assert _decide([_finding("P3")], _counts(2, 2)) == ("pass", "Review passed")


def test_floor_one_restores_solo_and_degraded_passes() -> None:
    assert _decide([], _counts(1, 1), floor=1) == ("pass", "Review passed")
    assert _decide([], _counts(2, 1), floor=1)[0] == "degraded-pass"


def test_a_job_without_a_floor_is_evaluated_at_one() -> None:
    assert effective_floor(None) == 1
    assert effective_floor(3) == 3


@pytest.mark.parametrize(("verdict", "code", "approved"), [
    ("pass", 0, True), ("degraded-pass", 0, True), ("blocked", 2, False),
    ("needs-user-decision", 3, False),
])
def test_exit_codes_and_approval(verdict: Any, code: int, approved: bool) -> None:
    assert exit_code(verdict) == code
    assert is_approved(verdict) is approved


def test_unreachable_floor_warning() -> None:
    assert unreachable_floor_warning(2, ["fake1"]) == (
        "[mmr] warning: min_completed_channels is 2 but only 1 channel(s) will be dispatched "
        "(fake1), so a pass is unreachable. Enable more channels, or set "
        "defaults.min_completed_channels lower."
    )
    assert "(a, b)" in (unreachable_floor_warning(3, ["a", "b"]) or "")
    assert unreachable_floor_warning(2, ["a", "b"]) is None


# --- counting and the document -----------------------------------------------------------

def test_counts_use_statuses_after_downgrades_and_identities() -> None:
    per_channel = {"claude": _channel("completed"), "codex": _channel("failed"),
                   "compensating-codex": _channel("completed"), "gemini": _channel("skipped")}
    assert count_channels(per_channel) == ChannelCounts(4, 2, 2)
    identities = {"compensating-codex": "claude"}
    assert count_channels(per_channel, identities) == ChannelCounts(4, 2, 1)


def test_reference_job_with_a_compensating_pass_reproduces_degraded_pass() -> None:
    """No `compensator` recorded (a reference job): the pass counts as a reviewer."""
    per_channel = {"claude": _channel("completed"), "codex": _channel("failed"),
                   "compensating-codex": _channel("completed")}
    results = build_results(per_channel, [], JobFacts("mmr-000000000001",
                                                      min_completed_channels=2))
    assert (results.verdict, exit_code(results.verdict)) == ("degraded-pass", 0)
    assert results.summary == "Review passed (degraded — 2 of 3 channels reported)"


def test_self_corroboration_fails_the_floor_with_identities() -> None:
    """claude + compensating-codex run by claude agreeing is one reviewer."""
    shared = Finding(severity="P3", location="a.ts:1", description="style nit here",
                     suggestion="")
    identities = {"compensating-codex": "claude"}
    per_channel = {"claude": _channel("completed", [shared]), "codex": _channel("failed"),
                   "compensating-codex": _channel("completed", [shared])}
    findings = reconcile({"claude": [shared], "compensating-codex": [shared]},
                         identities=identities)
    assert (findings[0].agreement, findings[0].confidence) == ("unique", "medium")
    results = build_results(per_channel, findings, JobFacts(
        "mmr-000000000001", min_completed_channels=2, identities=identities))
    assert (results.verdict, exit_code(results.verdict)) == ("needs-user-decision", 3)
    assert "1 independent, floor is 2" in results.summary
    assert results.metadata.channels_completed == 2
    assert results.metadata.channels_independent == 1


def test_results_document_fields() -> None:
    per_channel = {"claude": _channel("completed"), "codex": _channel("timeout"),
                   "gemini": _channel("failed"), "grok": _channel("not_installed")}
    findings = [_finding("P3"), _finding("P1", acknowledged=True)]
    job = JobFacts("mmr-0123456789ab", fix_threshold="P1", min_completed_channels=1,
                   total_elapsed="41.3s", trust_mode="base-ref",
                   proposed_acks=[".mmr/acks/x.json"], proposed_config_change=True,
                   session_id="s1", round=2)
    data = build_results(per_channel, findings, job).to_json_dict()
    assert data["job_id"] == "mmr-0123456789ab"
    assert (data["verdict"], data["approved"]) == ("degraded-pass", True)
    assert data["summary"] == "Review passed (degraded — 1 of 4 channels reported)"
    assert (data["fix_threshold"], data["advisory_count"]) == ("P1", 2)
    assert data["metadata"] == {"channels_dispatched": 4, "channels_completed": 1,
                                "channels_partial": 2, "total_elapsed": "41.3s",
                                "channels_independent": 1}
    assert list(data["per_channel"]) == ["claude", "codex", "gemini", "grok"]
    assert data["trust_mode"] == "base-ref"
    assert data["proposed_acks"] == [".mmr/acks/x.json"]
    assert data["proposed_config_change"] is True
    assert (data["session_id"], data["round"]) == ("s1", 2)


def test_optional_job_fields_are_omitted_when_absent() -> None:
    data = build_results({"claude": _channel("completed")}, [],
                         JobFacts("mmr-0123456789ab", proposed_acks=[],
                                  proposed_config_change=False)).to_json_dict()
    for absent in ("trust_mode", "proposed_acks", "proposed_config_change", "session_id",
                   "round"):
        assert absent not in data
    assert data["verdict"] == "pass"  # legacy floor 1


def test_no_completed_channel_is_a_failed_gate_with_exit_3() -> None:
    results = build_results({"a": _channel("failed"), "b": _channel("failed")}, [],
                            JobFacts("mmr-0123456789ab", min_completed_channels=2))
    assert results.verdict == "needs-user-decision"
    assert results.summary == "No channels completed — manual review needed"
    assert exit_code(results.verdict) == 3
    assert results.approved is False
