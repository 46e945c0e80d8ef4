"""``--format text``: the report a person reads in a terminal or a CI log (spec ch. 04 §6.3).

Lines scripts grep (the headline, ``Threshold:``, ``Sources:``, channel lines) keep the
reference's exact form; mmr only appends information (the finding key, acknowledgement,
reported confidence, reasons and telemetry).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mmr.formatters.labels import (
    DEGRADED_STATUSES,
    is_gate_document,
    proposal_parts,
    telemetry_parts,
    verdict_label,
)
from mmr.formatters.sanitize import for_terminal

if TYPE_CHECKING:
    from mmr.models import ChannelResult, ReconciledFinding, ReconciledResults

DOCTOR_HINT = "Some channels were unavailable — run `mmr doctor` to diagnose and fix."


def render_text(results: ReconciledResults) -> str:
    """The text report, lines joined with ``\\n`` and no trailing newline."""
    results = for_terminal(results)
    if is_gate_document(results):
        return results.summary
    lines = [f"MMR {verdict_label(results)} — {results.job_id}", _counts_line(results)]
    if results.trust_mode is not None:
        lines.append(_trust_line(results))
    lines.append("")
    if results.reconciled_findings:
        lines += [f"Findings ({len(results.reconciled_findings)}):", ""]
        for finding in results.reconciled_findings:
            lines += _finding_lines(finding)
    else:
        lines.append("No findings.")
    lines.append("Channels:")
    for name, channel in results.per_channel.items():
        lines += _channel_lines(name, channel)
    if any(ch.status in DEGRADED_STATUSES for ch in results.per_channel.values()):
        lines += ["", DOCTOR_HINT]
    return "\n".join(lines)


def _counts_line(results: ReconciledResults) -> str:
    meta = results.metadata
    segments = [f"Threshold: {results.fix_threshold}"]
    if results.advisory_count > 0:
        segments.append(f"Advisory: {results.advisory_count}")
    segments.append(f"Channels: {meta.channels_completed}/{meta.channels_dispatched}")
    segments.append(f"Elapsed: {meta.total_elapsed}")
    return " | ".join(segments)


def _trust_line(results: ReconciledResults) -> str:
    proposals = proposal_parts(results, config_file=".mmr.yaml")
    return " | ".join([f"Trust: {results.trust_mode}", *proposals])


def _finding_lines(finding: ReconciledFinding) -> list[str]:
    lines = [f"  [{finding.severity}] {finding.location}", f"    {finding.description}"]
    if finding.suggestion:
        lines.append(f"    Suggestion: {finding.suggestion}")
    lines.append(f"    Sources: {', '.join(finding.sources)} ({finding.agreement})")
    if finding.reported_confidence is not None:
        lines.append(f"    Reported confidence: {finding.reported_confidence}")
    lines.append(f"    Key: {finding.finding_key}")
    if finding.acknowledged:
        reason = finding.ack_reason or "no reason given"
        lines.append(f"    Acknowledged ({finding.ack_match or 'exact'}): {reason}")
    lines.append("")
    return lines


def _channel_lines(name: str, channel: ChannelResult) -> list[str]:
    head = f"  {name}: {channel.status} ({channel.elapsed})"
    if channel.reason:
        head += f" [{channel.reason}]"
    lines = [head]
    parts = telemetry_parts(channel.telemetry)
    if parts:
        lines.append("    " + " · ".join(parts))
    if channel.status == "not_installed":
        lines.append(f"    → not installed — install it, or silence: mmr config disable {name}")
    elif channel.status in DEGRADED_STATUSES and channel.recovery:
        lines.append(f"    → {channel.recovery}")
    return lines
