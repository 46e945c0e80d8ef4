"""The gate, the verdict, its summary and the results document.

Everything here is pure: the results pipeline gathers per-channel results, reconciled
findings and the job's facts, and :func:`build_results` turns them into the
``ReconciledResults`` that ``review --sync``, ``results`` and ``reconcile`` print.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mmr.models import (
    COMPENSATING_PREFIX,
    ChannelResult,
    Coverage,
    OutsideDiffGate,
    ReconciledFinding,
    ReconciledResults,
    ResultsMetadata,
    TrustMode,
)
from mmr.vocabulary import (
    DEFAULT_FIX_THRESHOLD,
    SEVERITY_ORDER,
    VERDICT_EXIT_CODES,
    Severity,
    Verdict,
)

#: Floor for a job written before 4.0.0, which has no ``min_completed_channels``.
LEGACY_FLOOR = 1
_PARTIAL_STATUSES = frozenset({"failed", "timeout"})
_THINNER_EVIDENCE = "Re-run, or set defaults.min_completed_channels to accept thinner evidence"


def is_blocking(finding: ReconciledFinding, fix_threshold: Severity) -> bool:
    """Unacknowledged and at or above the threshold."""
    return not finding.acknowledged and (
        SEVERITY_ORDER[finding.severity] <= SEVERITY_ORDER[fix_threshold]
    )


def blocking_count(findings: Sequence[ReconciledFinding], fix_threshold: Severity) -> int:
    return sum(is_blocking(f, fix_threshold) for f in findings)


def effective_floor(min_completed_channels: int | None) -> int:
    """The job's floor; a job without one predates 4.0.0 and keeps floor 1."""
    return LEGACY_FLOOR if min_completed_channels is None else min_completed_channels


@dataclass(frozen=True, slots=True)
class ChannelCounts:
    """How many job channels there are, completed, and independent reviewers among those."""

    channels: int
    completed: int
    independent: int


def count_channels(per_channel: Mapping[str, ChannelResult],
                   identities: Mapping[str, str] | None = None) -> ChannelCounts:
    """Count after the pipeline's downgrades; ``identities`` as for ``reconcile``."""
    completed = [name for name, result in per_channel.items() if result.status == "completed"]
    reviewers = {(identities or {}).get(name, name) for name in completed}
    return ChannelCounts(len(per_channel), len(completed), len(reviewers))


@dataclass(frozen=True, slots=True)
class Decision:
    """A verdict, its summary line, and how many findings block."""

    verdict: Verdict
    summary: str
    blocking: int


def decide(findings: Sequence[ReconciledFinding], counts: ChannelCounts, *, fix_threshold: Severity,
           floor: int) -> Decision:
    """The verdict and its summary; the first branch that applies wins."""
    blocking = blocking_count(findings, fix_threshold)
    done, total = counts.completed, counts.channels
    if done == 0:
        summary = "No channels completed — manual review needed"
        return Decision("needs-user-decision", summary, blocking)
    if blocking:
        summary = f"Review blocked — {blocking} finding(s) at or above {fix_threshold}"
        return Decision("blocked", summary, blocking)
    if done < floor:
        summary = (
            f"Too few channels reported to corroborate a pass — {done} of {total} completed, "
            f"floor is {floor}. {_THINNER_EVIDENCE}"
        )
        return Decision("needs-user-decision", summary, blocking)
    if counts.independent < floor:
        summary = (
            f"Too few independent reviewers to corroborate a pass — {done} of {total} "
            f"completed, {counts.independent} independent, floor is {floor}. "
            f"{_THINNER_EVIDENCE}"
        )
        return Decision("needs-user-decision", summary, blocking)
    if done < total:
        summary = f"Review passed (degraded — {done} of {total} channels reported)"
        return Decision("degraded-pass", summary, blocking)
    return Decision("pass", "Review passed", blocking)


def is_approved(verdict: Verdict) -> bool:
    return verdict in ("pass", "degraded-pass")


def exit_code(verdict: Verdict) -> int:
    """0 for a pass, 2 blocked, 3 needs a decision."""
    return VERDICT_EXIT_CODES[verdict]


def unreachable_floor_warning(floor: int, channel_names: Sequence[str]) -> str | None:
    """The stderr warning when fewer channels will run than the floor asks for."""
    if floor <= len(channel_names):
        return None
    return (
        f"[mmr] warning: min_completed_channels is {floor} but only {len(channel_names)} "
        f"channel(s) will be dispatched ({', '.join(channel_names)}), so a pass is "
        "unreachable. Enable more channels, or set defaults.min_completed_channels lower."
    )


@dataclass(frozen=True, slots=True)
class JobFacts:
    """What the results document needs from the job besides channel results."""

    job_id: str | None
    fix_threshold: Severity = DEFAULT_FIX_THRESHOLD
    #: ``None`` for a job written before 4.0.0 (evaluated at floor 1).
    min_completed_channels: int | None = None
    #: Channel → the reviewer that really ran it (a compensating pass → its compensator).
    identities: Mapping[str, str] = field(default_factory=dict)
    total_elapsed: str = "0s"
    trust_mode: TrustMode | None = None
    proposed_acks: Sequence[str] | None = None
    proposed_config_change: bool | None = None
    session_id: str | None = None
    round: int | None = None
    #: How findings outside the diff and unanchored ones gate.
    outside_diff_gate: OutsideDiffGate = "advisory"
    coverage: Coverage | None = None


@dataclass(frozen=True, slots=True)
class OffDiff:
    """The reconciled findings MMR 4.0.1 drops: outside the diff, and unanchored."""

    outside_diff: Sequence[ReconciledFinding] = ()
    unanchored: Sequence[ReconciledFinding] = ()


def _ungated_note(off: OffDiff, fix_threshold: Severity) -> tuple[str, int]:
    """`` — not gated: 1 finding outside the diff (worst P0), …`` and how many it names:
    the findings at or above the threshold that would block if they were in the diff."""
    parts, total = [], 0
    for singular, plural, findings in (
        ("finding outside the diff", "findings outside the diff", off.outside_diff),
        ("unanchored finding", "unanchored findings", off.unanchored),
    ):
        above = [f for f in findings if is_blocking(f, fix_threshold)]
        if above:
            worst = min((f.severity for f in above), key=SEVERITY_ORDER.__getitem__)
            noun = singular if len(above) == 1 else plural
            parts.append(f"{len(above)} {noun} (worst {worst})")
            total += len(above)
    if not parts:
        return "", 0
    return (f" — not gated: {', '.join(parts)}; defaults.outside_diff_findings: block "
            "gates them"), total


def _unplaced_p0(decision: Decision, off: OffDiff) -> Decision:
    """A would-be pass becomes ``needs-user-decision`` while a P0 sits outside the diff.

    Small models write locations such as ``in the diff header`` or a file the change does
    not touch for real defects; left advisory, the worst finding of a review could end in
    exit 0. The lesser severities stay advisory.
    """
    unplaced = [f for f in (*off.outside_diff, *off.unanchored)
                if f.severity == "P0" and not f.acknowledged]
    if not unplaced or not is_approved(decision.verdict):
        return decision
    summary = (f"A person must decide — {len(unplaced)} P0 finding(s) could not be placed in "
               "the diff")
    return Decision("needs-user-decision", summary, decision.blocking)


def _unreviewed(decision: Decision, coverage: Coverage | None) -> Decision:
    """A pass is degraded while a channel's failed shards left files it did not review."""
    if decision.verdict != "pass" or not _unreviewed_note(coverage):
        return decision
    return Decision("degraded-pass", "Review passed (degraded)", decision.blocking)


def _unreviewed_note(coverage: Coverage | None) -> str:
    """What failed shards left unread, for any verdict's line."""
    said = "; ".join(f"{c.channel} did not review {len(c.unreviewed_files)} file(s)"
                     for c in (coverage.channels if coverage else ()) if c.unreviewed_files)
    return f" — {said}" if said else ""


def _total(per_channel: Mapping[str, ChannelResult], figure: str) -> int | float | None:
    """The run's sum of one telemetry figure; None when no channel reported it."""
    values = [getattr(r.telemetry, figure) for r in per_channel.values() if r.telemetry]
    reported = [v for v in values if v is not None]
    if not reported:
        return None
    total = sum(reported)
    # Dollar figures summed as floats pick up noise digits (0.1 + 0.2).
    return round(total, 6) if isinstance(total, float) else total


def _unshown_note(coverage: Coverage | None) -> str:
    unshown = len(coverage.unshown_text_files or []) if coverage is not None else 0
    return f" — {unshown} changed text file(s) not shown to the reviewers" if unshown else ""


def build_results(per_channel: Mapping[str, ChannelResult], findings: Sequence[ReconciledFinding],
                  job: JobFacts, off_diff: OffDiff | None = None) -> ReconciledResults:
    """Gate, verdict and counts assembled into the results document."""
    off = off_diff or OffDiff()
    counts = count_channels(per_channel, job.identities)
    gated = list(findings)
    if job.outside_diff_gate == "block":
        gated += [*off.outside_diff, *off.unanchored]
    decision = decide(gated, counts, fix_threshold=job.fix_threshold,
                      floor=effective_floor(job.min_completed_channels))
    decision = _unreviewed(decision, job.coverage)
    note, ungated = ("", 0)
    if job.outside_diff_gate == "advisory" and counts.completed:
        note, ungated = _ungated_note(off, job.fix_threshold)
        decision = _unplaced_p0(decision, off)
    compensating = sum(name.startswith(COMPENSATING_PREFIX) for name in per_channel)
    metadata = ResultsMetadata(
        channels_dispatched=counts.channels,
        channels_completed=counts.completed,
        channels_partial=sum(r.status in _PARTIAL_STATUSES for r in per_channel.values()),
        total_elapsed=job.total_elapsed,
        channels_independent=counts.independent,
        outside_diff_count=len(off.outside_diff) or None,
        unanchored_count=len(off.unanchored) or None,
        ungated_count=ungated or None,
        compensating_passes=compensating or None,
        input_tokens=_total(per_channel, "input_tokens"),
        output_tokens=_total(per_channel, "output_tokens"),
        total_cost_usd=_total(per_channel, "cost_usd"),
    )
    in_diff_blocking = blocking_count(findings, job.fix_threshold)
    has_off = bool(off.outside_diff or off.unanchored)
    return ReconciledResults(
        job_id=job.job_id,
        verdict=decision.verdict,
        fix_threshold=job.fix_threshold,
        advisory_count=len(findings) - in_diff_blocking,
        approved=is_approved(decision.verdict),
        summary=(decision.summary + note + _unshown_note(job.coverage)
                 + _unreviewed_note(job.coverage)),
        reconciled_findings=list(findings),
        per_channel=dict(per_channel),
        metadata=metadata,
        trust_mode=job.trust_mode,
        # Both are present only when the diff touched acks or config.
        proposed_acks=list(job.proposed_acks) if job.proposed_acks else None,
        proposed_config_change=True if job.proposed_config_change else None,
        session_id=job.session_id,
        round=job.round,
        outside_diff_findings=list(off.outside_diff) or None,
        unanchored_findings=list(off.unanchored) or None,
        outside_diff_gate=job.outside_diff_gate if has_off else None,
        coverage=job.coverage,
    )
