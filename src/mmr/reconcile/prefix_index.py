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
    """Items indexed by the prefix of their set; ``universe`` fixes the element order."""

    def __init__(self, threshold: float, universe: Iterable[frozenset[str]]) -> None:
        counts = Counter(chain.from_iterable(universe))
        ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))
        self._rank = {element: rank for rank, (element, _) in enumerate(ordered)}
        self._unknown = len(self._rank)
        self._threshold = threshold
        self._postings: dict[str, list[T]] = {}

    def _prefix(self, elements: frozenset[str]) -> list[str]:
        size = len(elements)
        # floor, not ceil: never shorter than the exact bound, whatever the float rounding.
        keep = min(size, size - math.floor(self._threshold * size) + 1)
        rank = self._rank.get
        unknown = self._unknown
        return sorted(elements, key=lambda e: (rank(e, unknown), e))[:keep]

    def add(self, elements: frozenset[str], item: T) -> None:
        for element in self._prefix(elements):
            self._postings.setdefault(element, []).append(item)

    def candidates(self, elements: frozenset[str]) -> set[T]:
        """Every added item whose set may reach the threshold with ``elements``."""
        found: set[T] = set()
        postings = self._postings
        for element in self._prefix(elements):
            bucket = postings.get(element)
            if bucket:
                found.update(bucket)
        return found
