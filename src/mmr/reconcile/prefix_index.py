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
from bisect import bisect_right
from collections import Counter
from collections.abc import Collection, Iterable
from itertools import chain, compress, repeat
from operator import lt
from typing import Generic, TypeVar

T = TypeVar("T")


class PrefixIndex(Generic[T]):
    """Items indexed by the prefix of their set; ``universe`` fixes the element order.

    A set is any collection of distinct elements; a tuple is walked faster than a
    frozenset, and each set is walked once per look-up (``add`` after ``candidates`` of
    the same object reuses it). ``universe`` is every set that will be added or looked
    up, each once.

    Postings keep each element's position and the set's size, so a candidate whose
    remaining elements cannot reach the overlap the threshold needs is dropped while it
    is found (the positional filter of PPJoin, Xiao et al. 2008). The prefixes are one
    element longer than the bound and an item must be met twice: a pile of findings
    that share one rare gram by chance (ever more of them as the pile grows) is not
    verified pair by pair.
    """

    def __init__(self, threshold: float, universe: Iterable[Collection[str]]) -> None:
        counts = Counter(chain.from_iterable(universe))
        # An element of one set alone can meet no other set: it is left out of the table
        # (which is the smaller the more often it is read) and ranks ``-1``, before all.
        ranked = compress(counts, map(lt, repeat(1), counts.values()))
        # Rarest first; ties in the order first met, which is as fixed as any other order.
        ordered = sorted(ranked, key=counts.__getitem__)
        self._rank = dict(zip(ordered, range(len(ordered)), strict=True))
        self._threshold = threshold
        self._ratio = threshold / (1 + threshold)
        #: The overlap two sets of ``n`` elements in all need, by ``n``, grown on demand.
        self._needed: list[int] = []
        self._reaches: dict[int, list[tuple[int, int]]] = {}
        self._postings: dict[int, _Posting[T]] = {}
        self._last: tuple[Collection[str], list[int]] | None = None

    def _prefix(self, elements: Collection[str]) -> list[int]:
        """The ranks of the prefix of ``elements``, rarest first."""
        if self._last is not None and self._last[0] is elements:
            return self._last[1]  # a finding that founds a group was just looked up
        size = len(elements)
        # floor, not ceil: never shorter than the exact bound, whatever the float rounding;
        # one element past it (see ``candidates``).
        keep = min(size, size - math.floor(self._threshold * size) + 2)
        prefix = sorted(map(self._rank.get, elements, repeat(-1)))[:keep]
        self._last = (elements, prefix)
        return prefix

    def _overlap_needed(self, total: int) -> list[int]:
        """``_needed`` up to ``total``; the epsilon keeps float error from raising a bound."""
        needed = self._needed
        ratio = self._ratio
        while len(needed) <= total:
            needed.append(math.ceil(ratio * len(needed) - 1e-9))
        return needed

    def _reach(self, size: int) -> list[tuple[int, int]]:
        """For a look-up of ``size`` elements, (rest, largest other size) by prefix position.

        The rest is the elements after the position; no set reaching the threshold is
        under ``t * size`` or over ``size / t`` long, and the positions whose rest cannot
        reach the overlap even the shortest allowed set needs are left out.
        """
        reach = self._reaches.get(size)
        if reach is None:
            slack = 2
            least = math.ceil(self._threshold * size - 1e-9)
            limit = size + math.floor(size / self._threshold + 1e-9)
            needed = self._overlap_needed(limit)
            reach = []
            for left in range(size - 1, -1, -1):
                if left + slack < least:
                    break
                # needed[] never decreases: the totals whose need ``left`` can still meet.
                top = bisect_right(needed, left + slack, 0, limit + 1) - 1 - size
                reach.append((left, top))
            self._reaches[size] = reach
        return reach

    def add(self, elements: Collection[str], item: T) -> None:
        size = len(elements)
        postings = self._postings
        ratio = self._ratio
        for position, element in enumerate(self._prefix(elements)):
            if element < 0:
                continue
            posting = postings.get(element)
            if posting is None:  # the common case for the rarer elements of a prefix
                postings[element] = _Posting(size, size - position - 1, item, ratio)
            else:
                posting.add(size, size - position - 1, item, ratio)

    def candidates(self, elements: Collection[str]) -> set[T]:
        """Every added item whose set may reach the threshold with ``elements``.

        Two sets of total size ``n`` reaching the threshold share ``a >= needed[n]``
        elements, and ``a >= least`` (the threshold times the probe's size). The first
        two elements they share are in both prefixes, so an item is a candidate only
        when met twice (once when ``least`` is 1). When the
        ``j``-th shared element is met, ``j - 1`` are behind it and at most the shorter
        rest of the two sets after it, so a bucket of (size, rest) whose ``j + rest`` is
        under the overlap needed cannot hold a ``j``-th meeting and is skipped unread.
        """
        seen: set[T] = set()
        twice: set[T] = set()
        slack = 2
        size = len(elements)
        least = math.ceil(self._threshold * size - 1e-9)  # over every size J >= t allows
        needed = self._needed
        # A bucket can hold a meeting only if rest + slack >= ratio * (size + its size), that
        # is if its key (ratio * its size - rest) is at most ``bound``; the margin keeps
        # float error from cutting one that can.
        bound = slack - self._ratio * size + 1e-7
        postings = self._postings
        # The prefix is never shorter than the positions that can still meet (``_reach``).
        for element, (left, top) in zip(self._prefix(elements), self._reach(size), strict=False):
            posting = postings.get(element)
            if posting is None:
                continue
            for other_size, other_left, items in posting.buckets[
                    :bisect_right(posting.keys, bound)]:
                if other_size < least or other_size > top:
                    continue
                need = needed[size + other_size]
                if other_left + slack < need:
                    continue
                if seen:
                    twice.update(seen.intersection(items))
                if left + 1 >= need and other_left + 1 >= need:
                    seen.update(items)
        return twice if least > 1 else seen


class _Posting(Generic[T]):
    """The items whose prefix holds one element, in buckets of (set size, elements after).

    Buckets are sorted by ``ratio * size - rest``, so a look-up reads only those whose
    rest can still reach the overlap their size needs and stops at the first that cannot.
    """

    __slots__ = ("buckets", "index", "keys")

    def __init__(self, size: int, left: int, item: T, ratio: float) -> None:
        bucket = [item]
        self.keys: list[float] = [ratio * size - left]
        self.buckets: list[tuple[int, int, list[T]]] = [(size, left, bucket)]
        self.index: dict[tuple[int, int], list[T]] = {(size, left): bucket}

    def add(self, size: int, left: int, item: T, ratio: float) -> None:
        bucket = self.index.get((size, left))
        if bucket is None:
            bucket = self.index[size, left] = []
            key = ratio * size - left
            at = bisect_right(self.keys, key)
            self.keys.insert(at, key)
            self.buckets.insert(at, (size, left, bucket))
        bucket.append(item)
