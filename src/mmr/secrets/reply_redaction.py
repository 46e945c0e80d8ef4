"""Credentials a model repeats in its reply, taken out before the results are stored or printed.

The results pipeline runs every channel's findings and its ``per_channel`` entry through
here once, so JSON, text, markdown, SARIF, GitHub annotations and the job's
``results.json`` all get the same redacted text. A finding whose text held a credential
keeps its place, severity and the rest of its words (only the value becomes
``<redacted:KIND>``).
"""

from __future__ import annotations

from mmr.models import ChannelResult, Finding
from mmr.secrets.critique_redaction import redact_credentials

_FINDING_FIELDS = ("location", "description", "suggestion")
_RESULT_FIELDS = ("error", "raw_output", "recovery")


def _redacted(value: str | None) -> str | None:
    return redact_credentials(value)[0] if value else value


def redact_finding(finding: Finding) -> Finding:
    """The finding with credentials out of its location, description and suggestion."""
    update = {name: new for name in _FINDING_FIELDS
              if (new := _redacted(getattr(finding, name))) != getattr(finding, name)}
    return finding.model_copy(update=update) if update else finding


def redact_channel_result(result: ChannelResult,
                          findings: list[Finding]) -> tuple[ChannelResult, list[Finding]]:
    """A channel's entry (its findings, error, raw output) and its reconciliation findings,
    redacted."""
    clean = [redact_finding(finding) for finding in findings]
    update: dict[str, object] = {
        name: new for name in _RESULT_FIELDS
        if (new := _redacted(getattr(result, name))) != getattr(result, name)}
    if result.findings:
        shown = [redact_finding(finding) for finding in result.findings]
        if shown != result.findings:
            update["findings"] = shown
    return (result.model_copy(update=update) if update else result), clean
