"""Credentials a model repeats in its reply, taken out before the results are stored or printed.

The results pipeline runs every channel's findings and its ``per_channel`` entry through
here once, so JSON, text, markdown, SARIF, GitHub annotations and the job's
``results.json`` all get the same redacted text. A finding whose text held a credential
keeps its place, severity and the rest of its words (only the value becomes
``<redacted:KIND>``). ``memo`` (text → redacted text, one per results run) redacts each
distinct text once: suggestions and locations repeat across findings and channels.
"""

from __future__ import annotations

from mmr.models import ChannelResult, Finding
from mmr.secrets.credentials import redact_credentials

_FINDING_FIELDS = ("location", "description", "suggestion", "replacement")
_RESULT_FIELDS = ("error", "raw_output", "recovery")


def _redacted(value: str | None, memo: dict[str, str] | None = None) -> str | None:
    if not value:
        return value
    if memo is None:
        return redact_credentials(value)[0]
    out = memo.get(value)
    if out is None:
        out = memo[value] = redact_credentials(value)[0]
    return out


def redact_finding(finding: Finding, memo: dict[str, str] | None = None) -> Finding:
    """The finding with credentials out of its location, description, suggestion and
    replacement."""
    update = {name: new for name in _FINDING_FIELDS
              if (new := _redacted(getattr(finding, name), memo)) != getattr(finding, name)}
    return finding.model_copy(update=update) if update else finding


def redact_findings(findings: list[Finding], memo: dict[str, str] | None = None) -> list[Finding]:
    return [redact_finding(finding, memo) for finding in findings]


def redact_channel_result(result: ChannelResult,
                          memo: dict[str, str] | None = None) -> ChannelResult:
    """A channel's entry (its findings in every place, error, raw output), redacted."""
    update: dict[str, object] = {
        name: new for name in _RESULT_FIELDS
        if (new := _redacted(getattr(result, name))) != getattr(result, name)}
    for name in ("findings", "outside_diff_findings", "unanchored_findings"):
        shown = getattr(result, name)
        if shown:
            redacted = redact_findings(shown, memo)
            if redacted != shown:
                update[name] = redacted
    return result.model_copy(update=update) if update else result
