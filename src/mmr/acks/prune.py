"""``mmr ack prune``: remove acks whose findings have not been seen for a while.

MMR 4.0.1's prune is a no-op. mmr removes an ack when ``now − last seen`` exceeds
the retention (``--older-than DAYS``, else ``defaults.ack_retention_days``, 90), where
*last seen* is the latest of:

1. the ack's own ``created_at``;
2. its entry in ``<MMR root>/ack-last-seen.json`` (written whenever a results run
   applies it, :mod:`mmr.acks.seen`);
3. the ``created_at`` of any stored job whose ``results.json`` has a finding the ack
   matches (exact key, or same normalised location and J ≥ 0.7) — this covers jobs
   reviewed before sightings were recorded.

Only valid ack records are candidates; invalid files and symlinks are never followed or
deleted, only listed under ``skipped``. An ack with no readable date at all is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from mmr.acks.jobs import JobFindings
from mmr.acks.record import AckRecord, AckScope, ack_location
from mmr.acks.seen import read_last_seen
from mmr.acks.store import AckStore
from mmr.errors import UsageError
from mmr.reconcile.reconciler import FUZZY_THRESHOLD
from mmr.reconcile.stable_id import jaccard
from mmr.store.records import iso_timestamp, parse_timestamp


@dataclass(frozen=True)
class PrunedAck:
    finding_key: str
    scope: AckScope
    path: str
    last_seen: str


@dataclass
class PruneReport:
    """What prune did (or, with ``dry_run``, would do); :meth:`to_json_dict` is the output."""

    scope: str
    dry_run: bool
    retention_days: float
    removed: list[PrunedAck] = field(default_factory=list)
    kept: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "pruned": len(self.removed),
            "scope": self.scope,
            "dry_run": self.dry_run,
            "retention_days": self.retention_days,
            "removed": [asdict(r) for r in self.removed],
            "kept": self.kept,
            "skipped": self.skipped,
        }


class _Sightings:
    """Latest job ``created_at`` per finding key and per normalised location."""

    def __init__(self, jobs: Iterable[JobFindings]) -> None:
        self.by_key: dict[str, datetime] = {}
        self.by_location: dict[str, list[tuple[frozenset[str], datetime]]] = {}
        for job in jobs:
            if job.created_at is None:
                continue
            for finding in job.findings:
                self._add(finding, job.created_at)

    def _add(self, finding: dict[str, Any], when: datetime) -> None:
        key = finding.get("finding_key")
        if isinstance(key, str) and (key not in self.by_key or self.by_key[key] < when):
            self.by_key[key] = when
        location, shingle = finding.get("location"), finding.get("description_shingle")
        if isinstance(location, str) and isinstance(shingle, list) and shingle:
            grams = frozenset(g for g in shingle if isinstance(g, str))
            self.by_location.setdefault(ack_location(location), []).append((grams, when))

    def latest_for(self, ack: AckRecord) -> datetime | None:
        """The newest job in which a finding this ack matches was reported."""
        times = [self.by_key[ack.finding_key]] if ack.finding_key in self.by_key else []
        grams = ack.shingle_set
        if grams:
            times.extend(when for shingle, when in self.by_location.get(ack.normalized_location, ())
                         if jaccard(shingle, grams) >= FUZZY_THRESHOLD)
        return max(times, default=None)


def check_retention_days(days: float) -> float:
    if isinstance(days, bool) or not isinstance(days, int | float) or not days >= 0:
        raise UsageError(f"retention must be a number of days >= 0 (got {days})")
    return days


def _retention(days: float) -> timedelta:
    try:
        return timedelta(days=days)
    except OverflowError:  # more days than a timedelta holds: nothing is ever old enough
        return timedelta.max


def prune_acks(
    store: AckStore,
    scopes: Sequence[AckScope],
    *,
    retention_days: float,
    now: datetime,
    dry_run: bool,
    jobs: Iterable[JobFindings] = (),
    scope_label: str | None = None,
) -> PruneReport:
    """Remove (or list, with ``dry_run``) the acks in ``scopes`` not seen within retention.

    A project scope without a project root is passed over. Unusable scope directories
    raise :class:`~mmr.acks.store.AckStoreError` (exit 1) before anything is
    removed.
    """
    retention = _retention(check_retention_days(retention_days))
    now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    active = [s for s in scopes if s == "user" or store.project_root is not None]
    contents = {scope: store.read_scope(scope) for scope in active}
    seen = read_last_seen(store.user_root)
    sightings = _Sightings(jobs)
    report = PruneReport(scope=scope_label or ("all" if len(scopes) > 1 else scopes[0]),
                         dry_run=dry_run, retention_days=retention_days)
    for scope, scope_contents in contents.items():
        report.skipped.extend({"path": str(s.path), "reason": s.reason}
                              for s in scope_contents.skipped)
        for record in scope_contents.records:
            last = _last_seen(record, seen, sightings)
            if last is None or now - last <= retention:
                report.kept += 1
                continue
            path = store.scope_dir(scope) / f"{record.finding_key}.json"
            if not dry_run:
                path.unlink(missing_ok=True)
            report.removed.append(PrunedAck(record.finding_key, scope, str(path),
                                            iso_timestamp(last)))
    if not dry_run:
        for scope in active:
            store.invalidate(scope)
    return report


def _last_seen(
    record: AckRecord, seen: dict[str, datetime], sightings: _Sightings
) -> datetime | None:
    candidates = [
        parse_timestamp(record.created_at),
        seen.get(record.finding_key),
        sightings.latest_for(record),
    ]
    return max((c for c in candidates if c is not None), default=None)
