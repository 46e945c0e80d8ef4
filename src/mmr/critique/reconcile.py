"""Critique items from many channels → convergence and divergence.

Purely textual: there is no file:line to anchor on. Items are ordered by observation then
channel, and each joins the existing group whose representative is most similar (Jaccard
of the character 5-gram shingles used for finding identity, ≥ 0.4), or starts a group.
The representative is the group's longest observation. A group raised by two or more
channels is ``consensus`` when every item has the same kind and ``majority`` otherwise; a
single channel's group is ``unique`` however many times it repeated itself. Observations
too short to shingle never cluster.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mmr.critique.models import (
    AGREEMENT_ORDER,
    KIND_ORDER,
    CritiqueAgreement,
    CritiqueItem,
    ItemKind,
    ReconciledItem,
)
from mmr.reconcile.collation import collate_key
from mmr.reconcile.jstext import utf16_len
from mmr.reconcile.stable_id import description_shingle, jaccard

SIMILARITY_THRESHOLD = 0.4
PENDING_ID = "C-000"


@dataclass(frozen=True)
class _Attributed:
    channel: str
    item: CritiqueItem
    shingle: tuple[str, ...]
    grams: frozenset[str]


@dataclass
class _Group:
    """Items judged to make one point; the representative is the longest observation."""

    representative: _Attributed
    members: list[_Attributed] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.members.append(self.representative)

    def add(self, entry: _Attributed) -> None:
        self.members.append(entry)
        if utf16_len(entry.item.observation) > utf16_len(self.representative.item.observation):
            self.representative = entry


def _attribute(replies: Mapping[str, Iterable[CritiqueItem]]) -> list[_Attributed]:
    entries = []
    for channel, items in replies.items():
        for item in items:
            shingle = tuple(description_shingle(item.observation))
            entries.append(_Attributed(channel, item, shingle, frozenset(shingle)))
    entries.sort(key=lambda e: (collate_key(e.item.observation), e.item.observation,
                                collate_key(e.channel), e.channel))
    return entries


def _cluster(entries: list[_Attributed]) -> list[_Group]:
    groups: list[_Group] = []
    for entry in entries:
        best: _Group | None = None
        best_score = SIMILARITY_THRESHOLD
        if entry.grams:
            for group in groups:
                grams = group.representative.grams
                score = jaccard(entry.grams, grams) if grams else 0.0
                if score >= best_score and (best is None or score > best_score):
                    best, best_score = group, score
        if best is None:
            groups.append(_Group(entry))
        else:
            best.add(entry)
    return groups


def _majority_kind(kinds: list[ItemKind]) -> ItemKind:
    counts = Counter(kinds)
    return max(KIND_ORDER, key=lambda kind: (counts[kind], -KIND_ORDER.index(kind)))


def _agreement(sources: list[str], kinds: set[ItemKind]) -> CritiqueAgreement:
    if len(sources) < 2:
        return "unique"
    return "consensus" if len(kinds) == 1 else "majority"


def _merge(group: _Group) -> ReconciledItem:
    rep = group.representative
    sources = sorted({m.channel for m in group.members}, key=lambda c: (collate_key(c), c))
    kinds = [m.item.kind for m in group.members]
    recommendation = next((m.item.recommendation for m in group.members
                           if m.item.recommendation), None)
    return ReconciledItem(kind=_majority_kind(kinds), theme=rep.item.theme,
                          observation=rep.item.observation, recommendation=recommendation,
                          id=PENDING_ID, sources=sources, agreement=_agreement(sources, set(kinds)),
                          observation_shingle=list(rep.shingle))


def _order(item: ReconciledItem) -> tuple[object, ...]:
    return (AGREEMENT_ORDER.index(item.agreement), KIND_ORDER.index(item.kind),
            collate_key(item.theme), item.theme, collate_key(item.observation), item.observation)


def reconcile_items(replies: Mapping[str, Iterable[CritiqueItem]]) -> list[ReconciledItem]:
    """Group every channel's items; sorted by agreement, kind, theme, observation; ids C-001…"""
    merged = sorted((_merge(group) for group in _cluster(_attribute(replies))), key=_order)
    return [item.model_copy(update={"id": f"C-{index:03d}"})
            for index, item in enumerate(merged, 1)]
