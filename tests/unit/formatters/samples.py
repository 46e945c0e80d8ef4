"""Verdict documents the formatter tests render: the spec's observed example and richer ones."""

from __future__ import annotations

from mmr.models import (
    ChannelCoverage,
    ChannelResult,
    Coverage,
    Finding,
    FindingMember,
    GatedAck,
    PullRequestInfo,
    Ratification,
    ReconciledFinding,
    ReconciledResults,
    ResultsMetadata,
    Telemetry,
)
from mmr.reconcile.documents import max_rounds_results, ratification_results

SQL_SHINGLE = [
    "sql b", "ql bu", "l bui", " buil", "built", "uilt ", "ilt b", "lt by", "t by ", " by c",
    "by co", "y con", " conc", "conca", "oncat", "ncate", "caten", "atena", "tenat", "enati",
    "natio", "ation",
]
BACKOFF_SHINGLE = ["no ba", "o bac", " back", "backo", "ackof", "ckoff"]
IMPORT_SHINGLE = [
    "unuse", "nused", "used ", "sed i", "ed im", "d imp", " impo", "impor", "mport",
]
GATE_SUMMARY = (
    "Needs user decision — the diff proposes project config (.mmr.yaml) and ack changes. "
    "Re-run with --trust-project-config (.mmr.yaml) / --accept-new-acks (acks) to proceed."
)


def blocked_example() -> ReconciledResults:
    """The `mmr results` document observed on the reference (spec ch. 04 §6.1)."""
    sql = {"severity": "P1", "description": "SQL built by concatenation",
           "suggestion": "Use bind parameters", "category": "security"}
    return ReconciledResults(
        job_id="mmr-e06b772bac4b",
        verdict="blocked",
        fix_threshold="P2",
        advisory_count=2,
        approved=False,
        summary="Review blocked — 1 finding(s) at or above P2",
        reconciled_findings=[
            ReconciledFinding(
                location="src/db.ts:42", **sql, confidence="high",
                sources=["claude", "codex"], agreement="consensus",
                finding_key="c1fdc26dbda72d9684e972b8e76791260c062ca9",
                description_shingle=SQL_SHINGLE, generated_id="F-001",
            ),
            ReconciledFinding(
                severity="P2", location="src/retry.ts:9", description="No backoff",
                suggestion="Add backoff", confidence="medium", sources=["codex"],
                agreement="unique", finding_key="bbbc44a8de4db51d75a58516f7f90c4b053e1ece",
                description_shingle=BACKOFF_SHINGLE, generated_id="F-002",
                acknowledged=True, ack_match="exact",
                ack_reason="accepted: callers retry at most 3 times",
            ),
            ReconciledFinding(
                severity="P3", location="src/db.ts:7", description="Unused import",
                suggestion="Remove it", confidence="medium", sources=["claude"],
                agreement="unique", finding_key="ac45abec1591546992866eafe8a9043493d6a69d",
                description_shingle=IMPORT_SHINGLE, generated_id="F-003",
            ),
        ],
        per_channel={
            "claude": ChannelResult(status="completed", elapsed="41.3s", findings=[
                Finding(location="src/db.ts:42", **sql),
                Finding(severity="P3", location="src/db.ts:7", description="Unused import",
                        suggestion="Remove it"),
            ]),
            "codex": ChannelResult(status="completed", elapsed="62.9s", findings=[
                Finding(location="src/db.ts:44", **sql),
                Finding(severity="P2", location="src/retry.ts:9", description="No backoff",
                        suggestion="Add backoff"),
            ]),
            "grok": ChannelResult(status="timeout", elapsed="0s", findings=[],
                                  error="Channel timed out: request timed out after 300s"),
        },
        metadata=ResultsMetadata(channels_dispatched=3, channels_completed=2,
                                 channels_partial=1, total_elapsed="62.9s"),
        trust_mode="untrusted-head",
    )


def degraded_everything() -> ReconciledResults:
    """A degraded pass that carries every optional field mmr knows, for the contract test."""
    return ReconciledResults(
        job_id="mmr-0123456789ab",
        verdict="degraded-pass",
        fix_threshold="P1",
        advisory_count=3,
        approved=True,
        summary="Review passed (degraded — 2 of 6 channels reported)",
        reconciled_findings=[
            ReconciledFinding(
                severity="P2", location="src/a|b.py:3", id="M-7", category="style",
                description="Table | breaks\nacross lines\nand «ünïcode» —",
                suggestion="", reported_confidence="suspected", replacement="x = 1\n",
                confidence="medium", sources=["minimax", "compensating-grok"],
                agreement="majority",
                finding_key="0f" * 20, description_shingle=["table", "able "],
                acknowledged=True, ack_match="fuzzy",
                members=[
                    FindingMember(channel="minimax", severity="P2", location="src/a|b.py:3",
                                  description="Table | breaks\nacross lines\nand «ünïcode» —",
                                  suggestion="", finding_key="0f" * 20),
                    FindingMember(channel="compensating-grok", severity="P3",
                                  location="src/a|b.py:5", description="The table breaks",
                                  suggestion="Escape the bar", finding_key="1e" * 20),
                ],
            ),
            ReconciledFinding(
                severity="P3", location="README.md", description="Typo",
                suggestion="Fix the typo", reported_confidence="confirmed",
                confidence="low", sources=["compensating-grok"], agreement="unique",
                finding_key="a1" * 20, description_shingle=["typo"], generated_id="F-002",
            ),
            ReconciledFinding(
                severity="P3", location="docs/x.md:1", description="Wording",
                suggestion="Reword", confidence="medium", sources=["minimax"],
                agreement="unique", finding_key="b2" * 20, description_shingle=["wordi"],
                generated_id="F-003", acknowledged=True, ack_match="exact",
                ack_reason="style is deliberate",
            ),
        ],
        per_channel={
            "minimax": ChannelResult(
                status="completed", elapsed="12.0s", attempts=2, raw_output="{…}",
                findings=[Finding(severity="P2", location="src/a|b.py:3", id="M-7",
                                  category="style", description="Table | breaks",
                                  reported_confidence="suspected", replacement="x = 1\n")],
                telemetry=Telemetry(input_tokens=123456, output_tokens=789,
                                    context_window=204800, cost_usd=0.01234, turns=3),
                cached=True, cached_from="mmr-00000000000a",
                note="[mmr: 7 findings over the limit of 500 per channel were dropped]",
            ),
            "compensating-grok": ChannelResult(
                status="completed", elapsed="8.4s", findings=[],
                telemetry=Telemetry(output_tokens=42),
            ),
            "codex": ChannelResult(status="not_installed", elapsed="0s", findings=[],
                                   error="CLI not found on PATH"),
            "claude": ChannelResult(
                status="failed", elapsed="3.2s", findings=[], reason="parse_error",
                error="Failed to parse channel output: missing findings", raw_output="prose",
                recovery="claude -p 'respond with ok'",
            ),
            "grok": ChannelResult(status="auth_failed", elapsed="0.3s", findings=[],
                                  error="Auth check failed", recovery="grok login"),
            "opencode": ChannelResult(
                status="skipped", elapsed="0s", findings=[], reason="credential_refused",
                error="Channel skipped: credential-shaped content in diff",
            ),
        },
        metadata=ResultsMetadata(channels_dispatched=6, channels_completed=2,
                                 channels_partial=1, total_elapsed="12.0s",
                                 channels_independent=2, input_tokens=123456,
                                 output_tokens=831, total_cost_usd=0.01234),
        trust_mode="base-ref",
        proposed_acks=[".mmr/acks/a.json", ".mmr/acks/b.json"],
        proposed_config_change=True,
        session_id="s1",
        round=2,
    )


def clean_pass() -> ReconciledResults:
    """Two channels, nothing found."""
    return ReconciledResults(
        job_id="mmr-aaaaaaaaaaaa", verdict="pass", fix_threshold="P2", advisory_count=0,
        approved=True, summary="Review passed", reconciled_findings=[],
        per_channel={
            "claude": ChannelResult(status="completed", elapsed="1.0s", findings=[]),
            "codex": ChannelResult(status="completed", elapsed="2.5s", findings=[]),
        },
        metadata=ResultsMetadata(channels_dispatched=2, channels_completed=2,
                                 channels_partial=0, total_elapsed="2.5s"),
    )


def gate_document() -> ReconciledResults:
    return ratification_results(
        GATE_SUMMARY, "P2", "base-ref", proposed_acks=[".mmr/acks/x.json"],
        proposed_config_change=True,
    )


def gate_with_ratification() -> ReconciledResults:
    """The gate document as mmr prints it (issue 18): what it held back, how to ratify."""
    return gate_document().model_copy(update={"ratification": Ratification(
        acks=[GatedAck(file=".mmr/acks/x.json", finding_key="a" * 40, location="src/app.py:3",
                       ack_reason="accepted: bounded loop"), GatedAck(file=".mmr/acks/y.json")],
        config_change=True,
        command="mmr review --staged --accept-new-acks --trust-project-config")})


def max_rounds_document() -> ReconciledResults:
    return max_rounds_results("s1", 6, 5, "P2")


def off_diff_pass() -> ReconciledResults:
    """Issue 13: a pass whose only findings are outside the diff or unanchored, reported
    apart and not gated; one channel failed and was compensated."""
    outside = Finding(severity="P0", location="src/ledger.py:3",
                      description="Callers of total() now divide by zero", suggestion="Guard",
                      id="R-1", category="correctness", reported_confidence="confirmed",
                      replacement="    return total / max(count, 1)\n")
    lost = Finding(severity="P1", location="README.md § Install", description="Stale steps",
                   id="R-2", category="docs", reported_confidence="suspected",
                   replacement="pip install mmr\n")
    return ReconciledResults(
        job_id="mmr-0ff0d1ff0000",
        verdict="pass",
        fix_threshold="P2",
        advisory_count=0,
        approved=True,
        summary=("Review passed — not gated: 1 unanchored finding (worst P1); "
                 "defaults.outside_diff_findings: block gates them"),
        reconciled_findings=[],
        per_channel={
            "rev1": ChannelResult(status="completed", elapsed="2.1s", findings=[],
                                  outside_diff_findings=[outside], unanchored_findings=[lost]),
            "rev2": ChannelResult(status="completed", elapsed="1.4s", findings=[]),
            "flaky": ChannelResult(status="failed", elapsed="0.1s", findings=[],
                                   error="Channel failed: HTTP 429"),
            "compensating-flaky": ChannelResult(status="completed", elapsed="3.0s",
                                                findings=[]),
        },
        metadata=ResultsMetadata(
            channels_dispatched=4, channels_completed=3, channels_partial=1,
            total_elapsed="3.2s", channels_independent=3, outside_diff_count=1,
            unanchored_count=2, ungated_count=1, compensating_passes=1),
        outside_diff_findings=[ReconciledFinding(
            **outside.model_dump(exclude_none=True), confidence="high", sources=["rev1"],
            agreement="unique", finding_key="0" * 40, description_shingle=["calle"],
            acknowledged=True, ack_match="exact", ack_reason="fixed in the next change",
            members=[FindingMember(channel="rev1", severity="P0", location="src/ledger.py:3",
                                   description=outside.description, suggestion="Guard",
                                   finding_key="0" * 40)])],
        unanchored_findings=[ReconciledFinding(
            **lost.model_dump(exclude_none=True), confidence="medium", sources=["rev1"],
            agreement="unique", finding_key="1" * 40, description_shingle=["stale"],
            generated_id="U-001",
            members=[FindingMember(channel="rev1", severity="P1", location="README.md § Install",
                                   description="Stale steps", suggestion="",
                                   finding_key="1" * 40)]), ReconciledFinding(
            severity="P3", location="unknown", description="Odd spacing", suggestion="",
            confidence="medium", sources=["rev1"], agreement="unique", finding_key="2" * 40,
            description_shingle=["odd s"], generated_id="U-002", acknowledged=True,
            ack_match="fuzzy", ack_reason="style is not gated")],
        outside_diff_gate="advisory",
        coverage=Coverage(
            files=2, lines_added=5, lines_removed=1, diff_lines=14, redacted_credentials=1,
            binary_files=["logo.png"], unshown_text_files=["gen/table.py"],
            excluded_files=["package-lock.json"],
            channels=[ChannelCoverage(channel="rev2", excluded_files=["docs/a.md"]),
                      ChannelCoverage(channel="big", skipped="diff_too_large"),
                      ChannelCoverage(channel="rev1", shards=3, unreviewed_files=["README.md"],
                                      summarised_files=["yarn.lock"])],
            summarised_files=["yarn.lock"],
            partial=True),
    )


def pull_request_followup() -> ReconciledResults:
    """Issue 29: a follow-up review of a pull request. A P1 of the last push is carried
    open and still blocks; one finding is gone since, its lines changed."""
    base = off_diff_pass()
    for finding in [*(base.outside_diff_findings or ()), *(base.unanchored_findings or ())]:
        finding.state = "new"
    carried = blocked_example().reconciled_findings[0].model_copy(update={"state": "open"})
    fixed = (base.outside_diff_findings or [])[0].model_copy(
        update={"state": "fixed", "location": "src/ledger.py:9", "replacement": "x = 2\n"})
    return base.model_copy(update={
        "job_id": "mmr-0000f011ow00", "verdict": "blocked", "approved": False,
        "summary": "Review blocked — 1 finding(s) at or above P2",
        "reconciled_findings": [carried], "fixed_findings": [fixed],
        "pull_request": PullRequestInfo(
            number=7, repository="acme/widgets", head="b" * 40, review="incremental",
            since="a" * 40, why=f"the last reviewed head {'a' * 12} is an ancestor of "
                                f"{'b' * 12}"),
    })


#: Every sample with the stem of its golden files.
SAMPLES = {
    "results-off-diff": off_diff_pass,
    "results-blocked": blocked_example,
    "results-degraded": degraded_everything,
    "results-pass": clean_pass,
    "gate": gate_document,
    "gate-ratification": gate_with_ratification,
    "max-rounds": max_rounds_document,
    "results-pull": pull_request_followup,
}
