"""Exact candidate generation for set similarity: a prefix-filter index (AllPairs).

Every set is ordered by one global order (rarest element first) and only its first
``|s| - floor(t·|s|) + 1`` elements are indexed. Two sets whose Jaccard similarity is
at least ``t`` share at least ``floor(t·max)`` elements, so their prefixes intersect
(Bayardo et al., "Scaling up all pairs similarity search", 2007): looking up a set's
prefix finds every set it may be similar to, and the caller checks each candidate
exactly. Rare elements come first, so a phrase every finding shares never enters a prefix
and a pile of findings at one location costs near-linear time instead of all pairs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from itertools import chain
from typing import Generic, TypeVar

T = TypeVar("T")


class PrefixIndex(Generic[T]):
    """Items indexed by the prefix of their set; ``universe`` fixes the element order.

    Postings keep each element's position and the set's size, so a candidate whose
    remaining elements cannot reach the overlap the threshold needs is dropped while it
    is found (the positional filter of PPJoin, Xiao et al. 2008).
    """

    def __init__(self, threshold: float, universe: Iterable[frozenset[str]]) -> None:
        counts = Counter(chain.from_iterable(universe))
        # Rarest first; ties in the order first met, which is as fixed as any other order.
        ordered = sorted(counts, key=counts.__getitem__)
        self._rank = dict(zip(ordered, range(len(ordered)), strict=True))
        self._threshold = threshold
        self._ratio = threshold / (1 + threshold)
        #: The overlap two sets of ``n`` elements in all need, by ``n``, grown on demand.
        self._needed: list[int] = []
        self._postings: dict[int, dict[tuple[int, int], list[T]]] = {}
        self._last: tuple[frozenset[str], list[int]] | None = None

    def _prefix(self, elements: frozenset[str]) -> list[int]:
        """The ranks of the prefix of ``elements``, rarest first."""
        if self._last is not None and self._last[0] is elements:
            return self._last[1]  # a finding that founds a group was just looked up
        size = len(elements)
        # floor, not ceil: never shorter than the exact bound, whatever the float rounding.
        keep = min(size, size - math.floor(self._threshold * size) + 1)
        rank = self._rank
        try:
            ranked = sorted(map(rank.__getitem__, elements))
        except KeyError:  # elements outside the universe: after all of it, as first met
            for element in elements:
                rank.setdefault(element, len(rank))
            ranked = sorted(map(rank.__getitem__, elements))
        prefix = ranked[:keep]
        self._last = (elements, prefix)
        return prefix

    def _overlap_needed(self, total: int) -> list[int]:
        """``_needed`` up to ``total``; the epsilon keeps float error from raising a bound."""
        needed = self._needed
        ratio = self._ratio
        while len(needed) <= total:
            needed.append(math.ceil(ratio * len(needed) - 1e-9))
        return needed

    def add(self, elements: frozenset[str], item: T) -> None:
        size = len(elements)
        postings = self._postings
        for position, element in enumerate(self._prefix(elements)):
            buckets = postings.get(element)
            if buckets is None:
                postings[element] = {(size, size - position - 1): [item]}
            else:
                buckets.setdefault((size, size - position - 1), []).append(item)

    def candidates(self, elements: frozenset[str]) -> set[T]:
        """Every added item whose set may reach the threshold with ``elements``.

        An item is met first at the first element the two sets share, which both orders
        put in both prefixes; the overlap is then at most one plus the shorter rest, so a
        whole bucket of (size, rest) whose bound is under the overlap the threshold needs
        is skipped unread. Meeting an item again later can only give a lower bound.
        """
        found: set[T] = set()
        size = len(elements)
        least = math.ceil(self._threshold * size - 1e-9)  # over every size J >= t allows
        # No set reaching the threshold is more than size / t long.
        limit = size + math.floor(size / self._threshold + 1e-9)
        needed = self._overlap_needed(limit)
        postings = self._postings
        for position, element in enumerate(self._prefix(elements)):
            left = size - position - 1
            if left + 1 < least:
                break
            buckets = postings.get(element)
            if buckets is None:
                continue
            for (other_size, other_left), items in buckets.items():
                total = size + other_size
                if total <= limit and 1 + (
                        left if left < other_left else other_left) >= needed[total]:
                    found.update(items)
        return found
