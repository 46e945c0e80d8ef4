"""One job channel → its ``per_channel`` entry and its findings.

A channel that did not complete contributes nothing but its status, elapsed time and an
``error`` built from MMR 4.0.1's fixed words plus its log. A completed channel's
saved reply is parsed with its recorded ``output_parser``; a reply that does not parse
downgrades the channel to ``failed`` for this run (only in memory), and the findings of a
good reply are sorted by place: ``findings`` holds those naming a file the diff touches
(MMR 4.0.1's field), the other two places go in mmr's parallel fields.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mmr.models import ChannelResult, ParsedOutput, ParseFailure, Telemetry
from mmr.parsers import parse_channel_output
from mmr.parsers.validate import DISAPPROVED_EMPTY
from mmr.reconcile.anchoring import DiffScope, sort_findings
from mmr.reconcile.jstext import trim, utf16_len
from mmr.secrets.redact import redact_text
from mmr.store.job_status import format_elapsed
from mmr.store.records import ChannelJobEntry, elapsed_ms

LOG_LIMIT = 1000
LOAD_FAILURE = "Failed to load or parse channel output"
_STATUS_ERRORS = {
    "failed": "Channel failed",
    "timeout": "Channel timed out",
    "auth_failed": "Auth check failed",
    "not_installed": "CLI not found on PATH",
}
#: Reasons whose ``error`` is the parser's own message, without ``Channel failed: ``.
PARSE_REASONS = frozenset({"parse_error", "gate_failed"})
#: Fixed text of the skip reasons when the job kept no log line.
SKIP_REASON_TEXT = {
    "credential_refused": "credential-shaped content in diff",
    "diff_too_large": "diff too large",
    "nothing_to_review": "nothing left to review after the channel's diff_exclude",
}


def cut_log(text: str) -> str:
    """The trimmed text, cut to its first 1,000 characters (UTF-16 units, as JavaScript
    counts them) plus ``…`` when longer."""
    trimmed = trim(text)
    if utf16_len(trimmed) <= LOG_LIMIT:
        return trimmed
    units = trimmed.encode("utf-16-le", "surrogatepass")[: 2 * LOG_LIMIT]
    return units.decode("utf-16-le", "surrogatepass") + "…"


def entry_elapsed(entry: ChannelJobEntry) -> str:
    """From the timestamps when the entry has both, else the stored value."""
    ms = elapsed_ms(entry.started_at, entry.completed_at)
    if ms is not None:
        return format_elapsed(ms)
    return entry.elapsed or "0s"


def channel_result(entry: ChannelJobEntry, raw: str | None, log: str | None,
                   scope: DiffScope | None, *, include_raw: bool = False,
                   repo_root: Path | None = None) -> ChannelResult:
    """The channel's ``per_channel`` entry from its job entry, saved reply and log; its
    findings sorted by place."""
    extras = _extras(entry)
    elapsed = entry_elapsed(entry)
    if entry.status != "completed":
        return _not_completed(entry, raw, log, elapsed, include_raw=include_raw, extras=extras)
    raw_output = raw if include_raw else None
    if raw is None:
        return ChannelResult(status="failed", elapsed=elapsed, findings=[], error=LOAD_FAILURE,
                             **extras)
    parsed = parse_channel_output(raw, entry.output_parser or "default", repo_root=repo_root)
    if isinstance(parsed, ParseFailure) and entry.injected and parsed.error == DISAPPROVED_EMPTY:
        # `mmr reconcile` stores external input as approved: false whatever it held; with no
        # findings that is MMR 4.0.1's default, not a reviewer objecting.
        parsed = ParsedOutput(approved=False, findings=[], summary="")
    if isinstance(parsed, ParseFailure):
        return ChannelResult(status="failed", elapsed=elapsed, findings=[],
                             raw_output=raw_output, error=parsed.description, **extras)
    placed = sort_findings(parsed.findings, scope)
    # As MMR 4.0.1 does: an empty reply a parser accepted is flagged, not failed.
    error = LOAD_FAILURE if raw == "" else None
    return ChannelResult(status="completed", elapsed=elapsed, findings=placed.in_diff,
                         raw_output=raw_output, error=error,
                         outside_diff_findings=placed.outside_diff or None,
                         unanchored_findings=placed.unanchored or None, note=parsed.note, **extras)


def _not_completed(entry: ChannelJobEntry, raw: str | None, log: str | None, elapsed: str, *,
                   include_raw: bool, extras: dict[str, Any]) -> ChannelResult:
    shown = cut_log(log) if log and trim(log) else None
    detail = shown or entry.error
    error: str | None = None
    raw_output: str | None = None
    if entry.reason in PARSE_REASONS:
        error = detail or _STATUS_ERRORS.get(entry.status)
        raw_output = raw if include_raw else None
    elif entry.status == "skipped" and entry.reason:
        error = "Channel skipped: " + (detail or SKIP_REASON_TEXT.get(entry.reason, entry.reason))
    elif entry.status in _STATUS_ERRORS:
        base = _STATUS_ERRORS[entry.status]
        error = f"{base}: {detail}" if detail else base
    return ChannelResult(status=entry.status, elapsed=elapsed, findings=[], raw_output=raw_output,
                         error=error,
                         recovery=redact_text(entry.recovery) if entry.recovery else None, **extras)


def _extras(entry: ChannelJobEntry) -> dict[str, Any]:
    """mmr's additive fields: ``reason``, ``attempts`` (when > 1), ``telemetry``."""
    extras: dict[str, Any] = {"reason": entry.reason}
    if entry.attempts is not None and entry.attempts > 1:
        extras["attempts"] = entry.attempts
    if entry.cached:
        extras.update(cached=True, cached_from=entry.cached_from)
    if entry.telemetry:
        # Figures a newer mmr wrote in a shape this one does not know are left out.
        with contextlib.suppress(ValidationError):
            extras["telemetry"] = Telemetry.model_validate(entry.telemetry)
    return extras
