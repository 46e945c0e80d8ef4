"""Exact candidate generation for set similarity: a prefix-filter index (AllPairs).

Every set is ordered by one global order (rarest element first, ties by value) and only
its first ``|s| - floor(t·|s|) + 1`` elements are indexed. Two sets whose Jaccard
similarity is at least ``t`` share at least ``floor(t·max)`` elements, so their prefixes
intersect (Bayardo et al., "Scaling up all pairs similarity search", 2007): looking up a
set's prefix finds every set it may be similar to, and the caller checks each candidate
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
        ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))
        self._rank = {element: rank for rank, (element, _) in enumerate(ordered)}
        self._unknown = len(self._rank)
        self._threshold = threshold
        self._ratio = threshold / (1 + threshold)
        self._postings: dict[str, dict[tuple[int, int], list[T]]] = {}
        self._last: tuple[frozenset[str], list[str]] | None = None

    def _prefix(self, elements: frozenset[str]) -> list[str]:
        if self._last is not None and self._last[0] is elements:
            return self._last[1]  # a finding that founds a group was just looked up
        size = len(elements)
        # floor, not ceil: never shorter than the exact bound, whatever the float rounding.
        keep = min(size, size - math.floor(self._threshold * size) + 1)
        try:
            prefix = sorted(elements, key=self._rank.__getitem__)[:keep]
        except KeyError:  # an element outside the universe: after all of it, by value
            unknown = self._unknown
            prefix = sorted(elements, key=lambda e: (self._rank.get(e, unknown), e))[:keep]
        self._last = (elements, prefix)
        return prefix

    def add(self, elements: frozenset[str], item: T) -> None:
        size = len(elements)
        for position, element in enumerate(self._prefix(elements)):
            buckets = self._postings.setdefault(element, {})
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
        ratio = self._ratio
        least = math.ceil(self._threshold * size - 1e-9)  # over every size J >= t allows
        for position, element in enumerate(self._prefix(elements)):
            left = size - position - 1
            if left + 1 < least:
                break
            for (other_size, other_left), items in self._postings.get(element, {}).items():
                # The overlap J >= t needs; the epsilon keeps float error from raising it.
                needed = math.ceil(ratio * (size + other_size) - 1e-9)
                if 1 + min(left, other_left) >= needed:
                    found.update(items)
        return found
