"""Greedy grouping of attributed findings.

Findings are visited in a fixed sort order and each joins the best existing group (by
key, else by description similarity at the same normalised location) or founds a new
one, exactly like MMR 4.0.1. Groups are indexed by key, by signature and by raw
location, so a finding only looks at groups it could join instead of scanning them all;
candidates are kept in the order MMR 4.0.1's full scan would meet them. Where many
findings share one normalised location, a prefix-filter index over shingles
(:mod:`mmr.reconcile.prefix_index`) keeps the candidate search near-linear.

This is ``defaults.reconcile: reference``. With ``merge_reworded=True`` a finding that
MMR 4.0.1's rule leaves alone joins a group it could have joined by that rule (and of its
category) whose founder says the same in other function words
(:mod:`mmr.reconcile.wording`): the rule of earlier mmr versions, which
``reconcile`` no longer uses; ``benchmarks/bench_dedup_real.py`` still measures it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from mmr.reconcile.attributed import Attributed
from mmr.reconcile.collation import CollateKey, collate_key
from mmr.reconcile.prefix_index import PrefixIndex
from mmr.reconcile.wording import REWORDED_THRESHOLD, reworded

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

    def rank(self, f: Attributed) -> tuple[bool, int, str, CollateKey]:
        """Sort key of ``best``: same raw location first, then score, key, location."""
        mine, theirs = self.founder.signature, f.signature
        score = (mine[1] == theirs[1]) + (mine[2] == theirs[2])
        return (
            f.location not in self.raw_locations,
            -score,
            self.founder.ident.finding_key,
            self.nloc_order,
        )


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
    the element order of the prefix indexes of crowded locations; ``merge_reworded=False``
    is MMR 4.0.1's rule alone.
    """

    def __init__(self, findings: Sequence[Attributed] = (), *, merge_reworded: bool = True) -> None:
        self._merge_reworded = merge_reworded
        self.groups: list[Group] = []
        self._by_key: dict[str, list[Group]] = {}
        self._by_signature: dict[tuple[str, str, str], list[Group]] = {}
        self._by_raw_location: dict[str, list[Group]] = {}
        self._by_location: dict[str, list[Group]] = {}
        self._at_location: dict[str, list[Attributed]] = {}
        for f in findings:
            self._at_location.setdefault(f.ident.normalized_location, []).append(f)
        self._shingle_index: dict[str, PrefixIndex[Group]] = {}
        self._word_index: dict[str, PrefixIndex[Group]] = {}

    def place(self, f: Attributed) -> None:
        """Join by key, else by similarity, else found a new group."""
        keyed = self._by_key.setdefault(f.ident.finding_key, [])
        group = _best([g for g in keyed if g.can_join(f)], f)
        if group is None:
            group = _best(self._fuzzy_candidates(f), f) or _best(self._reworded(f), f)
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

    def _reworded(self, f: Attributed) -> list[Group]:
        """Groups whose founder says what ``f`` says in other words.

        MMR 4.0.1's structural condition still holds (same signature or one of the
        group's raw locations) and the category must match as well.
        """
        words = f.words if self._merge_reworded else frozenset()
        if not words:
            return []
        nloc, ncat = f.ident.normalized_location, f.ident.normalized_category
        index = self._word_index.get(nloc)
        pool = index.candidates(words) if index else self._by_location.get(nloc, [])
        return sorted(
            (g for g in pool if g.founder.ident.normalized_category == ncat
             and (g.founder.signature == f.signature or f.location in g.raw_locations)
             and g.can_join(f) and reworded(g.founder.words, words)),
            key=lambda g: g.order,
        )

    def _found(self, f: Attributed) -> Group:
        nloc = f.ident.normalized_location
        group = Group(len(self.groups), f, collate_key(nloc))
        self.groups.append(group)
        crowded = self._crowded(nloc)
        if f.grams:
            self._by_signature.setdefault(f.signature, []).append(group)
            if crowded:
                self._index(self._shingle_index, nloc, FUZZY_THRESHOLD, lambda a: a.grams,
                            meetings=2).add(f.grams, group)
        if crowded:
            if f.words:
                self._index(self._word_index, nloc, REWORDED_THRESHOLD,
                            lambda a: a.words).add(f.words, group)
        else:
            self._by_location.setdefault(nloc, []).append(group)
        return group

    def _index(self, indexes: dict[str, PrefixIndex[Group]], nloc: str, threshold: float,
               elements: Callable[[Attributed], Collection[str]],
               meetings: int = 1) -> PrefixIndex[Group]:
        index = indexes.get(nloc)
        if index is None:
            universe = (elements(a) for a in self._at_location[nloc])
            index = indexes[nloc] = PrefixIndex(threshold, universe, meetings=meetings,
                                                complete=True)
        return index

    def _add(self, group: Group, f: Attributed) -> None:
        group.members.append(f)
        group.location_by_source.setdefault(f.source, f.location)
        if f.location not in group.raw_locations:
            group.raw_locations.add(f.location)
            if group.founder.grams:
                self._by_raw_location.setdefault(f.location, []).append(group)
