"""Applying acknowledgments to reconciled findings.

An ack says "this finding is known and accepted": the reconciled finding stays in the
output, marked ``acknowledged``, counts as advisory and no longer blocks. Records and
files live in :mod:`mmr.acks.record` and :mod:`mmr.acks.store`;
this module decides *which* ack applies and under which trust policy.

Lookup order: exact key in project, exact key in user, then — for a non-empty
shingle — fuzzy in project, fuzzy in user, where fuzzy means the same normalised
location and Jaccard ≥ 0.7. Unlike MMR 4.0.1, the *best* fuzzy
candidate wins (highest J, ties to the smallest key) instead of the first file in
directory order, and the two scopes load independently, so a broken project scope
costs only the project acks, with a warning, instead of silently all acks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel

from mmr.acks.record import AckRecord, AckScope, ack_location
from mmr.acks.seen import record_sightings
from mmr.acks.store import AckStore, ScopeContents
from mmr.log import get_logger, stderr_line
from mmr.models import ReconciledFinding
from mmr.reconcile.reconciler import FUZZY_THRESHOLD
from mmr.reconcile.stable_id import jaccard

AckMatchKind = Literal["exact", "fuzzy"]
ProjectAckSource = Literal["working-tree", "base-ref", "none"]
WarningSink = Callable[[str], None]


@dataclass(frozen=True)
class AckPolicy:
    """Where project acks may come from for one review; user acks always load."""

    project_source: ProjectAckSource = "none"
    base_ref: str | None = None

    @classmethod
    def from_review_controls(cls, controls: Mapping[str, Any] | BaseModel | None) -> AckPolicy:
        """Rebuild the review's policy from ``job.json`` ``review_controls`` (results/reconcile).

        ``trust_project_acks`` is the *effective* working-tree decision (it already folds
        in ``--accept-new-acks``); else ``config_base_ref`` names the trusted ref; a job
        without controls loads no project acks, as MMR 4.0.1 does.
        """
        if isinstance(controls, BaseModel):
            controls = controls.model_dump()
        if not controls:
            return cls("none")
        if controls.get("trust_project_acks") is True:
            return cls("working-tree")
        ref = controls.get("config_base_ref")
        return cls("base-ref", ref) if isinstance(ref, str) and ref else cls("none")


@dataclass(frozen=True)
class AckMatch:
    record: AckRecord
    match: AckMatchKind
    scope: AckScope
    similarity: float = 1.0


@dataclass
class ScopeIndex:
    """The valid records of one scope, indexed by key and by normalised location."""

    records: Sequence[AckRecord] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        self.by_key: dict[str, AckRecord] = {}
        #: A member's key → the ack made on its group (the group's own key wins).
        self.by_member_key: dict[str, AckRecord] = {}
        self.by_location: dict[str, list[tuple[AckRecord, frozenset[str]]]] = {}
        for record in self.records:
            self.by_key[record.finding_key] = record
            for key in record.member_keys:
                self.by_member_key.setdefault(key, record)
            bucket = self.by_location.setdefault(record.normalized_location, [])
            bucket.append((record, record.shingle_set))

    def best_fuzzy(self, location: str, shingle: frozenset[str]) -> tuple[AckRecord, float] | None:
        """Highest-Jaccard record at ``location`` with J ≥ 0.7; ties go to the smallest key."""
        best: tuple[AckRecord, float] | None = None
        for record, grams in self.by_location.get(location, ()):
            score = jaccard(grams, shingle)
            if score < FUZZY_THRESHOLD:
                continue
            if best is None or score > best[1] or (
                score == best[1] and record.finding_key < best[0].finding_key
            ):
                best = (record, score)
        return best


def lookup(project: ScopeIndex, user: ScopeIndex, finding_key: str, location: str,
           shingle: Sequence[str], *, member_keys: Sequence[str] = ()) -> AckMatch | None:
    """The ack for one finding (``location`` already normalised), or None.

    Project shadows user at equal strength; an exact user match beats a fuzzy project one.
    An exact match is on the finding's key or on any of its members' keys, against an
    ack's key or the members' keys it recorded: the group's representative (whose key it
    carries) may change between runs, for instance when a reviewer is missing.
    """
    scopes: tuple[tuple[AckScope, ScopeIndex], ...] = (("project", project), ("user", user))
    keys = (finding_key, *member_keys)
    for scope, index in scopes:
        for table in (index.by_key, index.by_member_key):
            for key in keys:
                record = table.get(key)
                if record is not None:
                    return AckMatch(record, "exact", scope)
    if not shingle:
        return None  # an empty shingle never fuzzy-matches (J of two empties is 1.0)
    grams: frozenset[str] | None = None  # built only when some ack shares the location
    for scope, index in scopes:
        if location not in index.by_location:
            continue
        grams = frozenset(shingle) if grams is None else grams
        found = index.best_fuzzy(location, grams)
        if found is not None:
            return AckMatch(found[0], "fuzzy", scope, found[1])
    return None


def stamp(finding: ReconciledFinding, match: AckMatch | None) -> ReconciledFinding:
    """``finding`` with ``acknowledged``/``ack_match``/``ack_reason`` set from ``match``.

    Without a match any earlier stamp is cleared; nothing else changes (severity,
    agreement, confidence and sources stay as reconciled).
    """
    if match is None:
        if (finding.acknowledged, finding.ack_match, finding.ack_reason) == (None, None, None):
            return finding
        return finding.model_copy(update={"acknowledged": None, "ack_match": None,
                                          "ack_reason": None})
    return finding.model_copy(update={"acknowledged": True, "ack_match": match.match,
                                      "ack_reason": match.record.reason})


def match_all(
    findings: Iterable[ReconciledFinding], project: ScopeIndex, user: ScopeIndex
) -> list[AckMatch | None]:
    """The ack match of every finding, in order."""
    if not project.by_key and not user.by_key:  # no acks at all: nothing to normalise
        return [None for _ in findings]
    return [
        lookup(project, user, f.finding_key, ack_location(f.location), f.description_shingle,
               member_keys=[m.finding_key for m in f.members or ()])
        for f in findings
    ]


@dataclass(frozen=True)
class LoadedAcks:
    """Both scopes as one review sees them, plus the warnings loading produced."""

    project: ScopeIndex
    user: ScopeIndex
    warnings: tuple[str, ...] = ()


def load_acks(store: AckStore, policy: AckPolicy) -> LoadedAcks:
    """Load each scope independently under ``policy``; a failing scope contributes nothing.

    User acks always load (they live on the operator's machine). Project acks come from
    the working tree, from the trusted ref, or not at all (docs/trust.md).
    """
    warnings: list[str] = []
    project = ScopeIndex()
    if policy.project_source != "none" and store.project_root is not None:
        try:
            contents: ScopeContents = (
                store.read_project_at_ref(policy.base_ref)
                if policy.project_source == "base-ref" and policy.base_ref is not None
                else store.read_scope("project")
            )
            project = ScopeIndex(contents.records)
        except Exception as exc:  # fail safe: a broken scope means no acks from it
            warnings.append(f"[mmr] warning: project acks ignored: {exc}")
    user = ScopeIndex()
    try:
        user = ScopeIndex(store.read_scope("user").records)
    except Exception as exc:  # fail safe, as for the project scope
        warnings.append(f"[mmr] warning: user acks ignored: {exc}")
    return LoadedAcks(project, user, tuple(warnings))


def apply_acks(findings: Sequence[ReconciledFinding], store: AckStore, policy: AckPolicy, *,
               now: datetime | None = None,
               warn: WarningSink | None = None) -> list[ReconciledFinding]:
    """Stamp ``acknowledged``/``ack_match``/``ack_reason`` on every finding an ack matches.

    Fail safe: any unexpected error means "no acks at all" and is logged;
    scope load failures are printed through ``warn`` (stderr by default). The keys of the
    acks that matched are recorded in the MMR root's last-seen file, which ``ack prune``
    reads; failing to record never fails the run.
    """
    sink = warn or stderr_line
    try:
        loaded = load_acks(store, policy)
        for line in loaded.warnings:
            sink(line)
        matches = match_all(findings, loaded.project, loaded.user)
        stamped = [stamp(f, m) for f, m in zip(findings, matches, strict=True)]
    except Exception as exc:
        get_logger(__name__).warning("ack lookup failed; applying no acks", error=repr(exc))
        return [stamp(f, None) for f in findings]
    keys = [m.record.finding_key for m in matches if m is not None]
    if keys:
        try:
            record_sightings(store.user_root, keys, _aware(now))
        except Exception as exc:
            get_logger(__name__).warning("could not record ack sightings", error=repr(exc))
    return stamped


def _aware(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    return now if now.tzinfo is not None else now.replace(tzinfo=UTC)
