"""The indexed reconciler against a straightforward all-pairs reading of the merge rule.

``reference_reconcile`` below scans every group for every finding and sorts candidate
lists in the rule's plain order. Random channel sets with colliding locations,
near-duplicate descriptions and shared suggestions must reconcile identically.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from mmr.models import Finding
from mmr.reconcile import grouping
from mmr.reconcile.collation import collate_key as ck
from mmr.reconcile.jstext import utf16_len
from mmr.reconcile.reconciler import reconcile
from mmr.reconcile.stable_id import StableIdentity, identify, jaccard
from mmr.vocabulary import SEVERITY_ORDER


@dataclass(eq=False)
class Item:
    source: str
    finding: Finding
    ident: StableIdentity

    @property
    def loc(self) -> str:
        return self.ident.location


@dataclass(eq=False)
class Group:
    founder: Item
    members: list[Item] = field(default_factory=list)


def reference_groups(channel_findings: Mapping[str, Sequence[Finding]]) -> list[Group]:
    items = [Item(s, f, identify(f)) for s, fs in channel_findings.items() for f in fs]
    items.sort(key=lambda i: (i.ident.finding_key, ck(i.source), ck(i.loc),
                              ck(i.finding.description), ck(i.finding.suggestion)))
    groups: list[Group] = []
    key_index: dict[str, list[Group]] = {}
    for f in items:
        fi = f.ident

        def can_join(g: Group, f: Item = f) -> bool:
            return not any(m.source == f.source and m.loc != f.loc for m in g.members)

        def same_raw(g: Group, f: Item = f) -> bool:
            return any(m.loc == f.loc for m in g.members)

        def score(g: Group, fi: StableIdentity = fi) -> int:
            gi = g.founder.ident
            return int(gi.normalized_category == fi.normalized_category) + int(
                gi.normalized_suggestion == fi.normalized_suggestion)

        def best(cands: list[Group]) -> Group | None:
            ordered = sorted(cands, key=lambda g: (-score(g), g.founder.ident.finding_key,
                                                   ck(g.founder.ident.normalized_location)))
            for g in ordered:
                if same_raw(g):
                    return g
            return ordered[0] if ordered else None

        g = best([g for g in key_index.get(fi.finding_key, []) if can_join(g)])
        if g is not None:
            g.members.append(f)
            continue
        cands = []
        for g in groups:
            gi = g.founder.ident
            fuzzy_ok = same_raw(g) or (gi.normalized_category == fi.normalized_category
                                       and gi.normalized_suggestion == fi.normalized_suggestion)
            if (can_join(g) and gi.normalized_location == fi.normalized_location and fuzzy_ok
                    and gi.description_shingle and fi.description_shingle
                    and jaccard(frozenset(gi.description_shingle),
                                frozenset(fi.description_shingle)) >= 0.7):
                cands.append(g)
        g = best(cands)
        if g is not None:
            g.members.append(f)
            bucket = key_index.setdefault(fi.finding_key, [])
            if g not in bucket:
                bucket.append(g)
            continue
        g = Group(f, [f])
        groups.append(g)
        key_index.setdefault(fi.finding_key, []).append(g)
    return groups


def reference_reconcile(channel_findings: Mapping[str, Sequence[Finding]],
                        identities: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    groups = reference_groups(channel_findings)
    merged = [_merge(g, identities or {}) for g in groups]
    merged.sort(key=lambda r: (SEVERITY_ORDER[r["severity"]], r["finding_key"], ck(r["location"])))
    for i, r in enumerate(merged, 1):
        if not r.get("id"):
            r["id"] = f"F-{i:03d}"
    return merged


def _merge(g: Group, identities: Mapping[str, str]) -> dict[str, Any]:
    sources: list[str] = []
    for m in g.members:
        if m.source not in sources:
            sources.append(m.source)
    sevs = {m.finding.severity for m in g.members}
    severity = min(sevs, key=lambda s: SEVERITY_ORDER[s])
    if len({identities.get(s, s) for s in sources}) >= 2:
        agreement, confidence = ("consensus", "high") if len(sevs) == 1 else ("majority", "medium")
    else:
        agreement = "unique"
        if severity == "P0":
            confidence = "high"
        elif all(s.startswith("compensating-") for s in sources):
            confidence = "low"
        else:
            confidence = "medium"
    rep = g.members[0]
    for m in g.members[1:]:
        if utf16_len(m.finding.description) > utf16_len(rep.finding.description):
            rep = m
    out: dict[str, Any] = {
        "severity": severity, "location": rep.loc, "description": rep.finding.description,
        "suggestion": rep.finding.suggestion, "confidence": confidence, "sources": sources,
        "agreement": agreement, "finding_key": rep.ident.finding_key,
        "description_shingle": list(rep.ident.description_shingle),
    }
    if rep.finding.id:
        out["id"] = rep.finding.id
    if rep.finding.category is not None:
        out["category"] = rep.finding.category
    return out


CHANNELS = ["claude", "codex", "gemini", "a_b", "a-b", "Zed", "compensating-codex",
            "compensating-gemini"]
PATHS = ["src/a.ts", "./src/a.ts", "src/A.ts", "src/b.ts", "lib/c.py"]
SPANS = ["", ":1", ":2", ":10", ":2:5", " (line 3)", ":1-4"]
BASE = [
    "the session token is logged in plain text on every request",
    "user input reaches the sql query without escaping",
    "the retry loop never gives up when the server is down",
]
VARIANTS = ["", " here", " and must be fixed", " and should be fixed", " in `handler`", "!"]
SHORT = ["bug", "nit", "typo", "Bug", ""]
SUGGESTIONS = ["fix it", "Fix it", "add TEST", "add test", "use `Escape()`", ""]


def _random_finding(rng: random.Random) -> Finding:
    if rng.random() < 0.15:
        description = rng.choice(SHORT)
    else:
        description = rng.choice(BASE) + rng.choice(VARIANTS)
        if rng.random() < 0.3:
            description = description.upper() if rng.random() < 0.5 else "  " + description
        if rng.random() < 0.2:
            words = description.split(" ")
            words.pop(rng.randrange(len(words)))
            description = " ".join(words)
    data: dict[str, Any] = {
        "severity": rng.choice(["P0", "P1", "P2", "P3"]),
        "location": rng.choice(PATHS) + rng.choice(SPANS),
        "description": description,
        "suggestion": rng.choice(SUGGESTIONS),
    }
    if rng.random() < 0.2:
        data["category"] = rng.choice(["security", "Security", "security ", ""])
    if rng.random() < 0.1:
        data["id"] = rng.choice(["", "X-1", "F-001"])
    return Finding.model_validate(data)


def _random_run(seed: int) -> tuple[dict[str, list[Finding]], dict[str, str] | None]:
    rng = random.Random(seed)
    names = rng.sample(CHANNELS, rng.randint(1, 5))
    channels = {n: [_random_finding(rng) for _ in range(rng.randint(0, 9))] for n in names}
    identities = None
    if rng.random() < 0.4:
        identities = {n: rng.choice(["claude", "codex"]) for n in names
                      if n.startswith("compensating-")}
    return channels, identities


@pytest.mark.parametrize("block", range(6))
def test_indexed_reconciler_equals_all_pairs_reference(block: int) -> None:
    for seed in range(block * 60, block * 60 + 60):
        channels, identities = _random_run(seed)
        expected = reference_reconcile(channels, identities)
        actual = [r.to_json_dict() for r in reconcile(channels, identities=identities,
                                                      rule="reference")]
        assert actual == expected, f"seed {seed}"


@pytest.mark.parametrize("scan_limit", [grouping.SCAN_LIMIT, 0])
@pytest.mark.parametrize("block", range(3))
def test_prefix_indexes_equal_all_pairs(
        block: int, scan_limit: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``scan_limit`` 0 puts every location through the prefix-filter indexes."""
    monkeypatch.setattr(grouping, "SCAN_LIMIT", scan_limit)
    for seed in range(block * 80, block * 80 + 80):
        channels, identities = _random_run(seed)
        expected = reference_reconcile(channels, identities)
        actual = [r.to_json_dict() for r in reconcile(channels, identities=identities,
                                                      rule="reference")]
        assert actual == expected, f"seed {seed}"


def test_random_runs_exercise_the_interesting_cases() -> None:
    """Guard against a generator that never makes fuzzy merges or collisions happen."""
    fuzzy = multi_source = same_source_twice = 0
    for seed in range(360):
        channels, _ = _random_run(seed)
        for g in reference_groups(channels):
            fuzzy += len({m.ident.finding_key for m in g.members}) > 1
            multi_source += len({m.source for m in g.members}) > 1
            same_source_twice += len({m.source for m in g.members}) < len(g.members)
    assert fuzzy > 100
    assert multi_source > 100
    assert same_source_twice > 20


SIMILAR = [
    "the session token is logged in plain text on every request",
    "the session token is logged in plain text on every request here",
    "the session token is logged in plain text on each request",
]


# Found by searching random runs against deliberately broken variants of the reconciler.
TIE_PLANS = {
    # Two tied fuzzy candidates whose raw locations were acquired in the opposite order to
    # their creation: the reference's full scan picks the older group.
    "fuzzy-tie-creation-order": {
        "b": [("x.ts:2", 1, "t"), ("x.ts:2", 0, "s"), ("x.ts:1", 1, "t"), ("x.ts:3", 0, "t")],
        "c": [("x.ts:2", 2, "s"), ("x.ts:2", 0, "s"), ("x.ts:2", 0, "t"), ("x.ts:3", 0, "t")],
        "a": [("x.ts:2", 1, "t"), ("x.ts:1", 1, "s"), ("x.ts:1", 0, "s"), ("x.ts:2", 1, "s")],
        "d": [("x.ts:2", 2, "s"), ("x.ts:3", 0, "t")],
    },
    # Tied exact candidates: the key index keeps insertion order, not creation order.
    "exact-tie-key-index-order": {
        "c": [("x.ts:3", 0, "t"), ("x.ts:1", 0, "s"), ("x.ts:2", 0, "s"), ("x.ts:2", 2, "t"),
              ("x.ts:2", 1, "t")],
        "b": [("x.ts:3", 1, "t"), ("x.ts:1", 2, "s"), ("x.ts:2", 2, "s")],
        "d": [("x.ts:3", 0, "s")],
        "a": [("x.ts:2", 0, "t"), ("x.ts:1", 2, "t"), ("x.ts:3", 1, "t"), ("x.ts:3", 0, "t")],
    },
}


@pytest.mark.parametrize("name", TIE_PLANS)
def test_ties_follow_the_reference_scan_order(name: str) -> None:
    channels = {
        source: [Finding(severity="P1", location=loc, description=SIMILAR[d], suggestion=sug)
                 for loc, d, sug in items]
        for source, items in TIE_PLANS[name].items()
    }
    expected = reference_reconcile(channels)
    assert [r.to_json_dict() for r in reconcile(channels, rule="reference")] == expected


def _dense_run(seed: int) -> dict[str, list[Finding]]:
    """One file, three lines, near-identical descriptions: every finding collides."""
    rng = random.Random(seed)
    return {
        name: [Finding(severity=rng.choice(["P1", "P2"]), location=f"x.ts:{rng.randint(1, 3)}",
                       description=rng.choice(SIMILAR), suggestion=rng.choice(["s", "t"]))
               for _ in range(rng.randint(1, 5))]
        for name in rng.sample(["a", "b", "c", "d"], rng.randint(2, 4))
    }


def test_dense_collisions_match_the_all_pairs_reference() -> None:
    for seed in range(300):
        channels = _dense_run(seed)
        expected = reference_reconcile(channels)
        assert [r.to_json_dict() for r in reconcile(channels, rule="reference")] == expected, \
            f"seed {seed}"
