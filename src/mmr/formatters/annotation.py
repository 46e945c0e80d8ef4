"""What the CI formats (SARIF, GitHub workflow commands, rdjsonl) read off a finding.

A finding's ``location`` is free text written by a model (``src/a.py:42``,
``src/a.py (line 4)``, ``Section 2: T2-B``); CI tools want a file path and a line span.
The rule id is keyed on the finding's category, never on its severity: ``finding_key``
leaves severity out on purpose (the same issue at P1 and at P2 is one finding), and code
scanning tracks an alert by rule id *and* fingerprint, so a severity in the rule id would
close and reopen the alert whenever reviewers disagree on severity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mmr.models import ReconciledFinding
from mmr.vocabulary import SEVERITY_ORDER, Severity

GateLevel = Literal["error", "warning", "notice"]

#: ``:N``, ``:N:M``, ``:N-M``, ``:N:M-K``, `` (line N)`` and GitHub's
#: ``#LN``/``#LN-LM`` anchors.
_SPAN = re.compile(
    r"(?::(?P<line>\d+)(?::(?P<col>\d+))?(?:-(?P<end>\d+))?"
    r"|\s*\(line (?P<prose>\d+)\)"
    r"|#L(?P<anchor>\d+)(?:-L(?P<anchor_end>\d+))?)\Z",
    re.IGNORECASE,
)
_SLASH_RUN = re.compile(r"/{2,}")
_URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(?://|[/\\])")  # file://, C:/, C:\\
_NOT_A_PATH = frozenset({"", "unknown", "n/a", "none", "-", "general", "output-parser"})
_RULE_SLUG = re.compile(r"[^\w.]+")
GENERAL_CATEGORY = "general"


@dataclass(frozen=True)
class SourceSpan:
    """A file path (forward slashes) and, when the location gave one, a line span."""

    path: str
    start_line: int | None = None
    end_line: int | None = None
    start_column: int | None = None


def source_span(location: str) -> SourceSpan | None:
    """The file a location names, or ``None`` when it names no file (``unknown``, prose).

    A path that would leave the repository (absolute, a drive or URI, a ``..`` segment)
    names no file either: CI tools would resolve it on the runner (docs/trust.md).
    """
    text = location.strip()
    if _URI_SCHEME.match(text):
        return None
    match = _SPAN.search(text)
    span = SourceSpan(path="")
    if match is not None:
        text = text[: match.start()]
        span = _span_from(match)
    path = _clean_path(text)
    if path is None:
        return None
    return SourceSpan(path, span.start_line, span.end_line, span.start_column)


def _span_from(match: re.Match[str]) -> SourceSpan:
    groups = match.groupdict()
    start = groups["line"] or groups["prose"] or groups["anchor"]
    start_line = _positive(start)
    if start_line is None:
        return SourceSpan(path="")
    end_line = _positive(groups["end"] if groups["col"] is None else None) or _positive(
        groups["anchor_end"]
    )
    if end_line is not None and end_line < start_line:
        end_line = None
    return SourceSpan("", start_line, end_line, _positive(groups["col"]))


def _positive(digits: str | None) -> int | None:
    if digits is None:
        return None
    value = int(digits)
    return value if value > 0 else None


def _clean_path(text: str) -> str | None:
    """The path part: before any remaining ``:``, ``./`` and ``/`` runs cleaned up."""
    path = text.replace("\\", "/").strip()
    if ":" in path:
        path = path.split(":", 1)[0].strip()
    path = path.removeprefix("./")
    path = _SLASH_RUN.sub("/", path)
    if path.lower() in _NOT_A_PATH or path.startswith(("/", "~")) or ".." in path.split("/"):
        return None
    if any(ch.isspace() for ch in path) and "/" not in path and "." not in path:
        return None  # prose such as "Section 2" (doc-conformance), not a file
    return path


def blocks_gate(finding: ReconciledFinding, fix_threshold: Severity) -> bool:
    """The gate rule: unacknowledged and at or above the threshold."""
    if finding.acknowledged:
        return False
    return SEVERITY_ORDER[finding.severity] <= SEVERITY_ORDER[fix_threshold]


def gate_level(finding: ReconciledFinding, fix_threshold: Severity,
               gated: bool = True) -> GateLevel:
    """``error`` for a finding that blocks the gate, ``notice`` for acknowledged or P3 ones.

    A finding outside the diff that is not gated is never an ``error``: it does not fail
    the review.
    """
    if blocks_gate(finding, fix_threshold):
        return "error" if gated else "warning"
    if finding.acknowledged or finding.severity == "P3":
        return "notice"
    return "warning"


def rule_slug(category: str | None) -> str:
    """A stable rule name for a category: lower case, runs of punctuation as ``-``."""
    slug = _RULE_SLUG.sub("-", (category or "").strip().lower()).strip("-_.")
    return slug or GENERAL_CATEGORY


def rule_id(category: str | None) -> str:
    """``mmr/security``, ``mmr/general`` for an uncategorised finding."""
    return f"mmr/{rule_slug(category)}"


def suggestion_text(finding: ReconciledFinding) -> str:
    """The description, then ``Suggestion: …`` after a blank line when there is one."""
    if finding.suggestion:
        return f"{finding.description}\n\nSuggestion: {finding.suggestion}"
    return finding.description


def sources_line(finding: ReconciledFinding) -> str:
    """``Sources: claude, codex (consensus, high confidence)``."""
    return (
        f"Sources: {', '.join(finding.sources)} "
        f"({finding.agreement}, {finding.confidence} confidence)"
    )


def acknowledgement_line(finding: ReconciledFinding) -> str | None:
    """``Acknowledged (exact): <reason>`` for an acknowledged finding."""
    if not finding.acknowledged:
        return None
    reason = finding.ack_reason or "no reason given"
    return f"Acknowledged ({finding.ack_match or 'exact'}): {reason}"
