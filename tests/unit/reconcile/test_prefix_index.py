"""The prefix-filter index misses no pair at or above the threshold (issue 16).

Random sets over a small alphabet (so near-duplicates are common) are added in a random
order and looked up; every earlier set whose exact Jaccard similarity reaches the
threshold must be among the candidates, whether or not its elements were in the universe
the index was built from (those rank after the universe, in the order first met).
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


@pytest.mark.parametrize("meetings", [1, 2])
@pytest.mark.parametrize("threshold", [0.7, 0.8, 0.5])
@pytest.mark.parametrize("seed", range(12))
def test_every_similar_pair_is_a_candidate(threshold: float, seed: int, meetings: int) -> None:
    rng = random.Random(seed)
    sets = _random_sets(rng, 60)
    universe = sets[: len(sets) // 2] if seed % 2 else sets  # odd seeds: elements unseen
    # Even seeds: the universe is every set, so elements of one set alone are not indexed.
    index: PrefixIndex[int] = PrefixIndex(
        threshold, universe, meetings=meetings, complete=not seed % 2
    )
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
