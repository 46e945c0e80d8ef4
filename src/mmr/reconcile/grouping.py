"""Greedy grouping of attributed findings.

Findings are visited in a fixed sort order and each joins the best existing group (by
key, else by description similarity at the same normalised location) or founds a new
one, exactly like MMR 4.0.1. Groups are indexed by key, by signature and by raw
location, so a finding only looks at groups it could join instead of scanning them all;
candidates are kept in the order MMR 4.0.1's full scan would meet them. Where many
findings share one normalised location, a prefix-filter index over shingles
(:mod:`mmr.reconcile.prefix_index`) keeps the candidate search near-linear.
This is ``defaults.reconcile: reference``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mmr.reconcile.attributed import Attributed
from mmr.reconcile.collation import CollateKey, collate_key
from mmr.reconcile.prefix_index import PrefixIndex

FUZZY_THRESHOLD = 0.7
#: At most this many findings at one normalised location are searched without an index.
#: The index costs more per finding than a scan of the few groups a finding could join
#: when reviewers spread their findings over a file's lines (up to ~300 a file), and less
#: when they pile onto one or two lines (from ~50); 128 bounds the scan's quadratic cost
#: per location either way (measured in benchmarks/RESULTS.md).
SCAN_LIMIT = 128


@dataclass(slots=True, eq=False)
class Group:
    """A group keeps its founder's identity for every later comparison."""

    order: int
    founder: Attributed
    nloc_order: CollateKey
    members: list[Attributed] = field(default_factory=list)
    location_by_source: dict[str, str] = field(default_factory=dict)
    raw_locations: set[str] = field(default_factory=set)

    def can_join(self, f: Attributed) -> bool:
        """A channel appears twice in a group only at the identical raw location."""
        return self.location_by_source.get(f.source, f.location) == f.location

    def add(self, f: Attributed) -> None:
        self.members.append(f)
        self.location_by_source.setdefault(f.source, f.location)
        self.raw_locations.add(f.location)

    def rank(self, f: Attributed) -> tuple[bool, int, str, CollateKey]:
        """Sort key of ``best``: same raw location first, then score, key, location."""
        mine, theirs = self.founder.signature, f.signature
        score = (mine[1] == theirs[1]) + (mine[2] == theirs[2])
        return (f.location not in self.raw_locations, -score, self.founder.ident.finding_key,
                self.nloc_order)


def _similar(a: frozenset[str], b: tuple[str, ...]) -> bool:
    """Jaccard >= 0.7 of a set and distinct grams, skipping the set work when the sizes
    alone rule it out."""
    size_a, size_b = len(a), len(b)
    if (size_a / size_b if size_a < size_b else size_b / size_a) < FUZZY_THRESHOLD:
        return False
    common = len(a.intersection(b))
    return common / (size_a + size_b - common) >= FUZZY_THRESHOLD


def _best(candidates: list[Group], f: Attributed) -> Group | None:
    """The first candidate by :meth:`Group.rank`, ties kept in candidate order."""
    return min(candidates, key=lambda g: g.rank(f)) if candidates else None


class Grouper:
    """Greedy grouping with indexes in place of MMR 4.0.1's full scans.

    A fuzzy candidate must share the finding's normalised location and either its
    category and suggestion (its signature) or one of its raw locations. Every member of a
    group has the founder's normalised location, so a raw location implies it; two
    indexes over the groups with a non-empty founder shingle therefore find exactly the
    groups MMR 4.0.1's scan would test. ``findings`` (all that will be placed) fixes
    the element order of the prefix indexes of crowded locations.
    """

    def __init__(self, findings: Sequence[Attributed]) -> None:
        self.groups: list[Group] = []
        self._by_key: dict[str, list[Group]] = {}
        self._by_signature: dict[tuple[str, str, str], list[Group]] = {}
        self._by_raw_location: dict[str, list[Group]] = {}
        self._at_location: dict[str, list[Attributed]] = {}
        for f in findings:
            self._at_location.setdefault(f.ident.normalized_location, []).append(f)
        self._shingle_index: dict[str, PrefixIndex[Group]] = {}

    def place(self, f: Attributed) -> None:
        """Join by key, else by similarity, else found a new group."""
        keyed = self._by_key.setdefault(f.ident.finding_key, [])
        group = _best([g for g in keyed if g.can_join(f)], f)
        if group is None:
            group = _best(self._fuzzy_candidates(f), f)
            if group is not None:
                keyed.append(group)
        if group is None:
            group = self._found(f)
            keyed.append(group)
        self._add(group, f)

    def _crowded(self, nloc: str) -> bool:
        return len(self._at_location.get(nloc, ())) > SCAN_LIMIT

    def _fuzzy_candidates(self, f: Attributed) -> list[Group]:
        """Groups ``f`` may join by similarity to their founder, in creation order."""
        if not f.grams:
            return []
        nloc = f.ident.normalized_location
        if self._crowded(nloc):
            index = self._shingle_index.get(nloc)
            found = index.candidates(f.grams) if index else set()
            pool = [g for g in found if g.founder.signature == f.signature
                    or f.location in g.raw_locations]
        else:
            same = self._by_signature.get(f.signature, [])
            nearby = self._by_raw_location.get(f.location, [])
            pool = same if not nearby else list({*same, *nearby})
        # MMR 4.0.1 scans every group in creation order; keep that order for ties.
        pool.sort(key=lambda g: g.order)
        return [g for g in pool if g.can_join(f) and _similar(g.founder.shingle, f.grams)]

    def _found(self, f: Attributed) -> Group:
        nloc = f.ident.normalized_location
        group = Group(len(self.groups), f, collate_key(nloc))
        self.groups.append(group)
        if f.grams:
            self._by_signature.setdefault(f.signature, []).append(group)
            if self._crowded(nloc):
                index = self._shingle_index.get(nloc)
                if index is None:
                    universe = (a.grams for a in self._at_location[nloc])
                    index = self._shingle_index[nloc] = PrefixIndex(FUZZY_THRESHOLD, universe)
                index.add(f.grams, group)
        return group

    def _add(self, group: Group, f: Attributed) -> None:
        if f.location not in group.raw_locations and group.founder.grams:
            self._by_raw_location.setdefault(f.location, []).append(group)
        group.add(f)
