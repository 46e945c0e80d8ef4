"""``--format github``: workflow-command annotations for a GitHub Actions log.

stdout, in order: one ``::error``/``::warning``/``::notice`` command per finding, worst
first (``error`` blocks the gate; ``notice`` is acknowledged or P3); a notice counting
the findings GitHub would not show (it keeps 10 annotations of each level per step); the
verdict as one more command; then the text report. The text report quotes model output,
which quotes the diff under review, so it is printed between ``::stop-commands::`` markers:
a line in it that looks like a workflow command is shown, never run. The end token is a
hash of the report it closes, so nothing inside the report can contain it.

The step summary (``$GITHUB_STEP_SUMMARY``) is in :mod:`mmr.formatters.step_summary`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from mmr.formatters.annotation import (
    GateLevel,
    acknowledgement_line,
    gate_level,
    source_span,
    suggestion_text,
)
from mmr.formatters.labels import PLACE_TITLES, off_diff_gated, off_diff_groups
from mmr.formatters.sanitize import visible_controls
from mmr.formatters.text import render_text
from mmr.models import ReconciledFinding, ReconciledResults

#: Annotations of each level GitHub shows for one step; the rest are dropped silently.
ANNOTATIONS_PER_LEVEL = 10
_LEVEL_RANK: dict[GateLevel, int] = {"error": 0, "warning": 1, "notice": 2}
_VERDICT_LEVEL: dict[str, GateLevel] = {
    "pass": "notice", "degraded-pass": "notice", "blocked": "error",
    "needs-user-decision": "error",
}


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, ``\\r`` and ``\\n`` percent-encoded, then every
    other control, bidi, separator and zero-width character shown as an escape (a log
    viewer would otherwise obey or hide it)."""
    return visible_controls(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    """A workflow command's property value: as :func:`escape_data`, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(level: str, message: str, **properties: str | int | None) -> str:
    """``::level key=value,…::message`` with every part escaped; ``None`` values left out."""
    props = ",".join(f"{key}={escape_property(str(value))}" for key,
                     value in properties.items() if value is not None)
    return f"::{level}{' ' + props if props else ''}::{escape_data(message)}"


@dataclass(frozen=True)
class _Annotation:
    level: GateLevel
    finding: ReconciledFinding
    place: str | None = None


def render_github(results: ReconciledResults) -> str:
    """Annotations, the verdict command and the text report, without a trailing newline."""
    verdict_level = _VERDICT_LEVEL.get(results.verdict, "error")
    annotations = _worst_first(results)
    shown, hidden = _within_limits(annotations, verdict_level)
    lines = [_finding_command(a) for a in shown]
    if hidden:
        lines.append(workflow_command(
            "notice",
            f"{hidden} more finding(s) are not annotated: GitHub shows "
            f"{ANNOTATIONS_PER_LEVEL} annotations of each level a step. "
            "The report below lists every finding.",
            title="mmr",
        ))
    lines.append(workflow_command(verdict_level, results.summary, title="mmr verdict"))
    lines += _quoted(render_text(results))
    return "\n".join(lines)


def _worst_first(results: ReconciledResults) -> list[_Annotation]:
    annotations = [
        _Annotation(gate_level(f, results.fix_threshold), f) for f in results.reconciled_findings
    ]
    gated = off_diff_gated(results)
    annotations += [_Annotation(gate_level(f, results.fix_threshold, gated), f, place)
                    for place, findings in off_diff_groups(results) for f in findings]
    # sorted() is stable: within a level the findings keep their output order (severity first).
    return sorted(annotations, key=lambda a: _LEVEL_RANK[a.level])


def _within_limits(
    annotations: list[_Annotation], verdict_level: GateLevel
) -> tuple[list[_Annotation], int]:
    """The annotations GitHub will show, and how many others there are.

    The verdict command and, when anything is dropped, the overflow notice take a slot of
    their own level, so they are never the ones GitHub drops.
    """
    budget = dict.fromkeys(_LEVEL_RANK, ANNOTATIONS_PER_LEVEL)
    budget[verdict_level] -= 1
    counts = {level: sum(1 for a in annotations if a.level == level) for level in _LEVEL_RANK}
    if any(counts[level] > budget[level] for level in budget):
        budget["notice"] -= 1
    shown: list[_Annotation] = []
    for annotation in annotations:
        if budget[annotation.level] > 0:
            budget[annotation.level] -= 1
            shown.append(annotation)
    return shown, len(annotations) - len(shown)


def _finding_command(annotation: _Annotation) -> str:
    finding = annotation.finding
    span = None if annotation.place == "unanchored" else source_span(finding.location)
    message = suggestion_text(finding)
    if annotation.place is not None:
        message = f"{PLACE_TITLES[annotation.place]} ({finding.location}): {message}"
    acknowledged = acknowledgement_line(finding)
    if acknowledged:
        message += f"\n\n{acknowledged}"
    title = f"mmr {finding.severity} · {finding.agreement} · {', '.join(finding.sources)}"
    return workflow_command(annotation.level, message, file=span.path if span else None,
                            line=span.start_line if span else None,
                            endLine=span.end_line if span else None,
                            col=span.start_column if span else None, title=title)


def _quoted(report: str) -> list[str]:
    """The report between ``::stop-commands::<token>`` and ``::<token>::``."""
    token = "mmr-" + hashlib.sha256(report.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return [f"::stop-commands::{token}", report, f"::{token}::"]
