"""Pieces the text and markdown reports share, so the two cannot drift apart."""

from __future__ import annotations

from collections.abc import Callable

from mmr.models import (
    COMPENSATING_PREFIX,
    ChannelResult,
    FindingMember,
    ReconciledFinding,
    ReconciledResults,
    Telemetry,
)
from mmr.secrets.redact import redact_text
from mmr.severity import threshold_meaning

#: Channel statuses that mean "this reviewer did not report".
DEGRADED_STATUSES = frozenset({"not_installed", "auth_failed", "failed", "timeout", "skipped"})

_LABELS = {"pass": "PASSED", "blocked": "BLOCKED", "needs-user-decision": "NEEDS DECISION"}


def verdict_label(results: ReconciledResults) -> str:
    """The headline label; a degraded pass still says ``PASSED`` so old greps keep matching."""
    if results.verdict == "degraded-pass":
        meta = results.metadata
        return f"PASSED (DEGRADED — {meta.channels_completed}/{meta.channels_dispatched} channels)"
    return _LABELS.get(results.verdict, "UNKNOWN")


def is_gate_document(results: ReconciledResults) -> bool:
    """The ratification-gate document is the only verdict document without a job."""
    return results.job_id is None


def gate_lines(results: ReconciledResults, literal: Callable[[str], str] = str,
               prose: Callable[[str], str] = str, bullet: str = "  ") -> list[str]:
    """The ratification-gate document's lines: its summary, what it held back, and the
    command that ratifies. ``literal`` renders a file, key or command (markdown: a code
    span, where a backslash escape would be pasted as part of it), ``prose`` the rest."""
    lines = [prose(results.summary)]
    held = results.ratification
    if held is None:
        return lines
    lines += ["", "Held back until ratified:"]
    for ack in held.acks:
        line = f"{bullet}ack {literal(ack.file)}"
        if ack.finding_key:
            line += f" — silences finding {literal(ack.finding_key)}"
        if ack.location:
            line += f" at {literal(ack.location)}"
        if ack.ack_reason:
            line += f" — reason: {prose(ack.ack_reason)}"
        lines.append(line)
    if held.config_change:
        lines.append(f"{bullet}the project config change ({literal('.mmr.yaml')})")
    lines += ["", f"To ratify and review: {literal(held.command)}"]
    return lines


def trust_line(results: ReconciledResults, *, config_file: str) -> str:
    """``Trust: <mode>``, then what the run proposes: ``proposed <config_file> change`` and
    ``proposed acks: N`` (each only when there is one)."""
    parts = [f"Trust: {results.trust_mode}"]
    if results.proposed_config_change:
        parts.append(f"proposed {config_file} change")
    if results.proposed_acks:
        parts.append(f"proposed acks: {len(results.proposed_acks)}")
    return " | ".join(parts)


def telemetry_parts(telemetry: Telemetry | None) -> list[str]:
    """``tokens in 1,234``, ``out 56``, ``context 200,000``, ``cost $0.0123``, ``turns 3``."""
    if telemetry is None:
        return []
    parts = []
    if telemetry.input_tokens is not None:
        parts.append(f"tokens in {_count(telemetry.input_tokens)}")
    if telemetry.output_tokens is not None:
        parts.append(f"out {_count(telemetry.output_tokens)}")
    if telemetry.context_window is not None:
        parts.append(f"context {_count(telemetry.context_window)}")
    if telemetry.cost_usd is not None:
        parts.append(f"cost ${telemetry.cost_usd:.4f}")
    if telemetry.turns is not None:
        parts.append(f"turns {_count(telemetry.turns)}")
    return parts


def channel_state(channel: ChannelResult) -> str:
    """``failed (12s) [parse_error] (cached from mmr-…)``: a channel line's status part."""
    state = f"{channel.status} ({channel.elapsed})"
    if channel.reason:
        state += f" [{channel.reason}]"
    return state + (f" (cached from {channel.cached_from})" if channel.cached else "")


def run_total_line(results: ReconciledResults) -> str | None:
    """``Run total: 1,234 tokens in · 56 out · $0.0123``; None when no channel reported."""
    meta = results.metadata
    parts = telemetry_parts(Telemetry(input_tokens=meta.input_tokens,
                                      output_tokens=meta.output_tokens,
                                      cost_usd=meta.total_cost_usd))
    return "Run total: " + " · ".join(parts) if parts else None


def _count(value: float) -> str:
    """Thousands separators; whole numbers without a decimal part."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


#: How the reports name the two places MMR 4.0.1 drops.
PLACE_TITLES = {"outside_diff": "Outside the diff", "unanchored": "Unanchored"}
PLACE_NOTES = {
    "outside_diff": "in a repository file the change does not touch",
    "unanchored": "no usable location: no path, a path not in the repository, or no such line",
}
#: Width a failed channel's reason is cut to in the text and markdown reports.
REASON_WIDTH = 160


def off_diff_groups(results: ReconciledResults) -> list[tuple[str, list[ReconciledFinding]]]:
    """``(place, findings)`` for each non-empty off-diff place, outside-diff first."""
    groups = [("outside_diff", results.outside_diff_findings or []),
              ("unanchored", results.unanchored_findings or [])]
    return [(place, findings) for place, findings in groups if findings]


def off_diff_gated(results: ReconciledResults) -> bool:
    """Whether the off-diff findings gate (``defaults.outside_diff_findings: block``)."""
    return results.outside_diff_gate == "block"


#: The heading of the last review's findings that are gone, their lines changed.
FIXED_TITLE = "Fixed since last review"


def pull_line(results: ReconciledResults) -> str | None:
    """``Pull request: #7 at <head>, incremental review since <old> (why)``."""
    pr = results.pull_request
    if pr is None:
        return None
    since = f" since {pr.since[:12]}" if pr.review == "incremental" and pr.since else ""
    return f"Pull request: #{pr.number} at {pr.head[:12]}, {pr.review} review{since} ({pr.why})"


def state_tag(finding: ReconciledFinding) -> str:
    """`` [new]``/`` [open]`` on a ``--pr`` review's finding, else nothing."""
    return f" [{finding.state}]" if finding.state else ""


def gate_line(results: ReconciledResults) -> str:
    """What the threshold gates, in the words of the one severity scale."""
    line = f"Gate: {threshold_meaning(results.fix_threshold)}"
    if off_diff_groups(results):
        gated = "gated" if off_diff_gated(results) else "reported, not gated"
        line += f"; findings outside the diff: {gated}"
    return line


def honesty_lines(results: ReconciledResults) -> list[str]:
    """mmr's lines under the headline: the summary when it carries a not-gated note, the
    channel counts said in words, the gate, the pull request and coverage."""
    lines = []
    if results.metadata.ungated_count:
        lines.append(f"Verdict: {results.summary}")
    if results.per_channel:
        lines.append(f"Reviewers: {counts_phrase(results)}")
    lines.append(gate_line(results))
    return lines + [line for line in (pull_line(results), coverage_line(results)) if line]


def counts_phrase(results: ReconciledResults) -> str:
    """``2 of 3 reported; 1 compensating pass, 1 reported`` — the ``Channels`` counts said
    in words (a compensating pass is not a reviewer of its own)."""
    reviewers = [c for n, c in results.per_channel.items() if not n.startswith(COMPENSATING_PREFIX)]
    passes = [c for n, c in results.per_channel.items() if n.startswith(COMPENSATING_PREFIX)]
    reported = sum(c.status == "completed" for c in reviewers)
    phrase = f"{reported} of {len(reviewers)} reported"
    if passes:
        ran = sum(c.status == "completed" for c in passes)
        noun = "pass" if len(passes) == 1 else "passes"
        phrase += f"; {len(passes)} compensating {noun}, {ran} reported"
    return phrase


def failure_reason(channel: ChannelResult) -> str | None:
    """A failed channel's ``error`` on one line, redacted, cut to :data:`REASON_WIDTH`."""
    if channel.status == "completed" or not channel.error:
        return None
    text = " ".join(redact_text(channel.error).split())
    return text if len(text) <= REASON_WIDTH else text[: REASON_WIDTH - 1] + "…"


def coverage_line(results: ReconciledResults) -> str | None:
    """``Coverage: 3 files, +10/-2 lines; excluded: …`` — what the review saw."""
    coverage = results.coverage
    if coverage is None:
        return None
    line = (f"Coverage: {coverage.files} file(s), +{coverage.lines_added}/"
            f"-{coverage.lines_removed} line(s)")
    if coverage.redacted_credentials:
        line += f", {coverage.redacted_credentials} credential(s) redacted"
    if coverage.binary_files:
        line += f", {len(coverage.binary_files)} binary file(s) not reviewed"
    if coverage.summarised_files:
        line += f", {len(coverage.summarised_files)} generated file(s) summarised"
    parts = []
    if coverage.unshown_text_files:
        parts.append(f"{len(coverage.unshown_text_files)} text file(s) over 10 MiB not shown")
    if coverage.excluded_files:
        parts.append(f"{len(coverage.excluded_files)} file(s) excluded by diff_exclude")
    for channel in coverage.channels:
        if channel.skipped:
            parts.append(f"{channel.channel} saw nothing ({channel.skipped})")
        elif channel.excluded_files:
            parts.append(f"{channel.channel} did not see {len(channel.excluded_files)} file(s)")
        if channel.unreviewed_files:
            parts.append(f"{channel.channel} did not review {len(channel.unreviewed_files)} "
                         "file(s) of its failed shards")
    return line + ("; partial: " + ", ".join(parts) if parts else "; complete")


def agreeing(finding: ReconciledFinding) -> str | None:
    """``claude, codex agree`` when the finding merged the findings of several channels."""
    channels = list(dict.fromkeys(m.channel for m in finding.members or ()))
    return f"{', '.join(channels)} agree" if len(channels) > 1 else None


def other_wordings(finding: ReconciledFinding) -> list[FindingMember]:
    """The members other than the one the finding shows (its location and description)."""
    others = list(finding.members or ())
    for position, member in enumerate(others):
        if (member.location, member.description) == (finding.location, finding.description):
            del others[position]
            break
    return others


def wording_line(member: FindingMember, limit: int = 160) -> str:
    """One folded member: ``codex [P1] src/a.py:44: <description, cut at limit>``."""
    text = " ".join(member.description.split())
    if len(text) > limit:
        text = text[:limit - 1].rstrip() + "…"
    return f"{member.channel} [{member.severity}] {member.location}: {text}"
