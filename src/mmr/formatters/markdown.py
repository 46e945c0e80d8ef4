"""``--format markdown``: the report for a PR comment or a step summary.

Every table cell is escaped (MMR 4.0.1 escapes only description and suggestion, so a
``|`` in a location broke its table).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mmr.formatters.labels import (
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
from mmr.formatters.sanitize import code_span, for_markdown, markdown_text

if TYPE_CHECKING:
    from mmr.models import ChannelResult, ReconciledFinding, ReconciledResults

TABLE_HEADER = "| Severity | Location | Description | Suggestion | Sources | Agreement |"
TABLE_RULE = "|----------|----------|-------------|------------|---------|-----------|"
_NEWLINE = re.compile(r"\r\n|\r|\n")


def render_markdown(results: ReconciledResults) -> str:
    """The markdown report, lines joined with ``\\n`` and no trailing newline."""
    if is_gate_document(results):  # its literals as code spans of the text as written
        return "\n".join(gate_lines(results, code_span, markdown_text, "- "))
    results = for_markdown(results)
    lines = [f"## Multi-Model Review — {verdict_label(results)}", "", _job_line(results)]
    if results.trust_mode is not None:
        trust = trust_line(results, config_file="`.mmr.yaml`")
        lines.append(f"**{trust.replace(': ', ':** ', 1)}")
    lines += _honesty_lines(results)
    lines.append("")
    off_diff = off_diff_groups(results)
    if results.reconciled_findings:
        lines += ["### Findings", "", TABLE_HEADER, TABLE_RULE]
        lines += [_finding_row(finding) for finding in results.reconciled_findings]
        lines.append("")
    else:
        lines += ["No findings in the diff." if off_diff else "No findings.", ""]
    for place, findings in off_diff:
        lines += [f"### {PLACE_TITLES[place]} ({len(findings)})", "",
                  f"_{PLACE_NOTES[place]}_", "", TABLE_HEADER, TABLE_RULE]
        lines += [_finding_row(finding) for finding in findings]
        lines.append("")
    if results.fixed_findings:
        lines += [f"### {FIXED_TITLE} ({len(results.fixed_findings)})", ""]
        lines += [f"- {escape_cell(f.severity)} {escape_cell(f.location)} — "
                  f"{escape_cell(f.description)}" for f in results.fixed_findings]
        lines.append("")
    lines += ["### Channels", ""]
    lines += [_channel_bullet(name, ch) for name, ch in results.per_channel.items()]
    if (total := run_total_line(results)) is not None:
        lines += ["", f"**{total.replace(': ', ':** ', 1)}"]
    return "\n".join(lines)


def escape_cell(text: str) -> str:
    """A table cell: ``|`` escaped, line breaks as ``<br>``."""
    return _NEWLINE.sub("<br>", text.replace("|", "\\|"))


def _job_line(results: ReconciledResults) -> str:
    segments = [f"**Job:** {results.job_id}", f"**Threshold:** {results.fix_threshold}"]
    if results.advisory_count > 0:
        segments.append(f"**Advisory:** {results.advisory_count}")
    segments.append(f"**Elapsed:** {results.metadata.total_elapsed}")
    return " | ".join(segments)


def _honesty_lines(results: ReconciledResults) -> list[str]:
    """The text report's lines under the headline, label in bold, each ending a line of
    one paragraph (two trailing spaces) but the last."""
    lines = [f"**{escape_cell(line).replace(': ', ':** ', 1)}  "
             for line in honesty_lines(results)]
    lines[-1] = lines[-1].removesuffix("  ")
    return ["", *lines]


def _finding_row(finding: ReconciledFinding) -> str:
    agreement: str = finding.agreement
    if finding.reported_confidence is not None:
        agreement += f" (model: {finding.reported_confidence})"
    if finding.acknowledged:
        agreement += " (acked)"
    sources = ", ".join(finding.sources)
    description = escape_cell(finding.description)
    if (agree := agreeing(finding)) is not None:
        sources = agree
        others = "<br>".join(escape_cell(wording_line(m)) for m in other_wordings(finding))
        description += (f"<details><summary>other wordings</summary>{others}</details>"
                        if others else "")
    cells = [
        escape_cell(finding.severity + state_tag(finding)), escape_cell(finding.location),
        description,
        escape_cell(finding.suggestion), escape_cell(sources), escape_cell(agreement),
    ]
    return "|" + "|".join(f" {cell} " for cell in cells) + "|"


def _channel_bullet(name: str, channel: ChannelResult) -> str:
    bullet = f"- **{name}:** {channel_state(channel)}"
    parts = telemetry_parts(channel.telemetry)
    if parts:
        bullet += " — " + " · ".join(parts)
    reason = failure_reason(channel)
    if reason is not None:
        bullet += f" — reason: {escape_cell(reason)}"
    if channel.note:
        bullet += f" — note: {escape_cell(channel.note)}"
    return bullet

