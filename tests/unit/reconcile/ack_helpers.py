"""Builders shared by the ack tests: reconciled findings and ack records with real keys."""

from __future__ import annotations

from datetime import UTC, datetime

from mmr.acks.record import AckRecord, new_ack_record
from mmr.models import Finding, ReconciledFinding
from mmr.reconcile.stable_id import identify

CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def reconciled(location: str, description: str, suggestion: str = "", *,
               severity: str = "P1", category: str | None = None) -> ReconciledFinding:
    """A single-source reconciled finding whose key and shingle are computed for real."""
    finding = Finding(severity=severity, location=location,  # type: ignore[arg-type]
                      description=description, suggestion=suggestion, category=category)
    identity = identify(finding)
    return ReconciledFinding(
        severity=finding.severity, location=identity.location, description=description,
        suggestion=suggestion, category=category, confidence="medium", sources=["codex"],
        agreement="unique", finding_key=identity.finding_key,
        description_shingle=list(identity.description_shingle),
    )


def ack_for(finding: ReconciledFinding, *, reason: str | None = None,
            now: datetime = CREATED) -> AckRecord:
    """The ack ``mmr ack add`` would write for ``finding``."""
    return new_ack_record(finding.finding_key, finding.location, finding.description_shingle,
                          reason=reason, now=now)
