"""The shapes of a critique: one channel's items, the reconciled items, the report.

The report's field order is MMR 4.0.1's key order and every model
is dumped with ``exclude_none=True``, so an optional key is either present or absent,
never ``null``. mmr's additive keys (``context_skipped``, ``per_channel.*.reason``) sit
next to the keys they explain.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

ItemKind = Literal["concern", "alternative", "consideration", "open-question"]
#: Tie-break and display order of the item kinds.
KIND_ORDER: tuple[ItemKind, ...] = ("concern", "alternative", "consideration", "open-question")
CritiqueAgreement = Literal["consensus", "majority", "unique"]
AGREEMENT_ORDER: tuple[CritiqueAgreement, ...] = ("consensus", "majority", "unique")
REPORT_KIND: Literal["design-critique"] = "design-critique"
NO_JOB = "none"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class CritiqueItem(_Model):
    """One point a channel raised, after parsing (strings trimmed, kind known)."""

    kind: ItemKind
    theme: str
    observation: str
    recommendation: str | None = None


class ParsedCritique(_Model):
    """One channel's reply: its items and its summary (possibly the parse-failure text)."""

    items: tuple[CritiqueItem, ...] = ()
    summary: str | None = None


class ReconciledItem(_Model):
    """A group of similar items from one or more channels, with its id."""

    kind: ItemKind
    theme: str
    observation: str
    recommendation: str | None = None
    id: str
    sources: list[str]
    agreement: CritiqueAgreement
    observation_shingle: list[str]


class SplitPosition(_Model):
    stance: str
    item_ids: list[str]
    sources: list[str]


class Split(_Model):
    """Items that point in opposite directions on one theme, and what would settle it."""

    theme: str
    positions: list[SplitPosition]
    crux: str


class SynthesisResult(_Model):
    """What the synthesis pass produced; both empty when it produced nothing usable."""

    splits: tuple[Split, ...] = ()
    synthesis: str | None = None


class ChannelEntry(_Model):
    """``per_channel.<name>`` of the report."""

    status: str
    item_count: int
    summary: str | None = None
    recovery: str | None = None
    reason: str | None = None  #: mmr: why a dispatched channel did not complete


class Metadata(_Model):
    channels_dispatched: int
    channels_completed: int
    total_elapsed: str


class SkippedContext(_Model):
    """mmr: a repository file that was a candidate for the context but was left out."""

    path: str
    reason: str


class CritiqueReport(_Model):
    """The whole report, printed as JSON or text and saved as the job's results."""

    kind: Literal["design-critique"] = REPORT_KIND
    job_id: str
    artifact_source: str
    items: list[ReconciledItem]
    per_channel: dict[str, ChannelEntry]
    summary: str
    metadata: Metadata
    context_used: list[str] | None = None
    context_skipped: list[SkippedContext] | None = None
    lenses: list[str] | None = None
    splits: list[Split] | None = None
    synthesis: str | None = None
    session_id: str | None = None
    round: int | None = None
