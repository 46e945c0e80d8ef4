"""The prefix-filter index misses no pair at or above the threshold (issue 16).

Random sets over a small alphabet (so near-duplicates are common) are added in a random
order and looked up; every earlier set whose exact Jaccard similarity reaches the
threshold must be among the candidates.
"""

from __future__ import annotations

import random

import pytest

from mmr.reconcile.prefix_index import PrefixIndex
from mmr.reconcile.stable_id import jaccard


def _random_sets(rng: random.Random, count: int) -> list[frozenset[str]]:
    base = [f"g{i}" for i in range(rng.randint(8, 40))]
    sets = []
    for _ in range(count):
        size = rng.randint(1, len(base))
        sets.append(frozenset(rng.sample(base, size)))
        if sets and rng.random() < 0.5:  # a near-duplicate of an earlier set
            near = set(rng.choice(sets))
            near.discard(rng.choice(sorted(near)))
            near.add(rng.choice(base))
            sets.append(frozenset(near or {"g0"}))
    return sets


@pytest.mark.parametrize("threshold", [0.7, 0.8, 0.5])
@pytest.mark.parametrize("seed", range(12))
def test_every_similar_pair_is_a_candidate(threshold: float, seed: int) -> None:
    rng = random.Random(seed)
    sets = _random_sets(rng, 60)
    # The universe is every set, so elements of one set alone are not indexed.
    index: PrefixIndex[int] = PrefixIndex(threshold, sets)
    added: list[frozenset[str]] = []
    pairs = 0
    for number, elements in enumerate(sets):
        found = index.candidates(elements)
        similar = {i for i, other in enumerate(added) if jaccard(other, elements) >= threshold}
        assert similar <= found, f"set {number}: missed {similar - found}"
        pairs += len(similar)
        index.add(elements, number)
        added.append(elements)
    assert pairs > 0  # the generator makes similar pairs happen


def _pair_at_threshold(n: int, m: int, threshold: float) -> tuple[int, int] | None:
    """The least overlap at which sets of ``n`` and ``m`` elements reach the threshold."""
    for common in range(1, min(n, m) + 1):
        if common / (n + m - common) >= threshold:
            return n, common
    return None


@pytest.mark.parametrize("threshold", [0.7, 0.8])
def test_pairs_exactly_at_the_threshold_are_found(threshold: float) -> None:
    """Every size pair 1..24 at its least reaching overlap, the shared elements the most
    common ones (so they rank last and sit at the very end of both prefixes), each set
    given as a tuple: the bucket bounds and float margins must not cut one of them."""
    for n in range(1, 25):
        for m in range(1, 25):
            found_pair = _pair_at_threshold(n, m, threshold)
            if found_pair is None:
                continue
            _, common = found_pair
            shared = [f"s{i}" for i in range(common)]
            a = (*shared, *(f"a{i}" for i in range(n - common)))
            b = (*(f"b{i}" for i in range(m - common)), *shared)
            assert jaccard(frozenset(a), frozenset(b)) >= threshold
            # The universe is exactly the two sets: the shared elements meet twice, the
            # rest are alone.
            for first, second in ((a, b), (b, a)):
                index: PrefixIndex[str] = PrefixIndex(threshold, [a, b])
                index.add(first, "first")
                assert index.candidates(second) == {"first"}, (n, m, common, first is a)


def test_below_the_threshold_the_positional_bound_drops_the_pair() -> None:
    """Guard that the filter filters: one shared element fewer than the threshold needs,
    all of them the most common, and the pair is not even a candidate."""
    n = m = 17
    common = 13  # 14 of 17 reach 0.7 (14 / 20); 13 / 21 do not
    shared = [f"s{i}" for i in range(common)]
    a = (*shared, *(f"a{i}" for i in range(n - common)))
    b = (*(f"b{i}" for i in range(m - common)), *shared)
    index: PrefixIndex[str] = PrefixIndex(0.7, [a, b, *([tuple(shared)] * 3)])
    index.add(a, "a")
    assert index.candidates(b) == set()


def test_small_and_empty_sets() -> None:
    """Sets of one to three elements are found by their equals and near equals; an empty
    set finds nothing and is found by nothing (its similarity is the caller's rule)."""
    sets: list[tuple[str, ...]] = [("x",), ("x", "y"), ("x", "y", "z"), ("y", "z"), (),
                                   ("x",), ("x", "y", "z"), ()]
    index: PrefixIndex[int] = PrefixIndex(0.5, sets)
    added: list[tuple[str, ...]] = []
    for number, elements in enumerate(sets):
        found = index.candidates(elements)
        similar = {i for i, other in enumerate(added)
                   if other and elements and jaccard(frozenset(other), frozenset(elements)) >= 0.5}
        assert similar <= found, f"set {number}: missed {similar - found}"
        if not elements:
            assert found == set()
        index.add(elements, number)
        added.append(elements)
    assert index.candidates(("x",)) >= {0, 5}
