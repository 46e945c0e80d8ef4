"""``--format rdjsonl``: reviewdog's diagnostic format, one JSON object per line.

Each reconciled finding is one ``Diagnostic`` (reviewdog's ``proto/rdf``): ``message``,
``location`` (``path`` and a line-wise ``range``, present only when the location names a
file), ``severity`` (``ERROR`` when the finding blocks the gate, ``INFO`` when it is
acknowledged or P3, ``WARNING`` otherwise — so ``reviewdog -fail-level=error`` fails
exactly when mmr blocks), ``source`` ``mmr``, ``code`` the finding's rule
(``mmr/security``) and ``original_output`` ``[P1] src/a.py:42`` (without it reviewdog shows
the whole JSON line as the raw output). The message ends with the ``finding_key`` a reader
needs for ``mmr ack add``. A review with no findings prints nothing.

The model's suggestion is prose, not a replacement for a range of the file, so it goes
in the message and never into reviewdog's ``suggestions`` (which would rewrite code).
"""

from __future__ import annotations

import json
from typing import Any

from mmr.formatters.annotation import (
    acknowledgement_line,
    gate_level,
    rule_id,
    source_span,
    sources_line,
    suggestion_text,
)
from mmr.formatters.labels import PLACE_TITLES, off_diff_gated, off_diff_groups
from mmr.formatters.sanitize import json_escaped
from mmr.models import ReconciledFinding, ReconciledResults
from mmr.vocabulary import Severity

_SEVERITIES = {"error": "ERROR", "warning": "WARNING", "notice": "INFO"}
#: reviewdog reads a line with Go's ``bufio.Scanner``, which gives up on lines over 64 KiB.
MAX_LINE_BYTES = 60_000
_ELLIPSIS = "…"


def render_rdjsonl(results: ReconciledResults) -> str:
    """One diagnostic per line, without a trailing newline; empty with no findings.

    Off-diff findings follow, their message naming their place; an ungated one
    is never ``ERROR`` and an unanchored one has no location.
    """
    lines = [diagnostic_line(f, results.fix_threshold) for f in results.reconciled_findings]
    gated = off_diff_gated(results)
    for place, findings in off_diff_groups(results):
        lines += [diagnostic_line(f, results.fix_threshold, place=place, gated=gated)
                  for f in findings]
    return "\n".join(lines)


def diagnostic_line(finding: ReconciledFinding, fix_threshold: Severity, *,
                    place: str | None = None, gated: bool = True) -> str:
    """One finding as one line of compact JSON, its message cut to stay under the limit."""
    data = diagnostic(finding, fix_threshold, gated)
    if place is not None:
        note = f"{PLACE_TITLES[place]}{'' if gated else ', not gated'}"
        data["message"] = f"[{note}] {data['message']}"
        if place == "unanchored":
            data.pop("location", None)
    line = _dumps(data)
    if _size(line) <= MAX_LINE_BYTES:
        return line
    message: str = data["message"]
    low, high = 0, len(message)  # the longest prefix that fits lies in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        data["message"] = message[:middle] + _ELLIPSIS
        if _size(_dumps(data)) <= MAX_LINE_BYTES:
            low = middle
        else:
            high = middle
    data["message"] = message[:low] + _ELLIPSIS
    return _dumps(data)


def diagnostic(finding: ReconciledFinding, fix_threshold: Severity,
               gated: bool = True) -> dict[str, Any]:
    """The reviewdog ``Diagnostic`` for one finding, as plain JSON data."""
    parts = [suggestion_text(finding), sources_line(finding)]
    acknowledged = acknowledgement_line(finding)
    if acknowledged:
        parts.append(acknowledged)
    parts.append(f"Key: {finding.finding_key}")
    data: dict[str, Any] = {"message": "\n\n".join(parts)}
    span = source_span(finding.location)
    if span is not None:
        location: dict[str, Any] = {"path": span.path}
        if span.start_line is not None:
            start: dict[str, int] = {"line": span.start_line}
            if span.start_column is not None:
                start["column"] = span.start_column
            location["range"] = {"start": start}
            if span.end_line is not None:
                location["range"]["end"] = {"line": span.end_line}
        data["location"] = location
    data["severity"] = _SEVERITIES[gate_level(finding, fix_threshold, gated)]
    data["source"] = {"name": "mmr"}
    data["code"] = {"value": rule_id(finding.category)}
    data["original_output"] = f"[{finding.severity}] {finding.location}"
    return data


def _size(line: str) -> int:
    return len(line.encode("utf-8"))


def _dumps(value: Any) -> str:
    # Lone surrogates (undecodable channel bytes) must not make the line invalid UTF-8.
    return json_escaped(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "replace"
    ).decode("utf-8"))
