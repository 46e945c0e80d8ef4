"""``--format text``: the report a person reads in a terminal or a CI log.

Lines scripts grep (the headline, ``Threshold:``, ``Sources:``, channel lines) keep the
reference's exact form; mmr only appends information (the finding key, acknowledgement,
reported confidence, reasons and telemetry).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mmr.formatters.labels import (
    DEGRADED_STATUSES,
    FIXED_TITLE,
    PLACE_NOTES,
    PLACE_TITLES,
    agreeing,
    channel_state,
    failure_reason,
    gate_lines,
    honesty_lines,
    is_gate_document,
    off_diff_groups,
    other_wordings,
    run_total_line,
    state_tag,
    telemetry_parts,
    trust_line,
    verdict_label,
    wording_line,
)
from mmr.formatters.sanitize import for_terminal
from mmr.models import COMPENSATING_PREFIX

if TYPE_CHECKING:
    from mmr.models import ChannelResult, ReconciledFinding, ReconciledResults

DOCTOR_HINT = "Some channels were unavailable — run `mmr doctor` to diagnose and fix."
#: Failures doctor finds nothing wrong with: the reply, the diff, or the prompt's size.
_NOT_DOCTORS = frozenset({"parse_error", "gate_failed", "diff_too_large", "credential_refused"})
_OVERFLOW = re.compile(r"too long|context (?:length|size|window)|token limit", re.IGNORECASE)


def _doctor_helps(channel: ChannelResult) -> bool:
    """Whether ``mmr doctor`` (installs, logins, endpoints) can tell why ``channel`` failed."""
    return (channel.status in DEGRADED_STATUSES and channel.reason not in _NOT_DOCTORS
            and not _OVERFLOW.search(channel.error or ""))


def render_text(results: ReconciledResults) -> str:
    """The text report, lines joined with ``\\n`` and no trailing newline."""
    results = for_terminal(results)
    if is_gate_document(results):
        return "\n".join(gate_lines(results))
    lines = [f"MMR {verdict_label(results)} — {results.job_id}", _counts_line(results)]
    if results.trust_mode is not None:
        lines.append(trust_line(results, config_file=".mmr.yaml"))
    lines += honesty_lines(results)
    lines.append("")
    off_diff = off_diff_groups(results)
    if results.reconciled_findings:
        lines += [f"Findings ({len(results.reconciled_findings)}):", ""]
        for finding in results.reconciled_findings:
            lines += _finding_lines(finding)
    elif off_diff:
        lines += ["No findings in the diff.", ""]
    else:
        lines.append("No findings.")
    for place, findings in off_diff:
        lines += [f"{PLACE_TITLES[place]} ({len(findings)}) — {PLACE_NOTES[place]}:", ""]
        for finding in findings:
            lines += _finding_lines(finding)
    if results.fixed_findings:
        lines += [f"{FIXED_TITLE} ({len(results.fixed_findings)}):", ""]
        lines += [f"  [{f.severity}] {f.location} — {f.description}"
                  for f in results.fixed_findings]
        lines.append("")
    lines.append("Channels:")
    for name, channel in results.per_channel.items():
        lines += _channel_lines(name, channel)
    if (total := run_total_line(results)) is not None:
        lines.append(total)
    if any(_doctor_helps(ch) for ch in results.per_channel.values()):
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


def _finding_lines(finding: ReconciledFinding) -> list[str]:
    lines = [f"  [{finding.severity}]{state_tag(finding)} {finding.location}",
             f"    {finding.description}"]
    if finding.suggestion:
        lines.append(f"    Suggestion: {finding.suggestion}")
    lines.append(f"    Sources: {', '.join(finding.sources)} ({finding.agreement})")
    if (agree := agreeing(finding)) is not None:
        lines.append(f"    {agree}; other wordings:")
        lines += [f"      - {wording_line(member)}" for member in other_wordings(finding)]
    if finding.reported_confidence is not None:
        lines.append(f"    Reported confidence: {finding.reported_confidence}")
    lines.append(f"    Key: {finding.finding_key}")
    if finding.acknowledged:
        reason = finding.ack_reason or "no reason given"
        lines.append(f"    Acknowledged ({finding.ack_match or 'exact'}): {reason}")
    lines.append("")
    return lines


def _channel_lines(name: str, channel: ChannelResult) -> list[str]:
    lines = [f"  {name}: {channel_state(channel)}"]
    parts = telemetry_parts(channel.telemetry)
    if parts:
        lines.append("    " + " · ".join(parts))
    reason = failure_reason(channel)
    if reason is not None:
        lines.append(f"    Reason: {reason}")
    if channel.note:
        lines.append(f"    Note: {channel.note}")
    if channel.status == "not_installed" and name.startswith(COMPENSATING_PREFIX):
        lines.append("    → compensator not installed — install it, or choose another: "
                     "mmr config set defaults.compensator.channel <channel>")
    elif channel.status == "not_installed":
        lines.append(f"    → not installed — install it, or silence: mmr config disable {name}")
    elif channel.status in DEGRADED_STATUSES and channel.recovery:
        lines.append(f"    → {channel.recovery}")
    return lines
