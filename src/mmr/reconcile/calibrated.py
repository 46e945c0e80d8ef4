"""The calibrated grouping rule (``defaults.reconcile: calibrated``, the default).

Real reviewers describe one defect in their own words and place it a few lines apart (the
line of the call, of the condition, of the assignment). MMR 4.0.1's rule (same
normalised location, description-shingle Jaccard >= 0.7) merges almost none of those
(``benchmarks/bench_dedup_real.py`` measures it on real reviews). This rule, calibrated
on those reviews:

1. **Exact key** first, as MMR 4.0.1 does: findings with one ``finding_key`` (same
   file, description, suggestion and category) are one finding wherever they sit.
2. **Same file, nearby lines.** A finding may join a group only when one of the group's
   members is in the same file (normalised location) and their line ranges, each widened
   by :data:`WINDOW` lines, overlap. A location without a line (a whole-file finding) is
   near every line of its file: the wording alone decides. Never across files.
3. **Same defect in other words.** The description's terms are its content words
   (:func:`mmr.reconcile.wording.content_words`: no function words or hedges, negations
   as ``not``, number words as digits, a plural ``s`` dropped). Two findings'
   similarity is the Jaccard index of their terms. (Cutting words to a stem, TF-IDF
   weights over the run's findings and character grams separate no better on the
   calibration pull requests; ``bench_dedup_real.py --study`` compares them.)
4. **Average linkage, agglomerative.** In each file, starting from the exact-key groups,
   the two groups whose mean similarity over all their cross pairs is highest merge,
   until no two reach :data:`THRESHOLD` (pairs not near each other count as 0). Joining
   on any one pair (single linkage) chains different defects together through one vague
   finding; requiring every pair (complete linkage) splits a group as soon as one
   reviewer is terse; comparing with a group's founder, as MMR 4.0.1 does, depends
   on which finding came first. Placing findings one by one into the best group by the
   same mean (greedy) depends on the visiting order: on the calibration pull requests
   precision moved between 0.88 and 1.00 with the order. Agglomerating does not.

5. **One channel, one place.** A channel joins a group twice only at the identical
   location, as in MMR 4.0.1: its findings at two places are two findings to it (a
   linter's "unused variable" at two lines, two credentials on adjacent lines).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush
from statistics import fmean

from mmr.reconcile.attributed import Attributed
from mmr.reconcile.collation import collate_key
from mmr.reconcile.grouping import SCAN_LIMIT, Group
from mmr.reconcile.prefix_index import PrefixIndex
from mmr.reconcile.wording import content_words

#: Lines two findings' ranges may be apart and still describe one defect.
WINDOW = 10
_BUCKET = WINDOW + 1
#: Mean term Jaccard at or above which a finding joins a group (calibrated on real reviews).
THRESHOLD = 0.12
#: A group is compared on at most this many members (its first ones): enough for every
#: reviewer of a run to be heard, and a bound on the work when findings pile up.
LINKAGE_MEMBERS = 8
#: A file with more findings than this is a pile-up rather than a review: its findings
#: are placed one by one (greedy average linkage) instead of clustered pair by pair.
CLUSTER_LIMIT = 256

_LINE_SPAN = re.compile(r":(\d+)(?::\d+)?(?:-(\d+))?\Z|\s*\(line (\d+)\)\Z", re.IGNORECASE)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard index of two term sets; 0.0 when either is empty."""
    if not a or not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


def line_range(location: str) -> tuple[int, int] | None:
    """The lines a location names: ``a.py:10`` → (10, 10), ``a.py:10-14`` → (10, 14).

    ``a.py:10:5`` is line 10 (a column follows) and ``a.py:10:5-9`` too (a column range);
    a location without a line gives ``None``.
    """
    match = _LINE_SPAN.search(location.strip())
    if match is None:
        return None
    first, last, paren = match.groups()
    if paren is not None:
        return int(paren), int(paren)
    start = int(first)
    end = int(last) if last is not None and ":" not in match.group(0)[1:] else start
    return (start, end) if end >= start else (end, start)


def near(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    """Two line ranges at most :data:`WINDOW` lines apart; a missing range is near anything."""
    if a is None or b is None:
        return True
    return max(a[0], b[0]) - min(a[1], b[1]) <= WINDOW


def _near_buckets(span: tuple[int, int]) -> range:
    """The line buckets (of ``WINDOW + 1`` lines) a range near ``span`` may cover."""
    return range((span[0] - WINDOW) // _BUCKET, (span[1] + WINDOW) // _BUCKET + 1)


@dataclass(slots=True, eq=False)
class _Placed:
    """A group with what the rule compares: its members' terms and line ranges."""

    group: Group
    terms: list[frozenset[str]] = field(default_factory=list)
    #: Members' line ranges by the line buckets they cover.
    ranges: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    #: A member has no line, so the group is near every line of its file.
    lineless: bool = False

    def near(self, span: tuple[int, int] | None) -> bool:
        """Some member is near ``span`` (buckets of ``WINDOW + 1`` lines)."""
        if span is None or self.lineless:
            return True
        for bucket in _near_buckets(span):
            for other in self.ranges.get(bucket, ()):
                if near(span, other):
                    return True
        return False


class CalibratedGrouper:
    """Groups one file's attributed findings by the calibrated rule, one by one.

    Findings are placed in MMR 4.0.1's visiting order (``attribute``), so the
    result does not depend on channel order. A finding looks only at groups near it:
    those with a member in the line buckets its window covers, or, in a file with more
    than :data:`SCAN_LIMIT` findings, those a prefix-filter index over the members' terms
    (:mod:`mmr.reconcile.prefix_index`) finds, checked for nearness. A group's mean
    similarity reaches the threshold only if one member's does, so the index misses no
    group the rule could join; it keeps a pile of unrelated findings on one line from
    comparing every pair. ``described`` (the terms of every finding to be placed) fixes
    the index's element order.
    """

    def __init__(self, described: Sequence[frozenset[str]]) -> None:
        self.groups: list[Group] = []
        self._by_key: dict[str, list[_Placed]] = {}
        #: line bucket → groups with a member there, by creation.
        self._buckets: dict[int, dict[int, _Placed]] = {}
        #: groups with a member that has no line, by creation.
        self._lineless: dict[int, _Placed] = {}
        #: every group (for a finding without a line).
        self._all: list[_Placed] = []
        self._index = (PrefixIndex[_Placed](THRESHOLD, described)
                       if len(described) > SCAN_LIMIT else None)

    def place(self, f: Attributed, described: frozenset[str]) -> None:
        span = line_range(f.location)
        keyed = self._by_key.setdefault(f.ident.finding_key, [])
        joinable = [p for p in keyed if p.group.can_join(f)]
        # As MMR 4.0.1 ranks them: a group with a member at this very location first.
        found = next((p for p in joinable if f.location in p.group.raw_locations),
                     joinable[0] if joinable else None)
        if found is None and described:
            found = self._best(f, described, span)
        if found is None:
            found = self._found(f)
        if found not in keyed:
            keyed.append(found)
        self._add(found, f, described, span)

    def _candidates(self, mine: frozenset[str], span: tuple[int, int] | None) -> list[_Placed]:
        """Groups that may be near ``span`` and similar to ``mine``, in creation order."""
        listed: list[dict[int, _Placed]] = [self._lineless]
        if span is None:
            listed = [{p.group.order: p for p in self._all}]
        else:
            listed.extend(self._buckets[bucket] for bucket in _near_buckets(span)
                          if bucket in self._buckets)
        if self._index is not None and sum(map(len, listed)) > SCAN_LIMIT:
            return sorted(self._index.candidates(mine), key=lambda p: p.group.order)
        seen: dict[int, _Placed] = {}
        for groups in listed:
            seen.update(groups)
        return [seen[order] for order in sorted(seen)]

    def _best(self, f: Attributed, mine: frozenset[str],
              span: tuple[int, int] | None) -> _Placed | None:
        """The nearby group most similar to ``mine`` at or above the threshold, if any;
        the first in creation order among equals."""
        best: _Placed | None = None
        best_score = THRESHOLD
        for placed in self._candidates(mine, span):
            if not placed.near(span) or not placed.group.can_join(f):
                continue
            score = fmean([similarity(mine, other) for other in placed.terms[:LINKAGE_MEMBERS]])
            if score > best_score or (best is None and score >= best_score):
                best, best_score = placed, score
        return best

    def _found(self, f: Attributed) -> _Placed:
        group = Group(len(self.groups), f, collate_key(f.ident.normalized_location))
        self.groups.append(group)
        placed = _Placed(group)
        self._all.append(placed)
        return placed

    def _add(self, placed: _Placed, f: Attributed, described: frozenset[str],
             span: tuple[int, int] | None) -> None:
        group = placed.group
        group.add(f)
        placed.terms.append(described)
        if self._index is not None and described:
            self._index.add(described, placed)
        if span is None:
            placed.lineless = True
            self._lineless[group.order] = placed
        else:
            for bucket in range(span[0] // _BUCKET, span[1] // _BUCKET + 1):
                self._buckets.setdefault(bucket, {})[group.order] = placed
                placed.ranges.setdefault(bucket, []).append(span)


def _near_pairs(spans: Sequence[tuple[int, int] | None]) -> Iterator[tuple[int, int]]:
    """Every pair ``i < j`` of near spans, looking only at line buckets that can be near."""
    lineless = [i for i, span in enumerate(spans) if span is None]
    buckets: dict[int, list[int]] = {}
    for i, span in enumerate(spans):
        if span is not None:
            for bucket in range(span[0] // _BUCKET, span[1] // _BUCKET + 1):
                buckets.setdefault(bucket, []).append(i)
    for i, span in enumerate(spans):
        if span is None:
            yield from ((i, j) for j in range(i + 1, len(spans)))
            continue
        yield from ((i, j) for j in lineless if j > i)
        seen: set[int] = set()
        for bucket in _near_buckets(span):
            for j in buckets.get(bucket, ()):
                if j > i and j not in seen and near(span, spans[j]):
                    seen.add(j)
                    yield i, j


def _compatible(a: dict[str, str], b: dict[str, str]) -> bool:
    """No channel put a finding at one place in one cluster and elsewhere in the other.

    One channel's findings at different places are different findings to it: a linter's
    "unused variable" at two lines, or two credentials on adjacent lines, stay apart. As
    MMR 4.0.1 does, a channel joins a group twice only at the identical location.
    """
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return all(large.get(source, location) == location for source, location in small.items())


def _clusters(findings: Sequence[Attributed], spans: Sequence[tuple[int, int] | None],
              described: Sequence[frozenset[str]]) -> list[list[int]]:
    """Agglomerative average linkage (UPGMA) over one file's findings, by index.

    Clusters start as the findings of one ``finding_key``; the two clusters with the
    highest mean similarity over all their cross pairs (pairs not near each other count
    as 0) merge, until no two reach :data:`THRESHOLD`. Ties go to the clusters met first.
    """
    cluster_of: list[int] = []
    members: dict[int, list[int]] = {}
    #: Each cluster's channels and where each put its finding (see :func:`_compatible`).
    placed: dict[int, dict[str, str]] = {}
    of_key: dict[str, list[int]] = {}
    for i, f in enumerate(findings):
        keyed = of_key.setdefault(f.ident.finding_key, [])
        # As MMR 4.0.1 ranks them: a group with a member at this very location first.
        joinable = [c for c in keyed if placed[c].get(f.source, f.location) == f.location]
        cluster = next((c for c in joinable if f.location in placed[c].values()),
                       joinable[0] if joinable else None)
        if cluster is None:
            cluster = i
            keyed.append(i)
            placed[i] = {}
        placed[cluster].setdefault(f.source, f.location)
        cluster_of.append(cluster)
        members.setdefault(cluster, []).append(i)
    sums: dict[tuple[int, int], float] = {}
    for i, j in _near_pairs(spans):
        a, b = cluster_of[i], cluster_of[j]
        if a != b:
            value = similarity(described[i], described[j])
            if value:
                key = (a, b) if a < b else (b, a)
                sums[key] = sums.get(key, 0.0) + value
    neighbours: dict[int, set[int]] = defaultdict(set)
    for a, b in sums:
        neighbours[a].add(b)
        neighbours[b].add(a)

    def mean(a: int, b: int) -> float:
        return sums[a, b] / (len(members[a]) * len(members[b]))

    heap = [(-mean(a, b), a, b) for a, b in sums]
    heapify(heap)
    while heap and -heap[0][0] >= THRESHOLD:
        negative, a, b = heappop(heap)
        if (a, b) not in sums or mean(a, b) != -negative:
            continue  # an entry from before one of the two clusters grew
        if not _compatible(placed[a], placed[b]):
            # Clusters only grow, so the two stay incompatible: forget the pair.
            del sums[a, b]
            neighbours[a].discard(b)
            neighbours[b].discard(a)
            continue
        members[a].extend(members.pop(b))
        for source, location in placed.pop(b).items():
            placed[a].setdefault(source, location)
        del sums[a, b]
        neighbours[a].discard(b)
        neighbours[b].discard(a)
        for c in neighbours.pop(b):
            neighbours[c].discard(b)
            moved = sums.pop((b, c) if b < c else (c, b))
            key = (a, c) if a < c else (c, a)
            sums[key] = sums.get(key, 0.0) + moved
            neighbours[a].add(c)
            neighbours[c].add(a)
        for c in neighbours[a]:
            key = (a, c) if a < c else (c, a)
            heappush(heap, (-mean(*key), *key))
    return [sorted(found) for found in members.values()]


def group_calibrated(findings: Sequence[Attributed]) -> list[Group]:
    """The groups of ``findings`` (in visiting order) by the calibrated rule.

    Each file's findings are clustered by average linkage (:func:`_clusters`), so the
    result does not depend on the order findings are met. A file with more than
    :data:`CLUSTER_LIMIT` findings (a pile-up, not a review) places findings one by one
    instead (:class:`CalibratedGrouper`).
    """
    by_file: dict[str, list[Attributed]] = {}
    for f in findings:
        by_file.setdefault(f.ident.normalized_location, []).append(f)
    position = {id(f): n for n, f in enumerate(findings)}
    found: list[list[Attributed]] = []
    # Channels repeat descriptions word for word: each distinct one is read once.
    words: dict[str, frozenset[str]] = {}
    for in_file in by_file.values():
        described = [words.get(f.ident.normalized_description)
                     or words.setdefault(f.ident.normalized_description,
                                         content_words(f.ident.normalized_description))
                     for f in in_file]
        if len(in_file) > CLUSTER_LIMIT:
            grouper = CalibratedGrouper(described)
            for f, terms in zip(in_file, described, strict=True):
                grouper.place(f, terms)
            found.extend(g.members for g in grouper.groups)
            continue
        spans = [line_range(f.location) for f in in_file]
        found.extend([in_file[i] for i in cluster]
                     for cluster in _clusters(in_file, spans, described))
    found.sort(key=lambda members: position[id(members[0])])
    groups = []
    for order, members in enumerate(found):
        group = Group(order, members[0], collate_key(members[0].ident.normalized_location))
        for f in members:
            group.add(f)
        groups.append(group)
    return groups

