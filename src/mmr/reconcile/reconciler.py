"""Merge the findings of several channels into reconciled findings.

:mod:`mmr.reconcile.calibrated` forms the groups (the default rule) or, with
``defaults.reconcile: reference``, :mod:`mmr.reconcile.grouping` by MMR 4.0.1's rule; this
module merges each group into one finding (agreement, confidence, representative, and its
members under the calibrated rule), orders the result and numbers it.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence

from mmr.models import (
    COMPENSATING_PREFIX,
    Agreement,
    Confidence,
    Finding,
    FindingMember,
    ReconciledFinding,
)
from mmr.reconcile.attributed import attribute
from mmr.reconcile.calibrated import group_calibrated
from mmr.reconcile.collation import collate_key
from mmr.reconcile.grouping import FUZZY_THRESHOLD, Group, Grouper
from mmr.reconcile.jstext import utf16_len
from mmr.vocabulary import DEFAULT_RECONCILE_RULE, SEVERITY_ORDER, ReconcileRule, Severity

__all__ = ["COMPENSATING_PREFIX", "FUZZY_THRESHOLD", "reconcile"]


def _agreement(sources: list[str], severities: set[Severity], severity: Severity,
               identities: Mapping[str, str]) -> tuple[Agreement, Confidence]:
    """Agreement and confidence of a group's sources, counted by reviewer identity."""
    if len(sources) > 1 and len({identities.get(s, s) for s in sources}) >= 2:
        if len(severities) == 1:
            return "consensus", "high"
        return "majority", "medium"
    if severity == "P0":
        return "unique", "high"
    if all(s.startswith(COMPENSATING_PREFIX) for s in sources):
        return "unique", "low"
    return "unique", "medium"


def _merge(group: Group, identities: Mapping[str, str],
           with_members: bool = False) -> ReconciledFinding:
    """One reconciled finding from a group (agreement counted by reviewer identity);
    ``with_members`` lists each channel's own finding."""
    members = group.members
    if len(members) == 1:  # most groups: nothing to merge
        rep = members[0]
        sources = [rep.source]
        severity = rep.finding.severity
        severities = {severity}
    else:
        sources = list(dict.fromkeys(m.source for m in members))
        severities = {m.finding.severity for m in members}
        severity = min(severities, key=SEVERITY_ORDER.__getitem__)
        rep = max(members, key=lambda m: utf16_len(m.finding.description))
    agreement, confidence = _agreement(sources, severities, severity, identities)
    finding = rep.finding
    optional = {
        "id": finding.id or None,  # an empty id is backfilled like a missing one
        "category": finding.category,
        "reported_confidence": finding.reported_confidence,
        "replacement": finding.replacement,
        "members": [
            FindingMember(channel=m.source, severity=m.finding.severity, location=m.location,
                          description=m.finding.description, suggestion=m.finding.suggestion,
                          finding_key=m.ident.finding_key)
            for m in members
        ] if with_members else None,
    }
    return ReconciledFinding(
        severity=severity,
        location=rep.location,
        description=finding.description,
        suggestion=finding.suggestion,
        confidence=confidence,
        sources=sources,
        agreement=agreement,
        finding_key=rep.ident.finding_key,
        description_shingle=list(rep.ident.description_shingle),
        **{name: value for name, value in optional.items() if value is not None},
    )


def _grouped(channel_findings: Mapping[str, Sequence[Finding]], identities: Mapping[str, str],
             rule: ReconcileRule) -> list[ReconciledFinding]:
    """Attribute, group and merge; every intermediate object is freed on return."""
    findings = attribute(channel_findings)
    if rule == "calibrated":
        return [_merge(g, identities, with_members=True) for g in group_calibrated(findings)]
    grouper = Grouper(findings)
    for f in findings:
        grouper.place(f)
    return [_merge(g, identities) for g in grouper.groups]


def reconcile(channel_findings: Mapping[str, Sequence[Finding]], *,
              identities: Mapping[str, str] | None = None,
              rule: ReconcileRule = DEFAULT_RECONCILE_RULE) -> list[ReconciledFinding]:
    """Group, merge, order and number the findings of the completed channels.

    ``channel_findings`` is in job channel order. ``identities`` maps a channel to the
    reviewer that really ran it (a compensating pass → its compensator); channels
    not in it are their own reviewer, as in MMR 4.0.1. ``rule="reference"`` groups by
    MMR 4.0.1's rule and writes what MMR 4.0.1 writes (no ``members``).
    """
    # Reconciling makes no reference cycles, so collector passes free nothing here, yet
    # cost a third of a run of 20,000 findings.
    paused = gc.isenabled()
    gc.disable()
    try:
        merged = _grouped(channel_findings, identities or {}, rule)
    finally:
        if paused:
            gc.enable()
    merged.sort(key=lambda r: (SEVERITY_ORDER[r.severity], r.finding_key, collate_key(r.location)))
    for position, finding in enumerate(merged, 1):
        if finding.id is None:
            finding.generated_id = f"F-{position:03d}"
    return merged
