"""A channel's finding with its identity, and the order findings are grouped in.

:mod:`mmr.reconcile.grouping` places these one by one; everything it compares is
computed here once per finding, or on first use when most findings never need it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby

from mmr.models import Finding
from mmr.reconcile.collation import CollateKey, collate_key
from mmr.reconcile.stable_id import StableIdentity, identify


@dataclass(slots=True, eq=False)
class Attributed:
    """One channel's finding with its identity computed once."""

    source: str
    finding: Finding
    ident: StableIdentity
    location: str = field(init=False)
    #: The shingle's distinct grams in order (empty when the description is too short).
    grams: tuple[str, ...] = field(init=False)
    #: Normalised location, category and suggestion: equal ones may fuzzy-merge anywhere.
    signature: tuple[str, str, str] = field(init=False)
    _shingle: frozenset[str] | None = field(init=False, default=None)

    @property
    def shingle(self) -> frozenset[str]:
        """The shingle as a set, built when a founder is first compared."""
        if self._shingle is None:
            self._shingle = frozenset(self.grams)
        return self._shingle

    def __post_init__(self) -> None:
        self.location = self.ident.location
        self.grams = self.ident.description_shingle
        self.signature = (self.ident.normalized_location, self.ident.normalized_category,
                          self.ident.normalized_suggestion)

    def tie_break(self) -> tuple[CollateKey, CollateKey, CollateKey, CollateKey]:
        """Order among findings with the same key."""
        return (collate_key(self.source), collate_key(self.location),
                collate_key(self.finding.description), collate_key(self.finding.suggestion))


def attribute(channel_findings: Mapping[str, Sequence[Finding]]) -> list[Attributed]:
    """Every finding with its identity, in MMR 4.0.1's visiting order."""
    attributed = [
        Attributed(source, finding, identify(finding))
        for source, findings in channel_findings.items()
        for finding in findings
    ]
    attributed.sort(key=lambda a: a.ident.finding_key)
    # Sorting each run of equal keys by the tie-break equals one stable sort on both,
    # and skips the collation work for the (common) keys that occur once.
    ordered: list[Attributed] = []
    for _, run in groupby(attributed, key=lambda a: a.ident.finding_key):
        same_key = list(run)
        if len(same_key) > 1:
            same_key.sort(key=Attributed.tie_break)
        ordered.extend(same_key)
    return ordered
